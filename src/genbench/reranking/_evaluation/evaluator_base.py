"""The base of the cross-encoder evaluators: call contract, result keys, CSV file and log lines.

Evaluators are called as sentence-transformers' are and return ``{f"{name}_{metric}": float}``. The subclass only
computes (:meth:`CrossEncoderEvaluator._evaluate`: metrics, CSV row, log lines); this base logs, appends the row to
the CSV file atomically, prefixes the keys and ``primary_metric`` and records the model card data. See
docs/reranking.md#evaluators.
"""

from __future__ import annotations

import csv
import io
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from genbench._core.extras import import_optional
from genbench._core.files import atomic_open

__all__ = ["CrossEncoderEvaluator", "EvaluationOutput", "base_vs_reranked_lines"]


@dataclass
class EvaluationOutput:
    """What one evaluation produced, before the base class prefixes, logs and writes it.

    Attributes:
        metrics: Metric name (unprefixed) to value, in the order of the returned dict.
        csv_row: The values after ``epoch`` and ``steps`` in the CSV row.
        log_lines: Lines logged at INFO level after the evaluator's header line.
        model_card_metrics: What to store in the model card, unprefixed; default: ``metrics``.
        complete_results: Results that already carry their full key (a suite's per-dataset results), returned
            before the prefixed ``metrics``.
    """

    metrics: dict[str, Any]
    csv_row: list[Any] = field(default_factory=list)
    log_lines: list[str] = field(default_factory=list)
    model_card_metrics: dict[str, Any] | None = None
    complete_results: dict[str, float] = field(default_factory=dict)


def base_vs_reranked_lines(at_k: int, reranked: dict[str, float], base: dict[str, float] | None) -> list[str]:
    """The MAP / MRR@k / NDCG@k table that sentence-transformers logs, in percent with two decimals.

    Args:
        at_k: The cut-off in the metric names.
        reranked: ``map``, ``mrr@k``, ``ndcg@k`` after reranking.
        base: The same keys with a ``base_`` prefix, or None when there is no first-stage order.

    >>> for line in base_vs_reranked_lines(10, {"map": 0.6236, "mrr@10": 0.6296, "ndcg@10": 0.7105},
    ...                                    {"base_map": 0.3403, "base_mrr@10": 0.3467, "base_ndcg@10": 0.4905}):
    ...     print(line)
             Base  -> Reranked
    MAP:     34.03 -> 62.36
    MRR@10:  34.67 -> 62.96
    NDCG@10: 49.05 -> 71.05
    """
    pad = " " * len(str(at_k))
    names = ("map", f"mrr@{at_k}", f"ndcg@{at_k}")
    labels = (f"MAP:{pad}   ", f"MRR@{at_k}:  ", f"NDCG@{at_k}: ")
    if base is None:
        return [f"{label}{reranked[name] * 100:.2f}" for label, name in zip(labels, names, strict=True)]
    return [f"{pad}       Base  -> Reranked"] + [
        f"{label}{base['base_' + name] * 100:.2f} -> {reranked[name] * 100:.2f}"
        for label, name in zip(labels, names, strict=True)
    ]


def _to_float(value: Any) -> Any:
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def load_cross_encoder(model: Any) -> Any:
    """A model object as given, or a ``CrossEncoder`` loaded from a local path or model id."""
    if isinstance(model, (str, os.PathLike)):
        sentence_transformers = import_optional("sentence_transformers", "rerank", "Cross-encoders")
        return sentence_transformers.CrossEncoder(os.fspath(model))
    return model


