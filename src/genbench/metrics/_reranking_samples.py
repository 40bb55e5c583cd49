"""Reranking samples: validation, the (query, document) pairs to score, and metrics from their scores.

A sample has ``query``, ``positive`` and exactly one of ``negative`` or ``documents``; its candidates are built as
sentence-transformers' ``CrossEncoderRerankingEvaluator`` builds them, and ``penalize_missing_positives`` fixes its
missing-positives flaw. See docs/reranking.md#crossencoderrerankingevaluator.
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeGuard

import numpy as np
import numpy.typing as npt

from genbench.metrics._ranking_metrics import check_at_k, check_no_nan, ranking_metric_arrays

__all__ = ["RerankingSamples"]


def _is_document_list(value: object) -> TypeGuard[Sequence[Any]]:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def _validate(index: int, sample: Any) -> tuple[Any, list, list | None, list | None]:
    where = f"samples[{index}]"
    if not isinstance(sample, Mapping):
        raise ValueError(
            f"{where}: expected a dict with 'query', 'positive' and 'negative' or 'documents', "
            f"got {type(sample).__name__}"
        )
    for key in ("query", "positive"):
        if key not in sample:
            raise ValueError(f"{where}: missing required key {key!r}")
    has_negative, has_documents = "negative" in sample, "documents" in sample
    if has_negative and has_documents:
        raise ValueError(f"{where}: has both 'negative' and 'documents'; give exactly one of them")
    if not has_negative and not has_documents:
        raise ValueError(f"{where}: missing key 'negative' or 'documents'; give exactly one of them")
    query = sample["query"]
    if query is None or (isinstance(query, str) and not query.strip()):
        raise ValueError(f"{where}['query'] is empty")
    positive = sample["positive"]
    if isinstance(positive, str):
        positive = [positive]
    elif not _is_document_list(positive):
        raise ValueError(
            f"{where}['positive'] must be a list of documents or one string, got {type(positive).__name__}"
        )
    positive = list(positive)
    key = "negative" if has_negative else "documents"
    others = sample[key]
    if not _is_document_list(others):
        raise ValueError(f"{where}[{key!r}] must be a list of documents, got {type(others).__name__}")
    others = list(others)
    if has_documents and not others:
        raise ValueError(f"{where}['documents'] is an empty list; it must hold the first-stage ranking")
    if has_negative and not others and not positive:
        raise ValueError(f"{where}: 'positive' and 'negative' are both empty lists, so there is nothing to rank")
    for name, documents in (("positive", positive), (key, others)):
        if None in documents:  # one C-level scan; the position is looked up only for the message
            position = next(position for position, document in enumerate(documents) if document is None)
            raise ValueError(f"{where}[{name!r}][{position}] is None")
    return query, positive, (others if has_negative else None), (others if has_documents else None)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small acyclic containers.

    A million ``[query, document]`` lists trigger repeated collections that scan every list built so far and find
    nothing to free (the lists hold only the caller's documents, so no cycle can form): measured at 10k samples x
    100 candidates, 0.6 s of collector time for 0.1 s of building the pairs, and half of the construction time of
    the samples' candidate and label lists. Reference counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _flat(rows: list[list[int]], total: int, dtype: Any) -> np.ndarray:
    """The rows concatenated into one array (in C, without a Python-level loop over the values)."""
    return np.fromiter(itertools.chain.from_iterable(rows), dtype=dtype, count=total)


def _padded(flat: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Rows of ``lengths`` consecutive values of ``flat``, right-padded with zeros."""
    width = int(lengths.max()) if lengths.size else 0
    out = np.zeros((lengths.shape[0], width), dtype=flat.dtype)
    if flat.size:
        rows = np.repeat(np.arange(lengths.shape[0]), lengths)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        out[rows, np.arange(flat.shape[0]) - starts] = flat
    return out


