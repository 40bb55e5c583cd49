"""Built-in twins of Hugging Face ``evaluate`` metrics: same ids, options, output keys and numbers, no Hub access.

Each is a function ``metric(predictions, references, *, option=default, ...) -> dict`` of the plugin group
:data:`METRICS`, whose heavy libraries are imported when it runs; other packages add metrics as entry points of
``genbench.metrics``. See docs/metrics.md and docs/plugins.md#the-groups.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from genbench._core.plugins import PluginGroup

BuiltinMetric = Callable[..., dict[str, Any]]

METRICS: PluginGroup[BuiltinMetric] = PluginGroup(
    "genbench.metrics",
    "metric",
    builtins={
        "accuracy": "genbench.metrics._builtin.classification:accuracy",
        "bleu": "genbench.metrics._builtin.translation:bleu",
        "chrf": "genbench.metrics._builtin.translation:chrf",
        "exact_match": "genbench.metrics._builtin.text:exact_match",
        "f1": "genbench.metrics._builtin.classification:f1",
        "matthews_correlation": "genbench.metrics._builtin.classification:matthews_correlation",
        "pearsonr": "genbench.metrics._builtin.correlation:pearsonr",
        "precision": "genbench.metrics._builtin.classification:precision",
        "recall": "genbench.metrics._builtin.classification:recall",
        "sacrebleu": "genbench.metrics._builtin.translation:sacrebleu",
        "seqeval": "genbench.metrics._builtin.sequence:seqeval",
        "spearmanr": "genbench.metrics._builtin.correlation:spearmanr",
    },
)
"""Metric id -> the function computing it: genbench's twins of ``evaluate`` metrics, then those of plug-ins."""

# genbench's own ids (served without the Hub), sorted; local_metric_ids() adds those of installed plug-ins.
BUILTIN_METRICS: tuple[str, ...] = tuple(sorted(METRICS.builtins))


def local_metric_ids() -> list[str]:
    """Every id computed without the Hub: genbench's own (sorted), then those of installed plug-ins (sorted).

    >>> local_metric_ids()[:2]
    ['accuracy', 'bleu']
    """
    return [*BUILTIN_METRICS, *(name for name in METRICS.names() if name not in METRICS.builtins)]


def get_builtin_metric(metric_id: str) -> BuiltinMetric | None:
    """The metric registered as ``metric_id`` (genbench's own or a plug-in's), imported now; None for other ids.

    >>> get_builtin_metric("bertscore") is None
    True
    >>> get_builtin_metric("exact_match")(["a", "b"], ["a", "c"])
    {'exact_match': 0.5}
    >>> sorted(BUILTIN_METRICS)[:3]
    ['accuracy', 'bleu', 'chrf']

    Raises:
        UnknownPluginError: a plug-in registered ``metric_id`` but its target does not import.
    """
    if metric_id not in METRICS:
        return None
    return METRICS.load(metric_id)


def metric_options(metric: BuiltinMetric) -> tuple[str, ...]:
    """The options (keyword-only parameters) a built-in metric accepts, in signature order.

    >>> metric_options(get_builtin_metric("accuracy"))
    ('normalize', 'sample_weight')
    """
    return tuple(
        name
        for name, parameter in inspect.signature(metric).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    )


__all__ = ["BUILTIN_METRICS", "METRICS", "BuiltinMetric", "get_builtin_metric", "local_metric_ids", "metric_options"]
