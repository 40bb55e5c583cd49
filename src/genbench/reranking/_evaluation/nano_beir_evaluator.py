"""``CrossEncoderNanoBEIREvaluator``: reranking of BM25 top-k results on a NanoBEIR-style suite, per dataset and
aggregated."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from genbench.metrics._ranking_metrics import check_at_k
from genbench.reranking._evaluation.evaluator_base import (
    CrossEncoderEvaluator,
    EvaluationOutput,
    base_vs_reranked_lines,
)
from genbench.reranking._evaluation.reranking_evaluator import CrossEncoderRerankingEvaluator
from genbench.reranking._nano_beir_suite import default_dataset_names, load_nanobeir_samples, resolve_dataset_name

__all__ = ["CrossEncoderNanoBEIREvaluator"]

logger = logging.getLogger(__name__)


class CrossEncoderNanoBEIREvaluator(CrossEncoderEvaluator):
    """Evaluate a cross-encoder on a NanoBEIR-style suite: rerank each query's ``rerank_k`` BM25 documents.

    Same arguments, defaults, result keys, CSV files and log lines as sentence-transformers'
    ``CrossEncoderNanoBEIREvaluator`` (6.2), and the same numbers; the data may also come from a local directory
    (see :mod:`genbench.reranking._nano_beir_suite`), so it runs offline. One
    :class:`~genbench.reranking._evaluation.reranking_evaluator.CrossEncoderRerankingEvaluator` runs per dataset (with
    ``documents`` = the BM25 top ``rerank_k``), then every metric is aggregated over the datasets.

    Args:
        dataset_names: Short dataset names (``"msmarco"``, ``"nq"``, ...; for a local suite, the ``Nano{Name}``
            folder names without ``Nano``, case-insensitive). Default: every NanoBEIR dataset except arguana and
            touche2020 (for a local suite: those of its datasets).
        dataset_id: Hugging Face dataset id with ``corpus``, ``queries``, ``qrels`` and ``bm25`` subsets in splits
            ``Nano{Name}``, or a local directory. Defaults to ``"sentence-transformers/NanoBEIR-en"``.
        rerank_k: Number of BM25 documents reranked per query. Defaults to 100.
        at_k: Cut-off of MRR and NDCG. Defaults to 10.
        always_rerank_positives: Also rerank positives that BM25 did not retrieve in its top ``rerank_k`` (True,
            the maximum score is then 1.0) or not (False). Defaults to True.
        prompt_name: Name of a prompt of the model, passed to ``model.predict``. Defaults to None.
        batch_size: Batch size of ``model.predict``. Defaults to 32.
        show_progress_bar: Show ``model.predict``'s progress bar. Defaults to False.
        write_csv: Write the per-dataset CSV files and ``NanoBEIR_evaluation_{aggregate_key}_results.csv``.
        aggregate_fn: Aggregates a metric's per-dataset values. Defaults to ``np.mean``.
        aggregate_key: Names the aggregate in keys and the CSV file name. Defaults to ``"mean"``.
        penalize_missing_positives: See :class:`CrossEncoderRerankingEvaluator` (not in sentence-transformers).

    Results: per dataset ``Nano{Name}_R{rerank_k}_{metric}`` (``map``, ``mrr@{at_k}``, ``ndcg@{at_k}``, and the
    BM25 order's ``base_map``, ``base_mrr@{at_k}``, ``base_ndcg@{at_k}``), then the aggregates
    ``NanoBEIR_R{rerank_k}_{aggregate_key}_{metric}``. ``primary_metric`` is
    ``NanoBEIR_R{rerank_k}_{aggregate_key}_ndcg@{at_k}``.

    Raises:
        ValueError: empty or unknown dataset names, data that cannot be loaded (offline, with a Hub id: the
            message says how to use a local directory), or bad samples.

    >>> from genbench.reranking._nano_beir_suite import demo_suite_path
    >>> evaluator = CrossEncoderNanoBEIREvaluator(dataset_id=demo_suite_path(), rerank_k=20)
    >>> evaluator.dataset_names, evaluator.primary_metric
    (['astronomy', 'gardening'], 'NanoBEIR_R20_mean_ndcg@10')
    >>> [sub.name for sub in evaluator.evaluators]
    ['NanoAstronomy_R20', 'NanoGardening_R20']
    """

    evaluator_label = "CrossEncoderNanoBEIREvaluator"
    #: sentence-transformers writes this file with "\n" line endings.
    csv_line_terminator = "\n"

    def __init__(
        self,
        dataset_names: list[str] | None = None,
        dataset_id: str | os.PathLike = "sentence-transformers/NanoBEIR-en",
        rerank_k: int = 100,
        at_k: int = 10,
        always_rerank_positives: bool = True,
        prompt_name: str | None = None,
        batch_size: int = 32,
        show_progress_bar: bool = False,
        write_csv: bool = True,
        aggregate_fn: Callable[[list[float]], float] = np.mean,
        aggregate_key: str = "mean",
        *,
        penalize_missing_positives: bool = False,
    ):
        if isinstance(rerank_k, bool) or not isinstance(rerank_k, (int, np.integer)) or rerank_k < 1:
            raise ValueError(f"rerank_k must be a positive integer, got {rerank_k!r}")
        super().__init__(name=f"NanoBEIR_R{rerank_k:d}_{aggregate_key}", write_csv=write_csv)
        if dataset_names is None:
            dataset_names = default_dataset_names(dataset_id)
        elif isinstance(dataset_names, str):
            raise ValueError(f"dataset_names must be a list of names, got the string {dataset_names!r}")
        if len(dataset_names) == 0:
            raise ValueError("dataset_names cannot be empty. Use None to evaluate on all datasets.")
        self.dataset_names = list(dataset_names)
        self.dataset_id = dataset_id
        self.rerank_k = int(rerank_k)
        self.at_k = check_at_k(at_k)
        self.always_rerank_positives = always_rerank_positives
        self.penalize_missing_positives = penalize_missing_positives
        self.prompt_name = prompt_name
        self.batch_size = batch_size
        self.show_progress_bar = show_progress_bar
        self.aggregate_fn = aggregate_fn
        self.aggregate_key = aggregate_key
        # All names are checked before any data is read.
        problems = []
        for dataset_name in self.dataset_names:
            try:
                resolve_dataset_name(dataset_id, dataset_name)
            except ValueError as err:
                problems.append(str(err))
        if problems:
            raise ValueError("\n".join(problems))

        self.evaluators = []
        for dataset_name in self.dataset_names:
            human_readable, samples = load_nanobeir_samples(dataset_id, dataset_name, self.rerank_k)
            self.evaluators.append(
                CrossEncoderRerankingEvaluator(
                    samples=samples,
                    name=f"Nano{human_readable}_R{self.rerank_k}",
                    at_k=self.at_k,
                    always_rerank_positives=always_rerank_positives,
                    prompt_name=prompt_name,
                    show_progress_bar=show_progress_bar,
                    batch_size=batch_size,
                    write_csv=write_csv,
                    penalize_missing_positives=penalize_missing_positives,
                )
            )
        self.csv_file = f"NanoBEIR_evaluation_{aggregate_key}_results.csv"
        self.csv_headers = ["epoch", "steps", "MAP", f"MRR@{self.at_k}", f"NDCG@{self.at_k}"]
        self.primary_metric = f"{self.name}_ndcg@{self.at_k}"

    def _header(self, when: str) -> str:
        return f"NanoBEIR Evaluation of the model on {self.dataset_names} dataset{when}:"

    def _evaluate(self, model: Any, output_path: str | None, epoch: int, steps: int) -> EvaluationOutput:
        per_dataset: dict[str, float] = {}
        per_metric: dict[str, list[float]] = {}
        for evaluator in self.evaluators:
            logger.info(f"Evaluating {evaluator.name}")
            results = evaluator(model, output_path, epoch, steps)
            for key, value in results.items():
                metric = key[len(evaluator.name) + 1 :]
                per_dataset[key] = value
                per_metric.setdefault(metric, []).append(value)
            logger.info("")
        aggregated = {metric: self.aggregate_fn(values) for metric, values in per_metric.items()}

        keys = ("map", f"mrr@{self.at_k}", f"ndcg@{self.at_k}")
        card_metrics = {
            key: f"{aggregated[key]:.4f} ({aggregated[key] - aggregated['base_' + key]:+.4f})" for key in keys
        }
        lines = ["CrossEncoderNanoBEIREvaluator: Aggregated Results:"]
        lines += base_vs_reranked_lines(self.at_k, aggregated, aggregated)
        return EvaluationOutput(
            metrics=aggregated,
            csv_row=[aggregated[key] for key in keys],
            log_lines=lines,
            model_card_metrics=card_metrics,
            complete_results=per_dataset,
        )

    def get_config_dict(self) -> dict[str, Any]:
        config = {
            "dataset_names": self.dataset_names,
            "dataset_id": os.fspath(self.dataset_id),
            "rerank_k": self.rerank_k,
            "at_k": self.at_k,
            "always_rerank_positives": self.always_rerank_positives,
        }
        if self.penalize_missing_positives:
            config["penalize_missing_positives"] = True
        return config