class RerankingSamples:
    """Validated reranking samples with their candidates, ready to be scored and measured.

    Args:
        samples: A list of dicts (or a dict whose values are the samples), see docs/reranking.md.
        always_rerank_positives: For ``documents`` samples, rerank all positives, also those missing from
            ``documents`` (True), or only the documents (False). Samples with ``negative`` always rank all.
        penalize_missing_positives: Count a positive missing from ``documents`` as relevant but never retrieved,
            in the base metrics and (with ``always_rerank_positives=False``) in the reranked ones. False matches
            sentence-transformers.

    Raises:
        ValueError: naming the sample index and key: a missing ``query`` or ``positive``, both or neither of
            ``negative`` and ``documents``, an empty ``documents`` list, nothing to rank, or a wrong type.

    >>> prepared = RerankingSamples([{"query": "q", "positive": ["a"], "negative": ["b", "c"]}])
    >>> prepared.pairs
    [['q', 'a'], ['q', 'b'], ['q', 'c']]
    >>> {key: round(value, 4) for key, value in prepared.compute_metrics([0.2, 0.9, 0.1], at_k=10).items()}
    {'map': 0.5, 'mrr@10': 0.5, 'ndcg@10': 0.6309}
    """

    def __init__(
        self,
        samples: Sequence[Mapping[str, Any]] | Mapping[Any, Mapping[str, Any]],
        *,
        always_rerank_positives: bool = True,
        penalize_missing_positives: bool = False,
    ):
        if isinstance(samples, Mapping):
            samples = list(samples.values())
        if not _is_document_list(samples):
            raise ValueError(f"samples must be a list of dicts, got {type(samples).__name__}")
        if len(samples) == 0:
            raise ValueError("samples is empty: give at least one sample")
        self.samples = list(samples)
        self.always_rerank_positives = always_rerank_positives
        self.penalize_missing_positives = penalize_missing_positives

        self.queries: list[Any] = []
        self.candidates: list[list[Any]] = []
        self.num_positives: list[int] = []
        self.num_negatives: list[int] = []
        labels: list[list[int]] = []
        total_relevant: list[int] = []
        base_labels: list[list[int]] = []
        base_total_relevant: list[int] = []
        # The loop builds a few acyclic lists per sample; see _collector_paused for why the collector waits.
        with _collector_paused():
            for index, sample in enumerate(self.samples):
                query, positive, negative, documents = _validate(index, sample)
                if documents is not None:
                    in_documents = [int(document in positive) for document in documents]
                    missing = sum(1 for document in positive if document not in documents)
                    ranked = list(in_documents)
                    if penalize_missing_positives:
                        base_total_relevant.append(sum(ranked) + missing)
                    else:
                        if sum(ranked) > 0:
                            # sentence-transformers ranks the missing positives below every document.
                            ranked += [1] * (len(positive) - sum(ranked))
                        base_total_relevant.append(sum(ranked))
                    base_labels.append(ranked)

                    if always_rerank_positives:
                        docs = positive + [document for document in documents if document not in positive]
                        is_relevant = [1] * len(positive) + [0] * (len(docs) - len(positive))
                        relevant = len(positive)
                    else:
                        docs = documents
                        is_relevant = in_documents
                        relevant = sum(in_documents) + (missing if penalize_missing_positives else 0)
                else:
                    negative = negative or []
                    docs = positive + negative
                    is_relevant = [1] * len(positive) + [0] * len(negative)
                    relevant = len(positive)
                self.queries.append(query)
                self.candidates.append(docs)
                labels.append(is_relevant)
                total_relevant.append(relevant)
                self.num_positives.append(len(positive))
                self.num_negatives.append(len(is_relevant) - sum(is_relevant))

        # Samples without a relevant candidate are not scored (all their metrics are 0).
        self.scored = np.array(self.num_negatives, dtype=np.intp) < np.array([len(row) for row in labels])
        self._lengths = np.array([len(row) for row in labels], dtype=np.intp) * self.scored
        scored_rows = [row for row, keep in zip(labels, self.scored.tolist(), strict=True) if keep]
        self._labels = _padded(_flat(scored_rows, int(self._lengths.sum()), bool), self._lengths)
        self._total_relevant = np.where(self.scored, np.array(total_relevant, dtype=np.float64), 0.0)
        self._base_lengths = np.array([len(row) for row in base_labels], dtype=np.intp)
        self._base_labels = _padded(_flat(base_labels, int(self._base_lengths.sum()), bool), self._base_lengths)
        self._base_total_relevant = np.array(base_total_relevant, dtype=np.float64)
        self._base_cache: dict[int, dict[str, float]] = {}

    @property
    def has_base(self) -> bool:
        """Whether any sample has ``documents``, so that base (first-stage order) metrics exist."""
        return self._base_lengths.size > 0

    @property
    def pairs(self) -> list[list[Any]]:
        """The ``[query, document]`` pairs to score: the candidates of every sample that has a relevant one.

        Built anew on each access (a million pairs take about 0.1 s), so that they are not kept alive with the
        samples.
        """
        with _collector_paused():
            return [
                [query, document]
                for query, documents, keep in zip(self.queries, self.candidates, self.scored.tolist(), strict=True)
                if keep
                for document in documents
            ]

    def _flat_scores(self, scores: npt.ArrayLike) -> np.ndarray:
        expected = int(self._lengths.sum())
        if isinstance(scores, np.ndarray) and scores.ndim == 1:
            flat = scores
        elif (
            _is_document_list(scores)
            and len(scores) == len(self.samples)
            and all(_is_document_list(row) or isinstance(row, np.ndarray) for row in scores)
        ):
            rows = [np.asarray(row) for row in scores]
            for index, (row, documents) in enumerate(zip(rows, self.candidates, strict=True)):
                if row.shape != (len(documents),):
                    raise ValueError(f"scores[{index}] has shape {row.shape}, expected ({len(documents)},)")
            kept = [row for row, keep in zip(rows, self.scored, strict=True) if keep]
            flat = np.concatenate(kept) if kept else np.zeros(0)
        else:
            flat = np.asarray(scores)
        if flat.ndim != 1 or flat.shape[0] != expected:
            raise ValueError(f"expected {expected} scores, one per pair in `pairs`, got shape {flat.shape}")
        if flat.dtype.kind not in "iuf":
            raise ValueError(f"scores must be numeric, got dtype {flat.dtype}")
        if flat.dtype.kind == "f":
            check_no_nan(flat)
        return flat

    def per_query_metrics(self, scores: npt.ArrayLike, at_k: int = 10) -> dict[str, np.ndarray]:
        """Per-sample AP, reciprocal rank@k and NDCG@k of the reranked candidates.

        Args:
            scores: One score per pair of :attr:`pairs` (a flat array, as ``model.predict(pairs)`` returns), or
                one array per sample aligned with :attr:`candidates` (rows of unscored samples are ignored).
            at_k: Cut-off of MRR and NDCG.
        """
        at_k = check_at_k(at_k)
        flat = self._flat_scores(scores)
        return ranking_metric_arrays(
            _padded(flat, self._lengths), self._labels, self._lengths, at_k, self._total_relevant
        )

    def base_metrics(self, at_k: int = 10) -> dict[str, float]:
        """Mean ``base_map``, ``base_mrr@k``, ``base_ndcg@k`` of the ``documents`` samples in their given order."""
        at_k = check_at_k(at_k)
        if not self.has_base:
            return {}
        if at_k not in self._base_cache:
            # The given order as scores: len(row), ..., 2, 1 (no ties).
            width = self._base_labels.shape[1]
            order_scores = (self._base_lengths[:, None] - np.arange(width)).astype(np.int64)
            per_query = ranking_metric_arrays(
                order_scores, self._base_labels, self._base_lengths, at_k, self._base_total_relevant
            )
            self._base_cache[at_k] = {f"base_{key}": float(np.mean(values)) for key, values in per_query.items()}
        return dict(self._base_cache[at_k])

    def compute_metrics(self, scores: npt.ArrayLike, at_k: int = 10) -> dict[str, float]:
        """Mean ``map``, ``mrr@k``, ``ndcg@k`` over all samples, then the base metrics when there are any.

        Args:
            scores: As in :meth:`per_query_metrics`.
            at_k: Cut-off of MRR and NDCG.
        """
        per_query = self.per_query_metrics(scores, at_k)
        metrics = {key: float(np.mean(values)) for key, values in per_query.items()}
        metrics.update(self.base_metrics(at_k))
        return metrics

    def statistics_line(self) -> str:
        """The ``Queries: ... Positives: ... Negatives: ...`` line that sentence-transformers logs."""
        positives = np.asarray(self.num_positives)
        negatives = np.asarray(self.num_negatives)
        return (
            f"Queries: {len(self.samples)}\t"
            f"Positives: Min {np.min(positives):.1f}, Mean {np.mean(positives):.1f}, Max {np.max(positives):.1f}\t"
            f"Negatives: Min {np.min(negatives):.1f}, Mean {np.mean(negatives):.1f}, Max {np.max(negatives):.1f}"
        )
