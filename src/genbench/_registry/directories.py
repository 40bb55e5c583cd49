"""Task directories: where each task id lives, which directories are its subtasks, and whether it is a TaskDict.

Tasks live in the package's ``tasks/`` and in every directory of ``GENBENCH_TASKS_PATH``; ids and paths are checked
here before anything is read, and nothing here imports a task's code (:mod:`genbench.task._factory` builds the
tasks). See docs/tasks.md.
"""

from __future__ import annotations

import difflib
import re
import shlex
import warnings
from pathlib import Path
from typing import Any

from genbench._core.errors import InvalidTaskIdError, TaskDefinitionError, TaskNotFoundError
from genbench._registry.roots import PACKAGE_TASKS_DIR, TASKS_PATH_ENV, task_roots

ID_PATTERN = re.compile(r"[a-z0-9_]+")
MAX_ID_LENGTH = 255
"""A task (or subtask) id is a folder name: no file system has longer ones (a longer id can name no task)."""


def _is_task_dir(path: Path) -> bool:
    return path.is_dir() and (path / "config.jsonnet").is_file()


def scan_task_dirs() -> tuple[dict[str, Path], dict[str, tuple[Path, str]]]:
    """Every task directory of every root, and the directories that cannot be tasks (with why).

    Returns:
        ``(tasks, problems)``: ``tasks`` maps each valid id to its directory; ``problems`` maps a directory name
        that is not a valid id, or an id defined in two roots, to ``(directory, message)``.

    Raises:
        TaskDefinitionError: ``GENBENCH_TASKS_PATH`` lists something that is not a directory.
    """
    found: dict[str, Path] = {}
    problems: dict[str, tuple[Path, str]] = {}
    for root in task_roots():
        if not root.is_dir():
            if root != PACKAGE_TASKS_DIR:
                raise TaskDefinitionError(f"{TASKS_PATH_ENV} lists {root}, which is not a directory.")
            continue
        for path in sorted(root.iterdir()):
            if path.name.startswith((".", "_")) or not _is_task_dir(path):
                continue
            if not ID_PATTERN.fullmatch(path.name):
                problems[path.name] = (
                    path,
                    f"Task directory {path} has an invalid id {path.name!r}: use lower-case letters, digits and '_'.",
                )
            elif path.name in found:
                problems[path.name] = (
                    path,
                    f"Task id {path.name!r} is defined twice: in {found[path.name]} and in {path}.",
                )
            else:
                found[path.name] = path
    for name in problems:
        found.pop(name, None)
    return found, problems


def discover_tasks() -> dict[str, Path]:
    """Map every task id to its directory, without reading configs or importing any ``task.py``.

    Raises:
        TaskDefinitionError: a task directory name is not a valid id, or an id exists in two roots.

    >>> "arithmetic_length" in discover_tasks()
    True
    """
    found, problems = scan_task_dirs()
    if problems:
        raise TaskDefinitionError(next(iter(problems.values()))[1])
    return found


def split_task_id(task_id: str) -> tuple[str, str | None]:
    """``"id"`` or ``"id:subtask"`` as ``(id, subtask or None)``, each part checked before any path is built.

    Raises:
        InvalidTaskIdError: a part is empty, longer than :data:`MAX_ID_LENGTH` or not made of lower-case letters,
            digits and ``_``.

    >>> split_task_id("negation_consistency:negated")
    ('negation_consistency', 'negated')
    """
    if not isinstance(task_id, str):
        raise InvalidTaskIdError(f"A task id is a string, got {type(task_id).__name__}.")
    root_id, colon, subtask_id = task_id.partition(":")
    for part in (root_id, subtask_id) if colon else (root_id,):
        if len(part) > MAX_ID_LENGTH:  # before any path is built: the OS would refuse it ("File name too long")
            raise InvalidTaskIdError(
                f"Invalid task id {part[:40] + '...'!r} ({len(part)} characters): a task id is the name of its "
                f"folder, at most {MAX_ID_LENGTH} characters."
            )
        if not ID_PATTERN.fullmatch(part):
            raise InvalidTaskIdError(
                f"Invalid task id {task_id!r}: expected 'task' or 'task:subtask', each made of lower-case letters, "
                "digits and '_'."
            )
    return root_id, (subtask_id if colon else None)


