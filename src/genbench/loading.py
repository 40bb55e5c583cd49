"""The task registry: discovering task directories, loading configs, and loading tasks.

Tasks live in the package's ``tasks/`` directory and in every directory listed in ``GENBENCH_TASKS_PATH``
(``os.pathsep``-separated roots, each holding task directories). A task directory holds ``config.jsonnet``;
with a ``task.py`` it is a :class:`~genbench.Task`, without one its subdirectories are the subtasks of a
:class:`~genbench.TaskDict` (see :func:`is_task_dict_dir` for a directory with both).

Every root is importable as the package ``genbench.tasks``, as in the original framework, so task code may import
its own and its siblings' modules as ``genbench.tasks.<task_id>.<module>`` wherever the task lives
(:mod:`genbench.task_imports`).

>>> from genbench.loading import discover_tasks
>>> "arithmetic_length" in discover_tasks()
True
"""

from __future__ import annotations

import difflib
import inspect
import re
import types
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench.errors import (
    InvalidTaskIdError,
    TaskDefinitionError,
    TaskNotFoundError,
)
from genbench.task_roots import PACKAGE_TASKS_DIR, TASKS_PATH_ENV, task_roots

if TYPE_CHECKING:
    from genbench.config.schema import TaskConfig, TaskDictConfig
    from genbench.task import Task
    from genbench.task_dict import TaskDict

ID_PATTERN = re.compile(r"[a-z0-9_]+")


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
    """
    found, problems = scan_task_dirs()
    if problems:
        raise TaskDefinitionError(next(iter(problems.values()))[1])
    return found


def split_task_id(task_id: str) -> tuple[str, str | None]:
    """``"id"`` or ``"id:subtask"`` as ``(id, subtask or None)``, each part checked before any path is built.

    Raises:
        InvalidTaskIdError: a part is empty or not made of lower-case letters, digits and ``_``.

    >>> split_task_id("negation_consistency:negated")
    ('negation_consistency', 'negated')
    """
    if not isinstance(task_id, str):
        raise InvalidTaskIdError(f"A task id is a string, got {type(task_id).__name__}.")
    root_id, colon, subtask_id = task_id.partition(":")
    for part in (root_id, subtask_id) if colon else (root_id,):
        if not ID_PATTERN.fullmatch(part):
            raise InvalidTaskIdError(
                f"Invalid task id {task_id!r}: expected 'task' or 'task:subtask', each made of lower-case letters, "
                "digits and '_'."
            )
    return root_id, (subtask_id if colon else None)


_split_id = split_task_id  # the name other modules have imported


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
        roots = ", ".join(str(r) for r in task_roots())
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


_subtask_dirs = subtask_dirs  # the name other modules have imported


def _raw_config(task_dir: Path) -> Any:
    from genbench.config.jsonnet import evaluate_jsonnet

    return evaluate_jsonnet(path=task_dir / "config.jsonnet")


def is_task_dict_dir(task_dir: Path, raw_config: Any = None, *, warn: bool = True) -> bool:
    """Whether a task directory is a TaskDict.

    Without ``task.py`` it is. With a ``task.py`` and subtask directories it is too when its config lists
    ``subtasks_order`` or has none of a task's own fields (``task_type``, ``data_source``, ``has_train_set``, ...;
    :func:`genbench.config.loading.is_task_dict_config`), as the original framework's tasks have it; the stray
    ``task.py`` is then ignored with a :class:`~genbench.errors.GenbenchConfigWarning`
    (:func:`genbench.config.loading.stray_task_py_warning`, which the gate's config check reports too).

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
    from genbench.config.loading import is_task_dict_config, stray_task_py_warning

    raw = _raw_config(task_dir) if raw_config is None else raw_config
    if not is_task_dict_config(raw, task_dir):
        return False
    stray = stray_task_py_warning(task_dir, raw)
    if warn and stray is not None:
        warnings.warn(stray, stacklevel=2)
    return True


def load_config(task_id: str) -> TaskConfig | TaskDictConfig:
    """Load and validate the config of a task (``"id"`` or ``"id:subtask"``) without importing its code.

    >>> load_config("arithmetic_length").task_type.value
    'free_form'
    """
    from genbench.config.loading import load_task_config, load_task_dict_config

    _, subtask_id = split_task_id(task_id)
    task_dir = get_task_dir(task_id)
    if subtask_id is None and is_task_dict_dir(task_dir):
        return load_task_dict_config(jsonnet_path=task_dir / "config.jsonnet")
    return load_task_config(jsonnet_path=task_dir / "config.jsonnet")


def _subtask_order(task_dir: Path, order: list[str] | None) -> list[str]:
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


def _defined_subclasses(module: types.ModuleType, base: type) -> list[type]:
    classes = [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, base) and obj is not base and obj.__module__ == module.__name__
    ]
    # A module may define a helper base class and the task class deriving from it: keep the leaves.
    return [c for c in classes if not any(o is not c and issubclass(o, c) for o in classes)]


