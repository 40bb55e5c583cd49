"""A shipped task without subtasks, typed as such (``load_task`` returns a ``Task`` or a ``TaskDict``)."""

from __future__ import annotations

from genbench import load_task
from genbench.task._task import Task


def plain_task(task_id: str) -> Task:
    """The task ``task_id``, which must have no subtasks."""
    task = load_task(task_id)
    assert isinstance(task, Task), f"{task_id} has subtasks"
    return task
