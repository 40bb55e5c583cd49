"""The registry: loading a task's config or the task itself by id (``"id"`` or ``"id:subtask"``).

Tasks live in the package's ``tasks/`` directory and in every directory listed in ``GENBENCH_TASKS_PATH``
(``os.pathsep``-separated roots, each holding task directories). A task directory holds ``config.jsonnet``;
with a ``task.py`` it is a :class:`~genbench.Task`, without one its subdirectories are the subtasks of a
:class:`~genbench.TaskDict` (see :func:`is_task_dict_dir` for a directory with both).

Every root is importable as the package ``genbench.tasks``, as in the original framework, so task code may import
its own and its siblings' modules as ``genbench.tasks.<task_id>.<module>`` wherever the task lives
(:mod:`genbench.task_imports`).

The work is split by concept: :mod:`genbench.task_directories` finds task directories and checks ids (no task code),
:mod:`genbench.task_classes` builds the objects from a task's code. Their public names (and the private aliases
other modules and the original framework's helpers import) stay importable from here.

>>> from genbench.loading import discover_tasks
>>> "arithmetic_length" in discover_tasks()
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench.task_classes import load_task_class, load_task_dict
from genbench.task_directories import (
    ID_PATTERN,
    discover_tasks,
    get_task_dir,
    is_task_dict_dir,
    scan_task_dirs,
    split_task_id,
    subtask_dirs,
    subtask_order,
)
from genbench.task_roots import PACKAGE_TASKS_DIR, TASKS_PATH_ENV, task_roots

if TYPE_CHECKING:
    from genbench.config.schema import TaskConfig, TaskDictConfig
    from genbench.task import Task
    from genbench.task_dict import TaskDict

# The names other modules have imported from here.
_split_id = split_task_id
_subtask_dirs = subtask_dirs
_subtask_order = subtask_order
_load_task_class = load_task_class
_load_task_dict = load_task_dict

__all__ = [
    "ID_PATTERN",
    "PACKAGE_TASKS_DIR",
    "TASKS_PATH_ENV",
    "discover_tasks",
    "get_task_dir",
    "is_task_dict_dir",
    "load_config",
    "load_task",
    "load_task_class",
    "load_task_dict",
    "scan_task_dirs",
    "split_task_id",
    "subtask_dirs",
    "subtask_order",
    "task_roots",
]


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
        return load_task_dict(task_dir, root_id)
    return load_task_class(task_dir, root_id, subtask_id)
