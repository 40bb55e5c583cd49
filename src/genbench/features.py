"""The one seam between :class:`~genbench.Task` and the features that hang off it.

Contamination checks, cross-encoder evaluation and model runs are functions that take a task as their first
argument. ``Task`` reaches them (and the registry, to find its own directory) through :func:`feature`, by name: so
``task.py`` imports none of them, and they may import the registry (``genbench.loading``), which imports ``task.py``,
without an import cycle. The package's import graph is checked to be acyclic by ``tests/test_import_graph.py``.

A feature is resolved (imported) only when it is first used, which also keeps ``import genbench`` light.

>>> feature("check_contamination").__name__
'task_contamination_scores'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

# feature name -> "module:function"; each function takes the task first.
FEATURES: dict[str, str] = {
    "check_contamination": "genbench.contamination.tasks:task_contamination_scores",
    "evaluate_clean_and_all": "genbench.contamination.tasks:evaluate_task_clean_and_all",
    "evaluate_cross_encoder": "genbench.reranking.tasks:task_cross_encoder_scores",
    "run_model": "genbench.runs.execute:run_model_on_task",
    "html_card": "genbench.display.card:task_card_html",
    "task_dict_html_card": "genbench.display.card:task_dict_card_html",
    # Not features of one task but late-bound entry points of the layers above, for the original API's methods:
    # where a task id's directory is (Task.task_dir), and the config loader (TaskConfig.from_jsonnet; the loader
    # imports the schema).
    "task_dir": "genbench.loading:get_task_dir",
    "load_task_config": "genbench.config.loading:load_task_config",
}

_resolved: dict[str, Callable[..., Any]] = {}


def feature(name: str) -> Callable[..., Any]:
    """The function implementing a task feature.

    Args:
        name: A key of :data:`FEATURES`.

    Raises:
        KeyError: no feature of that name (the message lists the known ones).
    """
    if name not in _resolved:
        if name not in FEATURES:
            raise KeyError(f"No task feature {name!r}; known features: {', '.join(sorted(FEATURES))}.")
        module, _, attribute = FEATURES[name].partition(":")
        _resolved[name] = getattr(importlib.import_module(module), attribute)
    return _resolved[name]
