"""``CrossEncoderRerankingEvaluator``: MAP, MRR@k and NDCG@k of a cross-encoder reranking candidates per query."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from genbench.metrics._ranking_metrics import check_at_k
from genbench.metrics._reranking_samples import RerankingSamples
from genbench.reranking._evaluation.evaluator_base import (
    CrossEncoderEvaluator,
    EvaluationOutput,
    base_vs_reranked_lines,
)

__all__ = ["CrossEncoderRerankingEvaluator"]

logger = logging.getLogger(__name__)


def predict_scores(
    model: Any, pairs: list[list[Any]], *, batch_size: int, show_progress_bar: bool | None, prompt_name: str | None
) -> np.ndarray:
    """Score all pairs in one ``model.predict`` call (batched by the model), as a numpy array."""
    if not pairs:
        return np.array([])
    kwargs: dict[str, Any] = {"batch_size": batch_size, "show_progress_bar": show_progress_bar}
    if prompt_name is not None:
        kwargs["prompt_name"] = prompt_name
    return np.asarray(model.predict(pairs, convert_to_numpy=True, **kwargs))


class CrossEncoderRerankingEvaluator(CrossEncoderEvaluator):
    """Evaluate a cross-encoder on reranking: score every (query, document) pair, rank, and measure.

    Same arguments, defaults, result keys, CSV file and log lines as sentence-transformers'
    ``CrossEncoderRerankingEvaluator`` (6.2), and the same numbers: the metrics come from
    :mod:`genbench.metrics._ranking_metrics`. All pairs of all samples go through one ``model.predict`` call.

    Args:
        samples: List of dicts with ``query``, ``positive`` and one of ``negative`` / ``documents`` (a first-stage
            ranking, best first); see :mod:`genbench.metrics._reranking_samples`. Checked here: a bad sample raises
            ``ValueError`` naming its index and key.
        at_k: Cut-off of MRR and NDCG. Defaults to 10.
        always_rerank_positives: With ``documents``, also rerank the positives missing from the list (True) or
            only the listed documents (False, a realistic evaluation). Defaults to True.
        name: Prefix of the result keys and part of the CSV file name. Defaults to "".
        prompt_name: Name of a prompt of the model, passed to ``model.predict``. Defaults to None.
        batch_size: Batch size of ``model.predict``. Defaults to 64.
        show_progress_bar: Show ``model.predict``'s progress bar. Defaults to False.
        write_csv: Append the results to ``output_path/csv_file``. Defaults to True.
        mrr_at_k: Deprecated alias of ``at_k``.
        penalize_missing_positives: Not in sentence-transformers. With ``documents`` and
            ``always_rerank_positives=False``, sentence-transformers leaves positives missing from ``documents``
            out of the reranked metrics (so they are inflated against the base metrics, which rank the missing
            positives last). True counts each missing positive as relevant but never retrieved, in the reranked
            and the base metrics alike. Defaults to False (sentence-transformers' numbers).

    Results (prefixed with ``name``): ``map``, ``mrr@{at_k}``, ``ndcg@{at_k}`` and, when samples have
    ``documents``, ``base_map``, ``base_mrr@{at_k}``, ``base_ndcg@{at_k}`` (the first-stage order).
    ``primary_metric`` is ``{name}_ndcg@{at_k}``. The CSV file is
    ``CrossEncoderRerankingEvaluator_{name}_results_@{at_k}.csv`` with columns ``epoch, steps, MAP, MRR@k, NDCG@k``.

    >>> evaluator = CrossEncoderRerankingEvaluator(
    ...     [{"query": "q", "positive": ["a"], "documents": ["b", "a", "c"]}], name="dev")
    >>> evaluator.primary_metric, evaluator.csv_file
    ('dev_ndcg@10', 'CrossEncoderRerankingEvaluator_dev_results_@10.csv')
    >>> evaluator.prepared.pairs
    [['q', 'a'], ['q', 'b'], ['q', 'c']]
    """

    evaluator_label = "CrossEncoderRerankingEvaluator"

    def __init__(
        self,
        samples: Sequence[Mapping[str, Any]] | Mapping[Any, Mapping[str, Any]],
        at_k: int = 10,
        always_rerank_positives: bool = True,
        name: str = "",
        prompt_name: str | None = None,
        batch_size: int = 64,
        show_progress_bar: bool = False,
        write_csv: bool = True,
        mrr_at_k: int | None = None,
        *,
        penalize_missing_positives: bool = False,
    ):
        super().__init__(name=name, write_csv=write_csv)
        if mrr_at_k is not None:
            logger.warning(f"The `mrr_at_k` parameter has been deprecated; please use `at_k={mrr_at_k}` instead.")
            at_k = mrr_at_k
        self.at_k = check_at_k(at_k)
        self._set_scoring_options(prompt_name, batch_size, show_progress_bar, logger)
        self.always_rerank_positives = always_rerank_positives
        self.penalize_missing_positives = penalize_missing_positives
        self.prepared = RerankingSamples(
            samples,
            always_rerank_positives=always_rerank_positives,
            penalize_missing_positives=penalize_missing_positives,
        )
        self.samples = self.prepared.samples
        self.csv_file = self._results_csv_name(f"_@{self.at_k}")
        self.csv_headers = ["epoch", "steps", "MAP", f"MRR@{self.at_k}", f"NDCG@{self.at_k}"]
        self.primary_metric = f"{name}_ndcg@{self.at_k}" if name else f"ndcg@{self.at_k}"

    def _header(self, when: str) -> str:
        return f"{self.evaluator_label}: Evaluating the model on the {self.name} dataset{when}:"

    def _evaluate(self, model: Any, output_path: str | None, epoch: int, steps: int) -> EvaluationOutput:
        scores = predict_scores(
            model,
            self.prepared.pairs,
            batch_size=self.batch_size,
            show_progress_bar=self.show_progress_bar,
            prompt_name=self.prompt_name,
        )
        all_metrics = self.prepared.compute_metrics(scores, self.at_k)
        keys = ("map", f"mrr@{self.at_k}", f"ndcg@{self.at_k}")
        metrics = {key: all_metrics[key] for key in keys}
        base = {f"base_{key}": all_metrics[f"base_{key}"] for key in keys} if self.prepared.has_base else None
        card_metrics = None
        if base is not None:
            card_metrics = {key: f"{metrics[key]:.4f} ({metrics[key] - base['base_' + key]:+.4f})" for key in keys}
            metrics.update(base)
        return EvaluationOutput(
            metrics=metrics,
            csv_row=[metrics[key] for key in keys],
            log_lines=[self.prepared.statistics_line(), *base_vs_reranked_lines(self.at_k, metrics, base)],
            model_card_metrics=card_metrics,
        )

    def get_config_dict(self) -> dict[str, Any]:
        config: dict[str, Any] = {"at_k": self.at_k}
        if self.samples and "documents" in self.samples[0]:
            config["always_rerank_positives"] = self.always_rerank_positives
        if self.penalize_missing_positives:
            config["penalize_missing_positives"] = True
        return config
