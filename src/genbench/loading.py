"""The task registry: discovering task directories, loading configs, and loading tasks.

Tasks live in the package's ``tasks/`` directory and in every directory listed in ``GENBENCH_TASKS_PATH``
(``os.pathsep``-separated roots, each holding task directories). A task directory holds ``config.jsonnet``;
with a ``task.py`` it is a :class:`~genbench.Task`, without one its subdirectories are the subtasks of a
:class:`~genbench.TaskDict`.

>>> from genbench.loading import discover_tasks
>>> "arithmetic_length" in discover_tasks()
True
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import inspect
import os
import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench.config.loading import load_task_config, load_task_dict_config
from genbench.errors import TaskDefinitionError, TaskNotFoundError

if TYPE_CHECKING:
    from genbench.config.schema import TaskConfig, TaskDictConfig
    from genbench.task import Task
    from genbench.task_dict import TaskDict

TASKS_PATH_ENV = "GENBENCH_TASKS_PATH"
PACKAGE_TASKS_DIR = Path(__file__).resolve().parent / "tasks"
_ID = re.compile(r"^[a-z0-9_]+$")


def task_roots() -> list[Path]:
    """The directories searched for tasks: the package's ``tasks/`` first, then ``GENBENCH_TASKS_PATH``."""
    roots = [PACKAGE_TASKS_DIR]
    for entry in os.environ.get(TASKS_PATH_ENV, "").split(os.pathsep):
        if entry.strip():
            path = Path(entry).expanduser().resolve()
            if path not in roots:
                roots.append(path)
    return roots


def _is_task_dir(path: Path) -> bool:
    return path.is_dir() and (path / "config.jsonnet").is_file()


def discover_tasks() -> dict[str, Path]:
    """Map every task id to its directory, without reading configs or importing any ``task.py``.

    Raises:
        TaskDefinitionError: a task directory name is not a valid id, or an id exists in two roots.
    """
    found: dict[str, Path] = {}
    for root in task_roots():
        if not root.is_dir():
            if root != PACKAGE_TASKS_DIR:
                raise TaskDefinitionError(f"{TASKS_PATH_ENV} lists {root}, which is not a directory.")
            continue
        for path in sorted(root.iterdir()):
            if path.name.startswith((".", "_")) or not _is_task_dir(path):
                continue
            if not _ID.match(path.name):
                raise TaskDefinitionError(
                    f"Task directory {path} has an invalid id {path.name!r}: use lower-case letters, digits and '_'."
                )
            if path.name in found:
                raise TaskDefinitionError(
                    f"Task id {path.name!r} is defined twice: in {found[path.name]} and in {path}."
                )
            found[path.name] = path
    return found


def _split_id(task_id: str) -> tuple[str, str | None]:
    if task_id.count(":") > 1:
        raise TaskNotFoundError(f"Invalid task id {task_id!r}: expected 'task' or 'task:subtask'.")
    root_id, _, subtask_id = task_id.partition(":")
    return root_id, (subtask_id or None)


def get_task_dir(task_id: str, subtask_id: str | None = None) -> Path:
    """The directory of a task (or of one of its subtasks).

    Raises:
        TaskNotFoundError: no such task or subtask (with close matches suggested).
    """
    tasks = discover_tasks()
    if task_id not in tasks:
        close = difflib.get_close_matches(task_id, list(tasks), n=3)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        roots = ", ".join(str(r) for r in task_roots())
        raise TaskNotFoundError(f"Task {task_id!r} does not exist (searched {roots}).{hint}")
    task_dir = tasks[task_id]
    if subtask_id is None:
        return task_dir
    sub_dir = task_dir / subtask_id
    if not _is_task_dir(sub_dir):
        subtasks = [p.name for p in _subtask_dirs(task_dir)]
        raise TaskNotFoundError(
            f"Task {task_id!r} has no subtask {subtask_id!r}; its subtasks are: {', '.join(subtasks) or 'none'}."
        )
    return sub_dir


def is_task_dict_dir(task_dir: Path) -> bool:
    """Whether a task directory is a TaskDict (no ``task.py``)."""
    return not (task_dir / "task.py").is_file()


def _subtask_dirs(task_dir: Path) -> list[Path]:
    return [p for p in sorted(task_dir.iterdir()) if not p.name.startswith((".", "_")) and _is_task_dir(p)]


