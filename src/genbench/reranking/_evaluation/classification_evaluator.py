"""``CrossEncoderClassificationEvaluator``: accuracy/F1 of a cross-encoder's predicted class against gold labels."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from genbench.metrics._classification_metrics import binary_classification_metrics, multiclass_classification_metrics
from genbench.reranking._evaluation.evaluator_base import CrossEncoderEvaluator, EvaluationOutput
from genbench.reranking._evaluation.reranking_evaluator import predict_scores

__all__ = ["CrossEncoderClassificationEvaluator", "check_sentence_pairs"]

logger = logging.getLogger(__name__)


def check_sentence_pairs(sentence_pairs: Any) -> list:
    """The pairs as a list, or ``ValueError`` naming the first pair that is not two texts."""
    if isinstance(sentence_pairs, (str, bytes)) or not isinstance(sentence_pairs, Sequence):
        raise ValueError(f"sentence_pairs must be a list of [text, text] pairs, got {type(sentence_pairs).__name__}")
    pairs = list(sentence_pairs)
    if not pairs:
        raise ValueError("sentence_pairs is empty: give at least one pair")
    for index, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise ValueError(f"sentence_pairs[{index}] must be a pair of two texts, got {pair!r:.80}")
        if any(text is None for text in pair):
            raise ValueError(f"sentence_pairs[{index}] contains None")
    return pairs


class CrossEncoderClassificationEvaluator(CrossEncoderEvaluator):
    """Evaluate a cross-encoder as a classifier of sentence pairs.

    Same arguments, defaults, result keys, CSV file and log lines as sentence-transformers'
    ``CrossEncoderClassificationEvaluator`` (6.2), and the same numbers (from
    :mod:`genbench.metrics._classification_metrics`). A model with one output (``num_labels == 1``) is a binary
    classifier: ``accuracy``, ``accuracy_threshold``, ``f1``, ``f1_threshold``, ``precision``, ``recall``,
    ``average_precision`` (primary), with the best thresholds on its scores. A model with several outputs is
    judged by its arg-max class: ``f1_macro`` (primary), ``f1_micro``, ``f1_weighted``.

    Args:
        sentence_pairs: ``[text, text]`` pairs.
        labels: Gold label per pair (0/1 for a binary model, class ids otherwise).
        name: Prefix of the result keys and part of the CSV file name. Defaults to "".
        prompt_name: Name of a prompt of the model, passed to ``model.predict``. Defaults to None.
        batch_size: Batch size of ``model.predict``. Defaults to 32.
        show_progress_bar: Show ``model.predict``'s progress bar; None (default) shows it when this module's
            logger is at INFO or DEBUG level.
        write_csv: Append the results to ``output_path/CrossEncoderClassificationEvaluator_{name}_results.csv``.
        **kwargs: Accepted and ignored, as in sentence-transformers (a warning names them).

    ``primary_metric`` is known once the model is: it is None until the first call.

    >>> evaluator = CrossEncoderClassificationEvaluator([["a", "b"], ["c", "d"]], [1, 0], name="dev")
    >>> evaluator.csv_file
    'CrossEncoderClassificationEvaluator_dev_results.csv'
    """

    evaluator_label = "CrossEncoderClassificationEvaluator"

    def __init__(
        self,
        sentence_pairs: Sequence[Sequence[str]],
        labels: Sequence[int],
        *,
        name: str = "",
        prompt_name: str | None = None,
        batch_size: int = 32,
        show_progress_bar: bool | None = None,
        write_csv: bool = True,
        **kwargs: Any,
    ):
        super().__init__(name=name, write_csv=write_csv)
        if kwargs:
            warnings.warn(
                f"CrossEncoderClassificationEvaluator ignores the arguments {sorted(kwargs)}",
                UserWarning,
                stacklevel=2,
            )
        self.sentence_pairs = check_sentence_pairs(sentence_pairs)
        labels_array = np.asarray(labels)
        if labels_array.ndim != 1 or labels_array.shape[0] != len(self.sentence_pairs):
            raise ValueError(
                f"sentence_pairs and labels must have the same length, got {len(self.sentence_pairs)} pairs and "
                f"labels of shape {labels_array.shape}"
            )
        if labels_array.dtype.kind not in "iu":
            for index, value in enumerate(labels_array.tolist()):
                if not isinstance(value, (int, float)) or not float(value).is_integer():
                    raise ValueError(f"labels must be integer class ids; labels[{index}] is {value!r}")
            labels_array = labels_array.astype(np.int64)
        self._set_scoring_options(prompt_name, batch_size, show_progress_bar, logger)
        self.labels = labels_array
        self.csv_file = self._results_csv_name()

    def _evaluate(self, model: Any, output_path: str | None, epoch: int, steps: int) -> EvaluationOutput:
        scores = predict_scores(
            model,
            self.sentence_pairs,
            batch_size=self.batch_size,
            show_progress_bar=self.show_progress_bar,
            prompt_name=self.prompt_name,
        )
        num_labels = getattr(model, "num_labels", None)
        if num_labels is None:
            num_labels = 1 if scores.ndim == 1 else scores.shape[1]
        if num_labels == 1:
            if not np.isin(self.labels, (0, 1)).all():
                raise ValueError("a model with one output is a binary classifier: labels must be 0 or 1")
            metrics = binary_classification_metrics(scores.reshape(-1), self.labels)
            score_type = scores.dtype.type if scores.dtype.kind == "f" else float
            accuracy, f1 = metrics["accuracy"] * 100, metrics["f1"] * 100
            lines = [
                f"Accuracy:          {accuracy:.2f}\t(Threshold: {metrics['accuracy_threshold']:.4f})",
                f"F1:                {f1:.2f}\t(Threshold: {metrics['f1_threshold']:.4f})",
                f"Precision:         {metrics['precision'] * 100:.2f}",
                f"Recall:            {metrics['recall'] * 100:.2f}",
                f"Average Precision: {metrics['average_precision'] * 100:.2f}",
            ]
            self.csv_headers = [
                "epoch",
                "steps",
                "Accuracy",
                "Accuracy_Threshold",
                "F1",
                "F1_Threshold",
                "Precision",
                "Recall",
                "Average_Precision",
            ]
            self.primary_metric = "average_precision"
            # Thresholds are scores: written in the scores' dtype, as sentence-transformers writes them.
            csv_row = [score_type(value) if key.endswith("_threshold") else value for key, value in metrics.items()]
        else:
            if self.labels.min() < 0 or self.labels.max() >= num_labels:
                raise ValueError(
                    f"labels must be class ids from 0 to {num_labels - 1} for a model with {num_labels} outputs"
                )
            metrics = multiclass_classification_metrics(scores, self.labels)
            lines = [
                f"Macro F1:           {metrics['f1_macro'] * 100:.2f}",
                f"Micro F1:           {metrics['f1_micro'] * 100:.2f}",
                f"Weighted F1:        {metrics['f1_weighted'] * 100:.2f}",
            ]
            self.csv_headers = ["epoch", "steps", "Macro_F1", "Micro_F1", "Weighted_F1"]
            self.primary_metric = "f1_macro"
            csv_row = list(metrics.values())
        return EvaluationOutput(metrics=metrics, csv_row=csv_row, log_lines=lines)
