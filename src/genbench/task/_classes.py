"""Building a task's objects from its code: the one ``Task`` subclass of its ``task.py``, or a ``TaskDict`` (or the
``TaskDict`` subclass of its ``__init__.py``) of its subtasks.

This is where a task's Python files are imported (:mod:`genbench._registry.task_modules`); the trusted checks of the
review never call it. :func:`genbench.task._factory.load_task` decides which of the two a task id is.
"""

from __future__ import annotations

import inspect
import types
from pathlib import Path
from typing import Any

from genbench._core.errors import TaskDefinitionError
from genbench._registry.directories import subtask_order
from genbench._registry.task_modules import import_task_module
from genbench.config._documents import load_task_config, load_task_dict_config
from genbench.task._task import Task
from genbench.task._task_dict import TaskDict


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


def load_task_class(task_dir: Path, root_task_id: str, subtask_id: str | None) -> Task:
    """Import a task directory's ``task.py`` and build its one ``Task`` subclass from the directory's config.

    Args:
        task_dir: The task (or subtask) directory, already checked (:func:`genbench.task._factory.get_task_dir`).
        root_task_id: The id of the task (of the parent task, for a subtask).
        subtask_id: The subtask's id, or None.

    Raises:
        ConfigError: the config is invalid.
        TaskDefinitionError: no ``task.py``, or it defines no or several ``Task`` subclasses.
    """
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


def load_task_dict(task_dir: Path, task_id: str) -> TaskDict:
    """Build the ``TaskDict`` of a task with subtasks: each subtask loaded with :func:`load_task_class`, in
    ``subtasks_order``, in the ``TaskDict`` subclass its ``__init__.py`` defines, if any.

    Raises:
        ConfigError: a config is invalid.
        TaskDefinitionError: no subtasks, a ``subtasks_order`` that does not match the subtask directories, or
            several ``TaskDict`` subclasses.
    """
    config = load_task_dict_config(jsonnet_path=task_dir / "config.jsonnet")
    subtask_ids = subtask_order(task_dir, config.subtasks_order)
    if not subtask_ids:
        raise TaskDefinitionError(
            f"{task_dir} has no task.py and no subtask directories: a task needs a task.py, "
            "a task with subtasks needs subdirectories with their own config.jsonnet and task.py."
        )
    task_dict_class: type[TaskDict] = TaskDict
    if (task_dir / "__init__.py").is_file():
        classes = _defined_subclasses(import_task_module(task_dir, None), TaskDict)
        if len(classes) > 1:
            names = ", ".join(sorted(c.__name__ for c in classes))
            raise TaskDefinitionError(f"{task_dir / '__init__.py'} defines several `TaskDict` subclasses ({names}).")
        if classes:
            task_dict_class = classes[0]
    subtasks = {sid: load_task_class(task_dir / sid, task_id, sid) for sid in subtask_ids}
    raw_config: dict[str, Any] = config.model_dump(exclude_none=True)
    return task_dict_class.from_config(subtasks_dict=subtasks, config=raw_config, task_id=task_id)