def _accepts_task_dir(task_class: type) -> bool:
    try:
        parameters = inspect.signature(task_class).parameters.values()  # the constructor, without self
    except (TypeError, ValueError):
        return False
    return any(p.name == "task_dir" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def _load_task_class(task_dir: Path, root_task_id: str, subtask_id: str | None) -> Task:
    from genbench.config.loading import load_task_config
    from genbench.task import Task
    from genbench.task_imports import import_task_module

    config = load_task_config(jsonnet_path=task_dir / "config.jsonnet")
    if not (task_dir / "task.py").is_file():
        raise TaskDefinitionError(f"{task_dir}: task.py is missing (it must define one `Task` subclass).")
    module = import_task_module(task_dir, "task")
    classes = _defined_subclasses(module, Task)
    if not classes:
        raise TaskDefinitionError(
            f"{task_dir / 'task.py'} defines no `Task` subclass: add e.g. `class MyTask(Task): pass` "
            "after `from genbench import Task`."
        )
    if len(classes) > 1:
        names = ", ".join(sorted(c.__name__ for c in classes))
        raise TaskDefinitionError(f"{task_dir / 'task.py'} defines several `Task` subclasses ({names}); keep one.")
    task_class = classes[0]
    if _accepts_task_dir(task_class):
        return task_class(config, root_task_id, subtask_id=subtask_id, task_dir=task_dir)
    # A class written for the original framework: `__init__(self, config, root_task_id, subtask_id=None)`.
    task = task_class(config, root_task_id, subtask_id=subtask_id)
    task._task_dir = task_dir
    return task


def _load_task_dict(task_dir: Path, task_id: str) -> TaskDict:
    from genbench.config.loading import load_task_dict_config
    from genbench.task_dict import TaskDict

    config = load_task_dict_config(jsonnet_path=task_dir / "config.jsonnet")
    subtask_ids = _subtask_order(task_dir, config.subtasks_order)
    if not subtask_ids:
        raise TaskDefinitionError(
            f"{task_dir} has no task.py and no subtask directories: a task needs a task.py, "
            "a task with subtasks needs subdirectories with their own config.jsonnet and task.py."
        )
    task_dict_class: type[TaskDict] = TaskDict
    if (task_dir / "__init__.py").is_file():
        from genbench.task_imports import import_task_module

        classes = _defined_subclasses(import_task_module(task_dir, None), TaskDict)
        if len(classes) > 1:
            names = ", ".join(sorted(c.__name__ for c in classes))
            raise TaskDefinitionError(f"{task_dir / '__init__.py'} defines several `TaskDict` subclasses ({names}).")
        if classes:
            task_dict_class = classes[0]
    subtasks = {sid: _load_task_class(task_dir / sid, task_id, sid) for sid in subtask_ids}
    raw_config: dict[str, Any] = config.model_dump(exclude_none=True)
    return task_dict_class.from_config(subtasks_dict=subtasks, config=raw_config, task_id=task_id)


def load_task(task_id: str) -> Task | TaskDict:
    """Load a task by id: ``"id"`` or ``"id:subtask"``.

    Returns:
        The task's :class:`~genbench.Task` subclass instance, or a :class:`~genbench.TaskDict` of subtasks.

    Raises:
        InvalidTaskIdError: a malformed id (checked before any path is built or anything imported).
        TaskNotFoundError: no such task (close matches are suggested).
        ConfigError: the config is invalid.
        TaskDefinitionError: the directory is malformed (no or several Task classes, bad subtasks_order).

    >>> task = load_task("arithmetic_length")
    >>> task.task_id, task.config.task_type.value
    ('arithmetic_length', 'free_form')
    """
    root_id, subtask_id = split_task_id(task_id)
    task_dir = get_task_dir(task_id)
    if subtask_id is None and is_task_dict_dir(task_dir):
        return _load_task_dict(task_dir, root_id)
    return _load_task_class(task_dir, root_id, subtask_id)
