"""A registry task's validated config, by id, without importing its code."""

from __future__ import annotations

from genbench._registry.directories import get_task_dir, is_task_dict_dir, split_task_id
from genbench.config._documents import load_task_config, load_task_dict_config
from genbench.config._schema import TaskConfig, TaskDictConfig


def load_config(task_id: str) -> TaskConfig | TaskDictConfig:
    """Load and validate the config of a task (``"id"`` or ``"id:subtask"``) without importing its code.

    >>> load_config("arithmetic_length").task_type.value
    'free_form'
    """
    _, subtask_id = split_task_id(task_id)
    task_dir = get_task_dir(task_id)
    if subtask_id is None and is_task_dict_dir(task_dir):
        return load_task_dict_config(jsonnet_path=task_dir / "config.jsonnet")
    return load_task_config(jsonnet_path=task_dir / "config.jsonnet")
