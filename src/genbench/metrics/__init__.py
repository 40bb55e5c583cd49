"""Metrics: built-in twins of Hugging Face ``evaluate`` metrics, the ``evaluate`` fallback, answer extraction and
the default evaluation of a task's predictions.

Importing this package loads no heavy library (datasets, evaluate, scikit-learn, SciPy, sacreBLEU, seqeval); each
is imported when a metric needs it. See docs/metrics.md.
"""

from __future__ import annotations

from genbench.metrics._builtin import BUILTIN_METRICS
from genbench.metrics._configured_metrics import (
    compute_metric,
    compute_metric_by_id,
    load_hf_metric,
    metric_key_prefix,
)
from genbench.metrics._evaluation import best_score_reached, evaluate_predictions, main_score_key
from genbench.metrics._extraction import extract_free_form_answer

__all__ = [
    "BUILTIN_METRICS",
    "best_score_reached",
    "compute_metric",
    "compute_metric_by_id",
    "evaluate_predictions",
    "extract_free_form_answer",
    "load_hf_metric",
    "main_score_key",
    "metric_key_prefix",
]
