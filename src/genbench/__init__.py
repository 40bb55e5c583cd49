"""genbench: generalisation benchmarks for NLP models.

The public API is imported lazily, so ``import genbench`` loads no heavy library (datasets, evaluate, torch).

>>> import genbench
>>> sorted(n for n in genbench.__all__ if n[0].isupper())
['Task', 'TaskConfig', 'TaskDict']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench.core import features as _features
from genbench.core.lazy import lazy_exports
from genbench.core.version import VERSION

__version__ = VERSION

_EXPORTS = {
    "Task": "genbench.task.task",
    "TaskDict": "genbench.task.task_dict",
    "TaskConfig": "genbench.config.schema",
    "load_task": "genbench.task.factory",
    "load_config": "genbench.registry.task_configs",
    "list_tasks": "genbench.registry.listing",
    "evaluate": "genbench.runs.evaluation",
}

__all__ = ["Task", "TaskConfig", "TaskDict", "evaluate", "list_tasks", "load_config", "load_task"]


def _load_task_feature(slots: _features.TaskFeatures, name: str) -> None:
    """Fill the slot ``name`` of :mod:`genbench.core.features` (and its neighbours) with the feature's function.

    The composition root: ``genbench.task`` imports no feature, the features import the task layer, and this
    package, above both, connects them on first use (the features load numpy and more; ``import genbench`` does not).
    """
    if name in ("contamination_scores", "clean_and_all"):
        from genbench.contamination.task_checks import evaluate_task_clean_and_all, task_contamination_scores

        slots.contamination_scores, slots.clean_and_all = task_contamination_scores, evaluate_task_clean_and_all
    elif name == "cross_encoder_scores":
        from genbench.reranking.task_evaluation import task_cross_encoder_scores

        slots.cross_encoder_scores = task_cross_encoder_scores
    elif name == "model_run":
        from genbench.runs.execute import run_model_on_task

        slots.model_run = run_model_on_task
    elif name in ("task_card", "task_dict_card"):
        from genbench.display.card import task_card_html, task_dict_card_html

        slots.task_card, slots.task_dict_card = task_card_html, task_dict_card_html


_features.set_loader(_load_task_feature)

if TYPE_CHECKING:
    from genbench.config.schema import TaskConfig
    from genbench.registry.listing import list_tasks
    from genbench.registry.task_configs import load_config
    from genbench.runs.evaluation import evaluate
    from genbench.task.factory import load_task
    from genbench.task.task import Task
    from genbench.task.task_dict import TaskDict

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
