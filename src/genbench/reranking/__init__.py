"""Reranking, classification and correlation metrics from cross-encoder scores, and the evaluators that use them.

A numpy-only metric core for scores produced anywhere, and evaluators with sentence-transformers' interface and
numbers. Importing this package loads neither sentence-transformers nor torch. See docs/reranking.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench._core.lazy import lazy_exports
from genbench.metrics._classification_metrics import (
    average_precision,
    binary_classification_metrics,
    find_best_accuracy_and_threshold,
    find_best_f1_and_threshold,
    multiclass_classification_metrics,
)
from genbench.metrics._correlation_metrics import correlation_metrics, pearson, spearman
from genbench.metrics._ranking_metrics import pad_ragged, ranking_metrics, ranking_metrics_per_query
from genbench.metrics._reranking_samples import RerankingSamples
from genbench.reranking._evaluation import (
    CrossEncoderClassificationEvaluator,
    CrossEncoderCorrelationEvaluator,
    CrossEncoderEvaluator,
    CrossEncoderNanoBEIREvaluator,
    CrossEncoderRerankingEvaluator,
)
from genbench.reranking._nano_beir_suite import demo_suite_path, load_nanobeir_samples

if TYPE_CHECKING:
    from genbench.reranking._task_evaluation import source_to_reranking_example

__all__ = [
    "CrossEncoderClassificationEvaluator",
    "CrossEncoderCorrelationEvaluator",
    "CrossEncoderEvaluator",
    "CrossEncoderNanoBEIREvaluator",
    "CrossEncoderRerankingEvaluator",
    "RerankingSamples",
    "average_precision",
    "binary_classification_metrics",
    "correlation_metrics",
    "demo_suite_path",
    "find_best_accuracy_and_threshold",
    "find_best_f1_and_threshold",
    "load_nanobeir_samples",
    "multiclass_classification_metrics",
    "pad_ragged",
    "pearson",
    "ranking_metrics",
    "ranking_metrics_per_query",
    "source_to_reranking_example",
    "spearman",
]

__getattr__, __dir__ = lazy_exports(__name__, {"source_to_reranking_example": "genbench.reranking._task_evaluation"})
