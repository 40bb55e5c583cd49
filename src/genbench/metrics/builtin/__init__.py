"""Built-in twins of Hugging Face ``evaluate`` metrics: same ids, options, output keys and numbers, no Hub access.

Each metric is a function ``metric(predictions, references, *, option=default, ...) -> dict``; its keyword-only
parameters are the options a config may pass in ``compute_extra_kwargs``. The heavy libraries (scikit-learn, SciPy,
sacreBLEU, seqeval) are imported when a metric runs, not when this package is imported.

>>> sorted(BUILTIN_METRICS)[:3]
['accuracy', 'bleu', 'chrf']
>>> get_builtin_metric("exact_match")(["a", "b"], ["a", "c"])
{'exact_match': 0.5}
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from genbench.metrics.builtin.classification import accuracy, f1, matthews_correlation, precision, recall
from genbench.metrics.builtin.correlation import pearsonr, spearmanr
from genbench.metrics.builtin.sequence import seqeval
from genbench.metrics.builtin.text import exact_match
from genbench.metrics.builtin.translation import bleu, chrf, sacrebleu

BuiltinMetric = Callable[..., dict[str, Any]]

_REGISTRY: dict[str, BuiltinMetric] = {
    "accuracy": accuracy,
    "bleu": bleu,
    "chrf": chrf,
    "exact_match": exact_match,
    "f1": f1,
    "matthews_correlation": matthews_correlation,
    "pearsonr": pearsonr,
    "precision": precision,
    "recall": recall,
    "sacrebleu": sacrebleu,
    "seqeval": seqeval,
    "spearmanr": spearmanr,
}

# The ids served without the Hub, sorted.
BUILTIN_METRICS: tuple[str, ...] = tuple(sorted(_REGISTRY))


def get_builtin_metric(metric_id: str) -> BuiltinMetric | None:
    """The built-in metric with this ``evaluate`` id, or None.

    >>> get_builtin_metric("bertscore") is None
    True
    """
    return _REGISTRY.get(metric_id)


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


__all__ = ["BUILTIN_METRICS", "BuiltinMetric", "get_builtin_metric", "metric_options"]
