"""Which tasks a branch changes: the task ids touched by ``git diff --name-status BASE...HEAD`` (committed only).

Deleted tasks, task entries that are not plain directories, invalid ids and changes outside any task are reported
apart, so the list of ids can be read safely one per line. See docs/review.md#genbench-cli-changed-tasks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import genbench.authoring.submission._git as git
from genbench.authoring.submission._errors import SubmissionError

DEFAULT_TASKS_DIR = "src/genbench/tasks"
_ID = re.compile(r"^[a-z0-9_]+$")
# git tree modes.
_DIRECTORY = "040000"
_FILE = "100644"


@dataclass(frozen=True)
class ChangedTasks:
    """The tasks a branch changes, each list sorted.

    Attributes:
        changed: Ids of tasks added or modified, present at ``HEAD``: the ones to test.
        deleted: Ids of tasks whose directory no longer exists at ``HEAD``.
        invalid: Changed directory names that are not valid task ids.
        not_directories: Changed task entries that are not plain directories at ``HEAD`` (symbolic links,
            submodules); also in ``changed`` or ``invalid``.
        outside_tasks: Changed paths under the tasks directory that lie in no task entry (its ``__init__.py``,
            helper modules, ``_private`` or ``.hidden`` folders), added, modified or deleted.
    """

    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    not_directories: list[str] = field(default_factory=list)
    outside_tasks: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, list[str]]:
        """The lists as a JSON-ready dict."""
        return {
            "changed": list(self.changed),
            "deleted": list(self.deleted),
            "invalid": list(self.invalid),
            "not_directories": list(self.not_directories),
            "outside_tasks": list(self.outside_tasks),
        }


def task_name_of(path: str, tasks_dir: str = DEFAULT_TASKS_DIR, *, entry_is_file: bool = True) -> str | None:
    """The name of the task entry a repository path lies in, or ``None`` when it is in none.

    A path directly in ``tasks_dir`` is a task entry only when it is not a plain file (``entry_is_file=False``:
    a symbolic link or a submodule).

    >>> task_name_of("src/genbench/tasks/my_task/subtask_1/config.jsonnet")
    'my_task'
    >>> task_name_of("src/genbench/tasks/__init__.py") is None, task_name_of("README.md") is None
    (True, True)
    >>> task_name_of("src/genbench/tasks/hidden_task", entry_is_file=False)
    'hidden_task'
    """
    prefix = tasks_dir.strip("/") + "/"
    if not path.startswith(prefix):
        return None
    parts = path[len(prefix) :].split("/")
    if not parts[0] or parts[0].startswith((".", "_")) or (len(parts) == 1 and entry_is_file):
        return None
    return parts[0]


def changed_tasks(
    base: str, *, repo: str | Path = ".", tasks_dir: str = DEFAULT_TASKS_DIR, head: str = "HEAD"
) -> ChangedTasks:
    """The tasks changed on ``head`` since it forked from ``base``.

    Args:
        base: The ref the branch will merge into (``origin/main``).
        repo: Any directory inside the git working tree.
        tasks_dir: Directory of the tasks, relative to the repository root.
        head: The ref holding the changes.

    Returns:
        The changed, deleted and invalid task names.

    Raises:
        SubmissionError: ``repo`` is not a git repository, ``base`` is unknown (fetch it first), or the two
            histories share no commit (shallow clone).
    """
    if base.startswith("-") or head.startswith("-"):
        raise SubmissionError(f"Invalid ref {base if base.startswith('-') else head!r}: a ref cannot start with '-'.")
    root = git.repo_root(repo)
    tasks_dir = tasks_dir.strip("/")
    at_head = git.tree_entries(root, tasks_dir, rev=head)
    at_base = git.tree_entries(root, tasks_dir, rev=git.merge_base(root, base, head))
    names = set()
    outside = set()
    for change in git.changed_paths(root, base, head, path=tasks_dir):
        top = change.path[len(tasks_dir) + 1 :].split("/", 1)[0]
        mode = at_head.get(top) or at_base.get(top, _FILE)
        name = task_name_of(change.path, tasks_dir, entry_is_file=mode.startswith("100"))
        if name is not None:
            names.add(name)
        else:
            outside.add(change.path)
    result = ChangedTasks(outside_tasks=sorted(outside))
    for name in sorted(names):
        if name not in at_head:
            result.deleted.append(name)
            continue
        (result.changed if _ID.match(name) else result.invalid).append(name)
        if at_head[name] != _DIRECTORY:
            result.not_directories.append(name)
    return result
