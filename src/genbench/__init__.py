"""genbench: generalisation benchmarks for NLP models.

The public API (docs/api.md) is imported lazily: ``import genbench`` loads no heavy library (datasets, torch, ...).

>>> sorted(n for n in __all__ if n[0].isupper())
['Task', 'TaskConfig', 'TaskDict']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench._core import features as _features
from genbench._core.lazy import lazy_exports
from genbench._core.version import VERSION

__version__ = VERSION

_EXPORTS = {
    "Task": "genbench.task._task",
    "TaskDict": "genbench.task._task_dict",
    "TaskConfig": "genbench.config._schema",
    "load_task": "genbench.task._factory",
    "load_config": "genbench._registry.task_configs",
    "list_tasks": "genbench._registry.listing",
    "evaluate": "genbench.runs._evaluation",
}

__all__ = ["Task", "TaskConfig", "TaskDict", "evaluate", "list_tasks", "load_config", "load_task"]


def _load_task_feature(slots: _features.TaskFeatures, name: str) -> None:
    """Fill the slot ``name`` of :mod:`genbench._core.features` (and its neighbours) with the feature's function.

    The composition root: ``genbench.task`` imports no feature, the features import the task layer, and this
    package, above both, connects them on first use (the features load numpy and more; ``import genbench`` does not).
    """
    if name in ("contamination_scores", "clean_and_all"):
        from genbench.contamination._task_checks import evaluate_task_clean_and_all, task_contamination_scores

        slots.contamination_scores, slots.clean_and_all = task_contamination_scores, evaluate_task_clean_and_all
    elif name == "cross_encoder_scores":
        from genbench.reranking._task_evaluation import task_cross_encoder_scores

        slots.cross_encoder_scores = task_cross_encoder_scores
    elif name == "model_run":
        from genbench.runs._execute import run_model_on_task

        slots.model_run = run_model_on_task
    elif name in ("task_card", "task_dict_card"):
        from genbench.display._card import task_card_html, task_dict_card_html

        slots.task_card, slots.task_dict_card = task_card_html, task_dict_card_html


_features.set_loader(_load_task_feature)

if TYPE_CHECKING:
    from genbench._registry.listing import list_tasks
    from genbench._registry.task_configs import load_config
    from genbench.config._schema import TaskConfig
    from genbench.runs._evaluation import evaluate
    from genbench.task._factory import load_task
    from genbench.task._task import Task
    from genbench.task._task_dict import TaskDict

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