class CrossEncoderEvaluator:
    """Base class of genbench's cross-encoder evaluators (the call contract of sentence-transformers).

    Attributes:
        name: Prefix of the result keys and part of the CSV file name.
        primary_metric: The result key to select models by (prefixed with ``name``); the classification
            evaluator sets it at its first call, when the model's number of labels is known.
        greater_is_better: Always True for these metrics.
        csv_file: File name under ``output_path``; ``csv_headers`` its first row.
    """

    greater_is_better: ClassVar[bool] = True
    #: Name in the log header and the CSV file name.
    evaluator_label: ClassVar[str] = "CrossEncoderEvaluator"
    #: Line ending of the CSV rows: ``csv.writer``'s default, as sentence-transformers writes them.
    csv_line_terminator: ClassVar[str] = "\r\n"

    def __init__(self, name: str = "", write_csv: bool = True):
        self.name = name
        self.write_csv = write_csv
        self.primary_metric: str | None = None
        self.csv_file = ""
        self.csv_headers: list[str] = []

    def _set_scoring_options(
        self, prompt_name: str | None, batch_size: int, show_progress_bar: bool | None, log: logging.Logger
    ) -> None:
        """Check and keep the options of ``model.predict``; a None progress bar shows when ``log`` is at INFO/DEBUG.

        Raises:
            ValueError: ``batch_size`` is not a positive integer.
        """
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.prompt_name = prompt_name
        self.batch_size = batch_size
        if show_progress_bar is None:
            show_progress_bar = log.getEffectiveLevel() in (logging.INFO, logging.DEBUG)
        self.show_progress_bar = show_progress_bar

    def _results_csv_name(self, suffix: str = "") -> str:
        """``{evaluator_label}[_{name}]_results{suffix}.csv``, sentence-transformers' CSV file name."""
        return f"{self.evaluator_label}{'_' + self.name if self.name else ''}_results{suffix}.csv"

    # --- what subclasses provide -------------------------------------------------------------------------------

    def _evaluate(self, model: Any, output_path: str | None, epoch: int, steps: int) -> EvaluationOutput:
        raise NotImplementedError

    def _header(self, when: str) -> str:
        return f"{self.evaluator_label}: Evaluating the model on {self.name} dataset{when}:"

    # --- the contract ------------------------------------------------------------------------------------------

    def __call__(
        self, model: Any, output_path: str | None = None, epoch: int = -1, steps: int = -1
    ) -> dict[str, float]:
        """Evaluate ``model`` and return ``{f"{name}_{metric}": value}``.

        Args:
            model: A ``sentence_transformers.CrossEncoder`` (or anything with its ``predict``), or a local path or
                model id to load one from.
            output_path: Directory for the CSV file; nothing is written when None.
            epoch: Training epoch, -1 for a final evaluation (written to the CSV and the log header).
            steps: Training steps in the epoch, -1 for the end of the epoch.
        """
        model = load_cross_encoder(model)
        logger_for(self).info(self._header(self._when(epoch, steps)))
        output = self._evaluate(model, output_path, epoch, steps)
        for line in output.log_lines:
            logger_for(self).info(line)
        if output_path is not None and self.write_csv:
            self._append_csv_row(output_path, [epoch, steps, *output.csv_row])
        metrics = self.prefix_name_to_metrics(output.metrics, self.name)
        card_metrics = output.model_card_metrics
        card_metrics = metrics if card_metrics is None else self.prefix_name_to_metrics(card_metrics, self.name)
        self.store_metrics_in_model_card_data(model, card_metrics, epoch, steps)
        if output.complete_results:
            return {**output.complete_results, **metrics}
        return metrics

    @staticmethod
    def _when(epoch: int, steps: int) -> str:
        if epoch == -1:
            return ""
        return f" after epoch {epoch}" if steps == -1 else f" in epoch {epoch} after {steps} steps"

    def prefix_name_to_metrics(self, metrics: dict[str, Any], name: str) -> dict[str, Any]:
        """``{f"{name}_{key}": float(value)}`` (values that are not numbers stay as they are); also prefixes
        ``primary_metric`` once."""
        if not name:
            return {key: _to_float(value) for key, value in metrics.items()}
        if self.primary_metric is not None and not self.primary_metric.startswith(name + "_"):
            self.primary_metric = f"{name}_{self.primary_metric}"
        return {f"{name}_{key}": _to_float(value) for key, value in metrics.items()}

    def store_metrics_in_model_card_data(self, model: Any, metrics: dict[str, Any], epoch: int, steps: int) -> None:
        """Record the metrics in ``model.model_card_data`` when the model has one (sentence-transformers models)."""
        card = getattr(model, "model_card_data", None)
        if card is not None and hasattr(card, "set_evaluation_metrics"):
            card.set_evaluation_metrics(self, metrics, epoch, steps)

    def _append_csv_row(self, output_path: str | os.PathLike, row: list[Any]) -> None:
        path = Path(output_path) / self.csv_file
        existing = path.read_bytes() if path.is_file() else None
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator=self.csv_line_terminator)
        if existing is None:
            writer.writerow(self.csv_headers)
        writer.writerow(row)
        with atomic_open(path, "wb") as handle:
            handle.write((existing or b"") + buffer.getvalue().encode("utf-8"))

    @property
    def description(self) -> str:
        """``CrossEncoderRerankingEvaluator`` -> ``Cross Encoder Reranking`` (for model cards)."""
        label = self.evaluator_label
        label = label[: label.index("Evaluator")] if "Evaluator" in label else label
        return re.sub(r"([a-z])([A-Z])", r"\g<1> \g<2>", label)

    def get_config_dict(self) -> dict[str, Any]:
        """Settings worth showing in a model card."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def logger_for(evaluator: CrossEncoderEvaluator) -> logging.Logger:
    """The logger of the evaluator's module (``genbench.reranking._evaluation.reranking_evaluator``, ...)."""
    return logging.getLogger(type(evaluator).__module__)
