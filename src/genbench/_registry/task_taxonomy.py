"""A task's GenBench taxonomy as it applies: its own ``taxonomy`` block, else (for a subtask) its parent's.

A task with subtasks may declare the block once for all of them (``docs/taxonomy.md``); the subtasks are run and
scored one by one, so their results files and cards must find it there.
"""

from __future__ import annotations

import warnings

from genbench._core.errors import GenBenchError
from genbench._registry.directories import split_task_id
from genbench._registry.task_configs import load_config
from genbench.config._schema import TaskConfig, TaskDictConfig
from genbench.config._taxonomy_block import TaxonomyConfig


def task_taxonomy(task_id: str, config: TaskConfig | TaskDictConfig | None = None) -> TaxonomyConfig | None:
    """The taxonomy of a task (``"id"`` or ``"id:subtask"``): ``config``'s own block (the registry's config when
    None), else the block of the subtask's task with subtasks, else None.

    A parent whose config cannot be read gives None (its own loading reports the problem).

    >>> task_taxonomy("negation_consistency:negated").values("shift_type")
    ['covariate']
    >>> task_taxonomy("arithmetic_length").values("generalisation_type")
    ['compositional']
    """
    if config is None:
        config = _quiet_config(task_id)
    own = getattr(config, "taxonomy", None)
    if own is not None:
        return own
    root_id, subtask_id = split_task_id(task_id)
    if subtask_id is None:
        return None
    return getattr(_quiet_config(root_id), "taxonomy", None)


def _quiet_config(task_id: str) -> TaskConfig | TaskDictConfig | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the task's own loading warns
            return load_config(task_id)
    except (GenBenchError, OSError, ValueError):
        return None
