"""Cross-encoder evaluators with sentence-transformers' interface, over genbench's metric core.

One module per evaluator over :class:`~genbench.reranking.evaluation.base.CrossEncoderEvaluator`. Nothing here
imports sentence-transformers or torch: a model is only needed (and, given as a path or id, loaded) when an
evaluator is called.
"""

from __future__ import annotations

from genbench.reranking.evaluation.base import CrossEncoderEvaluator, EvaluationOutput
from genbench.reranking.evaluation.classification import CrossEncoderClassificationEvaluator
from genbench.reranking.evaluation.correlation import CrossEncoderCorrelationEvaluator
from genbench.reranking.evaluation.nano_beir import CrossEncoderNanoBEIREvaluator
from genbench.reranking.evaluation.reranking import CrossEncoderRerankingEvaluator

__all__ = [
    "CrossEncoderClassificationEvaluator",
    "CrossEncoderCorrelationEvaluator",
    "CrossEncoderEvaluator",
    "CrossEncoderNanoBEIREvaluator",
    "CrossEncoderRerankingEvaluator",
    "EvaluationOutput",
]