def load_config(task_id: str) -> TaskConfig | TaskDictConfig:
    """Load and validate the config of a task (``"id"`` or ``"id:subtask"``) without importing its code.

    >>> load_config("arithmetic_length").task_type.value
    'free_form'
    """
    root_id, subtask_id = _split_id(task_id)
    task_dir = get_task_dir(root_id, subtask_id)
    if subtask_id is None and is_task_dict_dir(task_dir):
        return load_task_dict_config(jsonnet_path=task_dir / "config.jsonnet")
    return load_task_config(jsonnet_path=task_dir / "config.jsonnet")


@dataclass(frozen=True)
class TaskSummary:
    """What ``list_tasks`` knows about a task, read from its config alone."""

    id: str
    name: str
    description: str
    task_type: str | None
    path: Path
    subtasks: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)


def list_tasks() -> list[TaskSummary]:
    """Summaries of every registry task, sorted by id, reading configs only (no ``task.py`` is imported).

    Raises:
        ConfigError: a config is invalid (a broken task fails loudly, never silently skipped).

    >>> [t.id for t in list_tasks()][:1]
    ['arithmetic_length']
    """
    summaries = []
    for task_id, task_dir in sorted(discover_tasks().items()):
        config = load_config(task_id)
        is_dict = is_task_dict_dir(task_dir)
        summaries.append(
            TaskSummary(
                id=task_id,
                name=config.name,
                description=config.description or "",
                task_type=None if is_dict else config.task_type.value,  # type: ignore[union-attr]
                path=task_dir,
                subtasks=_subtask_order(task_dir, getattr(config, "subtasks_order", None)) if is_dict else [],
                keywords=config.keywords or [],
            )
        )
    return summaries


def _subtask_order(task_dir: Path, order: list[str] | None) -> list[str]:
    present = [p.name for p in _subtask_dirs(task_dir)]
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


def _package_name(root: Path) -> str:
    """The import package under which the tasks of ``root`` are imported."""
    if root == PACKAGE_TASKS_DIR:
        return "genbench.tasks"
    name = "_genbench_tasks_" + hashlib.sha1(str(root).encode()).hexdigest()[:12]
    if name not in sys.modules:
        package = types.ModuleType(name)
        package.__path__ = [str(root)]
        sys.modules[name] = package
    return name


def _import_task_module(task_dir: Path, module: str | None) -> types.ModuleType:
    root = task_dir.parent if task_dir.parent in task_roots() else task_dir.parent.parent
    rel = task_dir.relative_to(root).parts
    name = ".".join([_package_name(root), *rel] + ([module] if module else []))
    # Errors raised by the task's own code propagate unchanged: a broken task fails loudly with its own error.
    return importlib.import_module(name)


def _defined_subclasses(module: types.ModuleType, base: type) -> list[type]:
    classes = [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, base) and obj is not base and obj.__module__ == module.__name__
    ]
    # A module may define a helper base class and the task class deriving from it: keep the leaves.
    return [c for c in classes if not any(o is not c and issubclass(o, c) for o in classes)]


def _load_task_class(task_dir: Path, root_task_id: str, subtask_id: str | None) -> Task:
    from genbench.task import Task

    config = load_task_config(jsonnet_path=task_dir / "config.jsonnet")
    if not (task_dir / "task.py").is_file():
        raise TaskDefinitionError(f"{task_dir}: task.py is missing (it must define one `Task` subclass).")
    module = _import_task_module(task_dir, "task")
    classes = _defined_subclasses(module, Task)
    if not classes:
        raise TaskDefinitionError(
            f"{task_dir / 'task.py'} defines no `Task` subclass: add e.g. `class MyTask(Task): pass` "
            "after `from genbench import Task`."
        )
    if len(classes) > 1:
        names = ", ".join(sorted(c.__name__ for c in classes))
        raise TaskDefinitionError(f"{task_dir / 'task.py'} defines several `Task` subclasses ({names}); keep one.")
    return classes[0](config, root_task_id, subtask_id=subtask_id, task_dir=task_dir)


def _load_task_dict(task_dir: Path, task_id: str) -> TaskDict:
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
        classes = _defined_subclasses(_import_task_module(task_dir, None), TaskDict)
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
        TaskNotFoundError: no such task (close matches are suggested).
        ConfigError: the config is invalid.
        TaskDefinitionError: the directory is malformed (no or several Task classes, bad subtasks_order).

    >>> task = load_task("arithmetic_length")
    >>> task.task_id, task.config.task_type.value
    ('arithmetic_length', 'free_form')
    """
    root_id, subtask_id = _split_id(task_id)
    task_dir = get_task_dir(root_id, subtask_id)
    if subtask_id is None and is_task_dict_dir(task_dir):
        return _load_task_dict(task_dir, root_id)
    return _load_task_class(task_dir, root_id, subtask_id)
