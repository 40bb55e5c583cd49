"""Compatibility module: ``genbench._compat.task_ids`` of the original framework, over this package's registry.

The functions keep the original's names, signatures and results, with two deliberate differences: they see every
task root (the package's ``tasks/`` and each ``GENBENCH_TASKS_PATH`` entry), and ids are validated before any
path is built (:class:`~genbench._core.errors.InvalidTaskIdError`, a ``ValueError``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genbench._registry.directories import discover_tasks, is_task_dict_dir, subtask_dirs
from genbench._registry.directories import get_task_dir as _get_task_dir
from genbench._registry.roots import PACKAGE_TASKS_DIR
from genbench._registry.task_modules import task_module_name
from genbench.task._factory import load_task
from genbench.task._task_dict import TaskDict


def get_tasks_dir() -> Path:
    """The package's own ``tasks`` directory (further roots come from ``GENBENCH_TASKS_PATH``)."""
    return PACKAGE_TASKS_DIR


def get_all_tasks_ids() -> list[str]:
    """Every task id of the registry, sorted."""
    return sorted(discover_tasks())


def get_all_tasks_and_subtasks_ids() -> list[str]:
    """Every task id, each TaskDict's id followed by its ``"id:subtask"`` ids."""
    ids = []
    for task_id, task_dir in sorted(discover_tasks().items()):
        ids.append(task_id)
        if is_task_dict(task_dir):
            ids.extend(f"{task_id}:{sub}" for sub in get_task_dict_subtasks(task_dir))
    return ids


def get_task_dir(task_id: str, subtask_id: str | None = None) -> Path:
    """The directory of a task, or of a subtask given as ``"id:sub"`` or as ``subtask_id``.

    Raises:
        InvalidTaskIdError: a malformed id.
        TaskNotFoundError: no such task or subtask.

    >>> get_task_dir("negation_consistency:affirmative").name
    'affirmative'
    >>> "negation_consistency:negated" in get_all_tasks_and_subtasks_ids()
    True
    """
    return _get_task_dir(task_id, subtask_id)


def get_task_module_name(task_dir: Path) -> str:
    """The import name of a task directory: ``genbench.tasks.<task_id>`` (``...<task_id>.<subtask_id>``)."""
    return task_module_name(Path(task_dir))


def is_valid_task_id(id_: str) -> bool:
    """Whether ``id_`` is made of lower-case ASCII letters, digits and ``_`` only (the original's rule)."""
    return all((c.isalnum() and ord(c) < 128 and c.lower() == c) or c == "_" for c in id_)


def is_valid_task_module(task_dir: Path) -> bool:
    """Whether a directory has the files of a task module: ``__init__.py``, ``task.py`` and ``config.jsonnet``."""
    task_dir = Path(task_dir)
    return all((task_dir / name).exists() for name in ("__init__.py", "task.py", "config.jsonnet"))


def is_task_dict(task_dir: Path) -> bool:
    """Whether a task directory is a TaskDict (see :func:`genbench._registry.directories.is_task_dict_dir`)."""
    task_dir = Path(task_dir)
    return bool(subtask_dirs(task_dir)) and is_task_dict_dir(task_dir)


def get_task_dict_subtasks(task_dir: Path) -> list[str]:
    """The subtask ids of a TaskDict directory: its subdirectories that are valid task modules, sorted."""
    return sorted(d.name for d in subtask_dirs(Path(task_dir)) if is_valid_task_id(d.name) and is_valid_task_module(d))


def get_all_task_metadata() -> dict[str, dict[str, Any]]:
    """``name``, ``description``, ``keywords`` and ``authors`` of every task (and of each subtask of a TaskDict).

    Loads every task, as the original does (its ``task.py`` is imported).
    """
    metadata: dict[str, dict[str, Any]] = {}
    for task_id in get_all_tasks_ids():
        task = load_task(task_id)
        entry: dict[str, Any] = {
            "name": task.name,
            "description": task.description,
            "keywords": task.keywords,
            "authors": task.authors,
        }
        if isinstance(task, TaskDict):
            entry["subtasks"] = {
                sid: {"name": t.name, "description": t.description, "keywords": t.keywords, "authors": t.authors}
                for sid, t in task.items()
            }
        metadata[task_id] = entry
    return metadata


__all__ = [
    "get_all_task_metadata",
    "get_all_tasks_and_subtasks_ids",
    "get_all_tasks_ids",
    "get_task_dict_subtasks",
    "get_task_dir",
    "get_task_module_name",
    "get_tasks_dir",
    "is_task_dict",
    "is_valid_task_id",
    "is_valid_task_module",
]
