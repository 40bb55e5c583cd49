"""Loading a task by id (``"id"`` or ``"id:subtask"``).

The registry (:mod:`genbench._registry.roots`: the package's ``tasks/`` and ``GENBENCH_TASKS_PATH``) finds the
directory and checks the id; :mod:`genbench.task._classes` builds a :class:`~genbench.Task` (a directory with a
``task.py``) or a :class:`~genbench.TaskDict` (its subdirectories are the subtasks). See docs/tasks.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench._registry.directories import get_task_dir, is_task_dict_dir, split_task_id
from genbench._registry.task_configs import load_config
from genbench.task._classes import load_task_class, load_task_dict

if TYPE_CHECKING:
    from genbench.task._task import Task
    from genbench.task._task_dict import TaskDict

# load_config is the registry's (it builds no task object), importable from here as from genbench.
__all__ = ["load_config", "load_task"]


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