def get_task_dir(task_id: str, subtask_id: str | None = None) -> Path:
    """The directory of a task or of one of its subtasks (``"id:sub"``, or ``subtask_id``).

    Raises:
        InvalidTaskIdError: a malformed id (nothing is looked up).
        TaskNotFoundError: no such task or subtask (with close matches suggested). A subtask must be a real
            subdirectory of its task: a symbolic link is not one.
    """
    root_id, sub_from_id = split_task_id(task_id)
    if sub_from_id is not None:
        if subtask_id is not None and subtask_id != sub_from_id:
            raise InvalidTaskIdError(f"Task id {task_id!r} names a subtask and subtask_id={subtask_id!r} another.")
        subtask_id = sub_from_id
    elif subtask_id is not None:
        split_task_id(f"{root_id}:{subtask_id}")
    tasks, problems = scan_task_dirs()
    if root_id in problems:
        raise TaskDefinitionError(problems[root_id][1])
    if root_id not in tasks:
        close = difflib.get_close_matches(root_id, list(tasks), n=3)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        searched = task_roots()
        here = Path.cwd()
        if not hint and _is_task_dir(here / root_id) and here.resolve() not in {r.resolve() for r in searched}:
            # The author's usual slip after `create-task` outside a checkout: the task is here, the root is not set.
            hint = (
                f" A task folder {root_id}/ is in the current directory: make it a task root with "
                f"`export {TASKS_PATH_ENV}={shlex.quote(str(here))}`."
            )
        roots = ", ".join(str(r) for r in searched)
        raise TaskNotFoundError(f"Task {root_id!r} does not exist (searched {roots}).{hint}")
    task_dir = tasks[root_id]
    if subtask_id is None:
        return task_dir
    sub_dir = task_dir / subtask_id
    if sub_dir.is_symlink() or not _is_task_dir(sub_dir) or sub_dir.resolve().parent != task_dir.resolve():
        subtasks = [p.name for p in subtask_dirs(task_dir)]
        raise TaskNotFoundError(
            f"Task {root_id!r} has no subtask {subtask_id!r}; its subtasks are: {', '.join(subtasks) or 'none'}."
        )
    return sub_dir


def subtask_dirs(task_dir: Path) -> list[Path]:
    """The subtask directories of a task directory (real subdirectories with a ``config.jsonnet``), sorted."""
    return [
        p
        for p in sorted(task_dir.iterdir())
        if not p.name.startswith((".", "_")) and not p.is_symlink() and _is_task_dir(p)
    ]


def _raw_config(task_dir: Path) -> Any:
    from genbench.config._jsonnet import evaluate_jsonnet

    return evaluate_jsonnet(path=task_dir / "config.jsonnet")


def is_task_dict_dir(task_dir: Path, raw_config: object = None, *, warn: bool = True) -> bool:
    """Whether a task directory is a TaskDict.

    Without ``task.py`` it is. With a ``task.py`` and subtask directories it is too when its config lists
    ``subtasks_order`` or has none of a task's own fields (``task_type``, ``data_source``, ``has_train_set``, ...;
    :func:`genbench.config._documents.is_task_dict_config`), as the original framework's tasks have it; the stray
    ``task.py`` is then ignored with a :class:`~genbench._core.errors.GenbenchConfigWarning`
    (:func:`genbench.config._documents.stray_task_py_warning`, which the gate's config check reports too).

    Args:
        task_dir: The task directory.
        raw_config: The evaluated ``config.jsonnet``, if already at hand (else it is evaluated when needed).
        warn: Emit the warning about a stray ``task.py`` (loading does; a mere question about the directory, such
            as the gate's planning, does not).
    """
    if not (task_dir / "task.py").is_file():
        return True
    if not subtask_dirs(task_dir):
        return False
    # The rule and the warning the review's config check uses too.
    from genbench.config._documents import is_task_dict_config, stray_task_py_warning

    raw = _raw_config(task_dir) if raw_config is None else raw_config
    if not is_task_dict_config(raw, task_dir):
        return False
    stray = stray_task_py_warning(task_dir, raw)
    if warn and stray is not None:
        warnings.warn(stray, stacklevel=2)
    return True


def subtask_order(task_dir: Path, order: list[str] | None) -> list[str]:
    present = [p.name for p in subtask_dirs(task_dir)]
    if order is None:
        return present
    missing = [s for s in order if s not in present]
    if missing:
        raise TaskDefinitionError(
            f"{task_dir / 'config.jsonnet'}: subtasks_order lists {', '.join(missing)}, which "
            f"{'is not a subtask directory' if len(missing) == 1 else 'are not subtask directories'} "
            f"(found: {', '.join(present) or 'none'})."
        )
    unlisted = [s for s in present if s not in order]
    if unlisted:
        raise TaskDefinitionError(
            f"{task_dir / 'config.jsonnet'}: subtask director{'y' if len(unlisted) == 1 else 'ies'} "
            f"{', '.join(unlisted)} missing from subtasks_order."
        )
    if len(set(order)) != len(order):
        raise TaskDefinitionError(f"{task_dir / 'config.jsonnet'}: subtasks_order lists a subtask twice.")
    return list(order)
