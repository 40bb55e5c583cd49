"""Cross-encoder evaluators with sentence-transformers' interface, over genbench's metric core.

One module per evaluator over :class:`~genbench.reranking._evaluation.evaluator_base.CrossEncoderEvaluator`. Nothing
here imports sentence-transformers or torch: a model is only needed (and, given as a path or id, loaded) when an
evaluator is called.
"""

from __future__ import annotations

from genbench.reranking._evaluation.classification_evaluator import CrossEncoderClassificationEvaluator
from genbench.reranking._evaluation.correlation_evaluator import CrossEncoderCorrelationEvaluator
from genbench.reranking._evaluation.evaluator_base import CrossEncoderEvaluator, EvaluationOutput
from genbench.reranking._evaluation.nano_beir_evaluator import CrossEncoderNanoBEIREvaluator
from genbench.reranking._evaluation.reranking_evaluator import CrossEncoderRerankingEvaluator

__all__ = [
    "CrossEncoderClassificationEvaluator",
    "CrossEncoderCorrelationEvaluator",
    "CrossEncoderEvaluator",
    "CrossEncoderNanoBEIREvaluator",
    "CrossEncoderRerankingEvaluator",
    "EvaluationOutput",
]
