"""``CrossEncoderCorrelationEvaluator``: Pearson and Spearman correlation of cross-encoder scores with gold scores."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from genbench.metrics._correlation_metrics import correlation_metrics
from genbench.reranking._evaluation.classification_evaluator import check_sentence_pairs
from genbench.reranking._evaluation.evaluator_base import CrossEncoderEvaluator, EvaluationOutput
from genbench.reranking._evaluation.reranking_evaluator import predict_scores

__all__ = ["CrossEncoderCorrelationEvaluator"]

logger = logging.getLogger(__name__)


class CrossEncoderCorrelationEvaluator(CrossEncoderEvaluator):
    """Evaluate a cross-encoder's scores against continuous gold scores (e.g. STS).

    Same arguments, defaults, result keys (``pearson``, ``spearman``; primary ``{name}_spearman``), CSV file
    (``CrossEncoderCorrelationEvaluator_{name}_results.csv``: ``epoch, steps, Pearson_Correlation,
    Spearman_Correlation``) and log line as sentence-transformers' ``CrossEncoderCorrelationEvaluator`` (6.2), and
    the same numbers (from :mod:`genbench.metrics._correlation_metrics`).

    Args:
        sentence_pairs: ``[text, text]`` pairs (at least 2).
        scores: Gold score per pair.
        name: Prefix of the result keys and part of the CSV file name. Defaults to "".
        prompt_name: Name of a prompt of the model, passed to ``model.predict``. Defaults to None.
        batch_size: Batch size of ``model.predict``. Defaults to 32.
        show_progress_bar: Show ``model.predict``'s progress bar; None (default) shows it when this module's
            logger is at INFO or DEBUG level.
        write_csv: Append the results to the CSV file under ``output_path``. Defaults to True.

    >>> evaluator = CrossEncoderCorrelationEvaluator([["a", "b"], ["c", "d"]], [0.5, 1.0], name="sts-dev")
    >>> evaluator.primary_metric
    'sts-dev_spearman'
    """

    evaluator_label = "CrossEncoderCorrelationEvaluator"

    def __init__(
        self,
        sentence_pairs: Sequence[Sequence[str]],
        scores: Sequence[float],
        name: str = "",
        prompt_name: str | None = None,
        batch_size: int = 32,
        show_progress_bar: bool | None = None,
        write_csv: bool = True,
    ):
        super().__init__(name=name, write_csv=write_csv)
        self.sentence_pairs = check_sentence_pairs(sentence_pairs)
        gold = np.asarray(scores)
        if gold.ndim != 1 or gold.shape[0] != len(self.sentence_pairs):
            raise ValueError(
                f"sentence_pairs and scores must have the same length, got {len(self.sentence_pairs)} pairs and "
                f"scores of shape {gold.shape}"
            )
        if gold.dtype.kind not in "biuf":
            raise ValueError(f"scores must be numbers, got dtype {gold.dtype}")
        if gold.dtype.kind == "f" and np.isnan(gold).any():
            raise ValueError(f"scores[{int(np.flatnonzero(np.isnan(gold))[0])}] is NaN")
        if gold.shape[0] < 2:
            raise ValueError("a correlation needs at least 2 sentence pairs")
        self._set_scoring_options(prompt_name, batch_size, show_progress_bar, logger)
        self.scores = scores
        self.csv_file = self._results_csv_name()
        self.csv_headers = ["epoch", "steps", "Pearson_Correlation", "Spearman_Correlation"]
        self.primary_metric = f"{name}_spearman" if name else "spearman"

    @classmethod
    def from_input_examples(cls, examples: Iterable[Any], **kwargs: Any) -> CrossEncoderCorrelationEvaluator:
        """Build from objects with ``texts`` (a pair) and ``label`` (the gold score), such as ``InputExample``."""
        pairs, scores = [], []
        for example in examples:
            pairs.append(example.texts)
            scores.append(example.label)
        return cls(pairs, scores, **kwargs)

    def _evaluate(self, model: Any, output_path: str | None, epoch: int, steps: int) -> EvaluationOutput:
        predicted = predict_scores(
            model,
            self.sentence_pairs,
            batch_size=self.batch_size,
            show_progress_bar=self.show_progress_bar,
            prompt_name=self.prompt_name,
        )
        metrics = correlation_metrics(predicted, self.scores)
        line = f"Correlation:\tPearson: {metrics['pearson']:.4f}\tSpearman: {metrics['spearman']:.4f}"
        return EvaluationOutput(metrics=metrics, csv_row=[metrics["pearson"], metrics["spearman"]], log_lines=[line])
