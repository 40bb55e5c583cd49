"""Which tasks a branch changes: the task ids touched by ``git diff --name-status BASE...HEAD``.

Only committed changes count (the diff runs from the merge base of ``BASE`` and ``HEAD`` to ``HEAD``), so the
answer is the same on a developer's machine and in the pull-request workflow, whatever the working tree holds.

A path ``<tasks_dir>/<id>/...`` belongs to task ``<id>``; a subtask's files (``<tasks_dir>/<id>/<sub>/...``)
belong to their parent. Names starting with ``.`` or ``_`` (``__init__.py``, ``__pycache__``) are not tasks, and
nor are plain files directly in ``<tasks_dir>``; but an entry there that is not a plain directory yet could be
taken for one (a symbolic link, ``tasks/hidden_task -> ../../../docs/hidden_task``, or a submodule) is a task
entry too, reported as changed (the registry would list it) and, apart, as *not a directory*: the review fails it.
Any other changed path under ``<tasks_dir>`` (its ``__init__.py``, which runs on every ``load_task``, a helper
module, a ``_private`` folder) belongs to no task: it is reported apart, as *outside the tasks*, and the review fails
it, since no task's checks would test it. A task whose entry is gone at ``HEAD`` is *deleted*: reported apart, since
there is nothing to test. A renamed task is a deleted one plus a changed one. A changed entry whose name is not a
valid id (lower-case letters, digits, ``_``) is *invalid*: reported apart, never as an id, so the list can be read
safely one id per line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from genbench.authoring.submission import git
from genbench.authoring.submission.errors import SubmissionError

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
