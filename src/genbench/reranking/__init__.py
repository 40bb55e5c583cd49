"""Reranking, classification and correlation metrics from cross-encoder scores, and the evaluators that use them.

* Metric core (numpy only, for scores produced anywhere): :func:`ranking_metrics` / :func:`ranking_metrics_per_query`
  (MAP, MRR@k, NDCG@k), :class:`RerankingSamples` (sentence-transformers' sample format, base and reranked
  metrics), :func:`binary_classification_metrics`, :func:`multiclass_classification_metrics`,
  :func:`correlation_metrics`.
* Evaluators with sentence-transformers' interface and numbers: :class:`CrossEncoderRerankingEvaluator`,
  :class:`CrossEncoderClassificationEvaluator`, :class:`CrossEncoderCorrelationEvaluator`,
  :class:`CrossEncoderNanoBEIREvaluator` (Hub or local NanoBEIR-style suites).

Importing this package loads neither sentence-transformers nor torch.

>>> from genbench.reranking import ranking_metrics
>>> ranking_metrics([[0.1, 0.7, 0.3]], [[0, 1, 0]], at_k=5)
{'map': 1.0, 'mrr@5': 1.0, 'ndcg@5': 1.0}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench.core.lazy import lazy_exports
from genbench.metrics.classification_metrics import (
    average_precision,
    binary_classification_metrics,
    find_best_accuracy_and_threshold,
    find_best_f1_and_threshold,
    multiclass_classification_metrics,
)
from genbench.metrics.correlation_metrics import correlation_metrics, pearson, spearman
from genbench.metrics.ranking_metrics import pad_ragged, ranking_metrics, ranking_metrics_per_query
from genbench.metrics.reranking_samples import RerankingSamples
from genbench.reranking.evaluation import (
    CrossEncoderClassificationEvaluator,
    CrossEncoderCorrelationEvaluator,
    CrossEncoderEvaluator,
    CrossEncoderNanoBEIREvaluator,
    CrossEncoderRerankingEvaluator,
)
from genbench.reranking.nano_beir_suite import demo_suite_path, load_nanobeir_samples

if TYPE_CHECKING:
    from genbench.reranking.task_evaluation import source_to_reranking_example

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

__getattr__, __dir__ = lazy_exports(__name__, {"source_to_reranking_example": "genbench.reranking.task_evaluation"})
