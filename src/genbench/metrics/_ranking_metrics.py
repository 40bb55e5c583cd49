"""Ranking metrics from scores alone: MAP, MRR@k and NDCG@k, vectorised over queries.

The one ranking-metric definition every genbench evaluator uses, with the values (ties included) of
sentence-transformers' ``CrossEncoderRerankingEvaluator``. See docs/reranking.md#metric-core-scores-produced-elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from genbench._core.errors import MetricError

__all__ = ["pad_ragged", "ranking_metrics", "ranking_metrics_per_query"]


def pad_ragged(
    rows: Iterable[npt.ArrayLike], fill: object = 0, dtype: npt.DTypeLike | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Stack rows of different lengths into a right-padded 2-D array and a mask of the real entries.

    Args:
        rows: One 1-D array-like per query.
        fill: Value of the padding entries.
        dtype: dtype of the result; by default the common dtype of the rows (so ``float32`` rows stay ``float32``).

    Returns:
        ``(padded, mask)``: arrays of shape ``(len(rows), longest row)``; ``mask`` is True on real entries.

    >>> padded, mask = pad_ragged([[0.5, 0.1], [0.9]])
    >>> padded.tolist(), mask.tolist()
    ([[0.5, 0.1], [0.9, 0.0]], [[True, True], [True, False]])
    """
    arrays = [np.asarray(row) for row in rows]
    for index, array in enumerate(arrays):
        if array.ndim != 1:
            raise ValueError(f"row {index} must be one-dimensional, got shape {array.shape}")
    if dtype is None:
        dtype = np.result_type(*[a.dtype for a in arrays]) if arrays else np.float64
    lengths = np.array([a.shape[0] for a in arrays], dtype=np.intp)
    width = int(lengths.max()) if len(arrays) else 0
    padded = np.full((len(arrays), width), fill, dtype=dtype)
    mask = np.arange(width) < lengths[:, None]
    if len(arrays) and width:
        padded[mask] = np.concatenate(arrays).astype(dtype, copy=False)
    return padded, mask


def ranking_metrics(
    scores: np.ndarray | Sequence[npt.ArrayLike],
    labels: np.ndarray | Sequence[npt.ArrayLike],
    *,
    at_k: int = 10,
    mask: npt.ArrayLike | None = None,
    num_relevant: npt.ArrayLike | None = None,
) -> dict[str, float]:
    """Mean MAP, MRR@k and NDCG@k over queries, as sentence-transformers' reranking evaluator reports them.

    Args:
        scores: Candidate scores per query (higher ranks first): a 2-D array, or one 1-D array-like per query.
        labels: Relevance of each candidate, in the same shape: 1/True relevant, 0/False not.
        at_k: Cut-off of MRR and NDCG.
        mask: With 2-D ``scores``, True where a candidate exists (padding is False).
        num_relevant: Number of relevant documents per query when some were never retrieved (they then count
            in the denominators of AP and of the ideal DCG, but at no rank). Default: the relevant candidates.

    Returns:
        ``{"map": ..., "mrr@{at_k}": ..., "ndcg@{at_k}": ...}``.

    >>> metrics = ranking_metrics([[0.9, 0.8, 0.1], [0.2, 0.7]], [[0, 1, 0], [1, 0]], at_k=10)
    >>> {key: round(value, 4) for key, value in metrics.items()}
    {'map': 0.5, 'mrr@10': 0.5, 'ndcg@10': 0.6309}
    >>> from genbench.reranking import ranking_metrics as from_package
    >>> from_package([[0.1, 0.7, 0.3]], [[0, 1, 0]], at_k=5)
    {'map': 1.0, 'mrr@5': 1.0, 'ndcg@5': 1.0}
    """
    per_query = ranking_metrics_per_query(scores, labels, at_k=at_k, mask=mask, num_relevant=num_relevant)
    return {key: float(np.mean(values)) if values.size else 0.0 for key, values in per_query.items()}


def ranking_metrics_per_query(
    scores: np.ndarray | Sequence[npt.ArrayLike],
    labels: np.ndarray | Sequence[npt.ArrayLike],
    *,
    at_k: int = 10,
    mask: npt.ArrayLike | None = None,
    num_relevant: npt.ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """Average precision, reciprocal rank@k and NDCG@k of every query.

    Arguments as in :func:`ranking_metrics`.

    Returns:
        ``{"map": ap, "mrr@{at_k}": rr, "ndcg@{at_k}": ndcg}``, each a float64 array with one value per query.

    Raises:
        ValueError: mismatched shapes, labels other than 0/1, NaN scores, ``at_k < 1``, or ``num_relevant``
            below the number of relevant candidates.

    Ties are averaged by NDCG and AP; for MRR the first relevant document in ``np.argsort`` order wins:

    >>> out = ranking_metrics_per_query([[0.5, 0.5, 0.1]], [[0, 1, 0]], at_k=1)
    >>> out["map"].tolist(), out["ndcg@1"].tolist()
    ([0.5], [0.5])
    """
    scores2d, labels2d, lengths = _to_padded(scores, labels, mask)
    relevant_count = labels2d.sum(axis=1)
    if num_relevant is None:
        total_relevant = relevant_count.astype(np.float64)
    else:
        total_relevant = np.asarray(num_relevant, dtype=np.float64).reshape(-1)
        if total_relevant.shape != (scores2d.shape[0],):
            raise ValueError(
                f"num_relevant needs one value per query ({scores2d.shape[0]}), got {total_relevant.shape}"
            )
        if np.any(total_relevant < relevant_count):
            bad = int(np.flatnonzero(total_relevant < relevant_count)[0])
            raise ValueError(
                f"num_relevant[{bad}] = {total_relevant[bad]:g} is below the {int(relevant_count[bad])} relevant "
                "candidates of that query"
            )
    return ranking_metric_arrays(scores2d, labels2d, lengths, check_at_k(at_k), total_relevant)


def check_at_k(at_k: object) -> int:
    if isinstance(at_k, bool) or not isinstance(at_k, (int, np.integer)) or at_k < 1:
        raise ValueError(f"at_k must be a positive integer, got {at_k!r}")
    return int(at_k)


def _to_padded(
    scores: np.ndarray | Sequence[npt.ArrayLike],
    labels: np.ndarray | Sequence[npt.ArrayLike],
    mask: npt.ArrayLike | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Left-aligned padded scores (original dtype), boolean labels and row lengths."""
    if isinstance(scores, np.ndarray) and scores.ndim == 2:
        scores2d = scores
        labels2d = np.asarray(labels)
        if labels2d.shape != scores2d.shape:
            raise ValueError(f"labels must have the shape of scores {scores2d.shape}, got {labels2d.shape}")
        if mask is None:
            lengths = np.full(scores2d.shape[0], scores2d.shape[1], dtype=np.intp)
        else:
            mask2d = np.asarray(mask, dtype=bool)
            if mask2d.shape != scores2d.shape:
                raise ValueError(f"mask must have the shape of scores {scores2d.shape}, got {mask2d.shape}")
            lengths = mask2d.sum(axis=1).astype(np.intp)
            if not np.array_equal(mask2d, np.arange(scores2d.shape[1]) < lengths[:, None]):
                # Move the real entries to the front of each row, keeping their order.
                keep_order = np.argsort(~mask2d, axis=1, kind="stable")
                scores2d = np.take_along_axis(scores2d, keep_order, axis=1)
                labels2d = np.take_along_axis(labels2d, keep_order, axis=1)
    else:
        if mask is not None:
            raise ValueError("mask is only used with 2-D scores")
        if len(scores) != len(labels):
            raise ValueError(f"got scores for {len(scores)} queries but labels for {len(labels)}")
        scores2d, score_mask = pad_ragged(scores)
        labels2d, label_mask = pad_ragged(labels)
        if labels2d.shape != scores2d.shape or not np.array_equal(score_mask, label_mask):
            lengths_s, lengths_l = score_mask.sum(axis=1), label_mask.sum(axis=1)
            bad = int(np.flatnonzero(lengths_s != lengths_l)[0])
            raise ValueError(f"query {bad}: {lengths_s[bad]} scores but {lengths_l[bad]} labels")
        lengths = score_mask.sum(axis=1).astype(np.intp)
    if scores2d.dtype.kind not in "biuf":
        raise ValueError(f"scores must be numeric, got dtype {scores2d.dtype}")
    full = bool((lengths == scores2d.shape[1]).all())
    valid = None if full else np.arange(scores2d.shape[1]) < lengths[:, None]
    if scores2d.dtype.kind == "f":
        check_no_nan(scores2d if valid is None else scores2d[valid])
    label_values = labels2d if valid is None else labels2d[valid]
    if label_values.dtype.kind in "iu" and label_values.size:
        # min/max are two cheap passes; np.isin would sort.
        labels_ok = label_values.min() >= 0 and label_values.max() <= 1
    else:
        labels_ok = label_values.dtype == bool or bool(np.isin(label_values, (0, 1)).all())
    if not labels_ok:
        raise ValueError("labels must be 0/1 (or booleans)")
    relevant = labels2d.astype(bool)
    return scores2d, (relevant if valid is None else relevant & valid), lengths


def check_no_nan(scores: np.ndarray) -> None:
    """Raise a :class:`~genbench._core.errors.MetricError` (a ``ValueError``) when float ``scores`` contain NaN.

    NaN cannot be ranked (numpy sorts it last, sklearn refuses it), and a model that outputs it is broken.

    >>> check_no_nan(np.array([0.5, np.nan, np.nan]))
    Traceback (most recent call last):
    ...
    genbench._core.errors.MetricError: scores contain NaN (2 of 3 scores, the first at position 1): NaN cannot be \
ranked; a model that outputs NaN is broken (check its weights, dtype and inputs)
    """
    nan = np.isnan(scores)
    if nan.any():
        raise MetricError(
            f"scores contain NaN ({int(nan.sum())} of {nan.size} scores, the first at position "
            f"{int(np.flatnonzero(nan.ravel())[0])}): NaN cannot be ranked; a model that outputs NaN is broken "
            "(check its weights, dtype and inputs)"
        )


def _descending_order(scores2d: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Per row, the candidate indices by decreasing score as ``np.argsort(row)[::-1]`` gives them, then padding.

    Rows are sorted in groups of equal length so that every row is sorted exactly as a 1-D array of its own
    length and dtype would be: the default ``np.argsort`` is not stable, and its order among ties depends on the
    row it is given (padding would change it).
    """
    num_queries, width = scores2d.shape
    order = np.broadcast_to(np.arange(width, dtype=np.intp), (num_queries, width)).copy()
    uniform = bool((lengths == width).all())
    for length in np.unique(lengths):
        if length == 0:
            continue
        rows = slice(None) if uniform else np.flatnonzero(lengths == length)
        block = np.ascontiguousarray(scores2d[rows, :length])
        order[rows, :length] = np.argsort(block, axis=1)[:, ::-1]
    return order


def ranking_metric_arrays(
    scores2d: np.ndarray, labels2d: np.ndarray, lengths: np.ndarray, at_k: int, total_relevant: np.ndarray
) -> dict[str, np.ndarray]:
    num_queries, width = scores2d.shape
    metric_keys = ("map", f"mrr@{at_k}", f"ndcg@{at_k}")
    if num_queries == 0 or width == 0:
        return {key: np.zeros(num_queries) for key in metric_keys}

    order = _descending_order(scores2d, lengths)
    positions = np.arange(width)
    full = bool((lengths == width).all())
    valid = positions < lengths[:, None]
    ranked_scores = np.take_along_axis(scores2d, order, axis=1)
    ranked_relevant = np.take_along_axis(labels2d, order, axis=1)
    if not full:
        ranked_relevant &= valid

    # MRR@k: the first relevant document among the top k of the argsort order.
    top = ranked_relevant[:, :at_k]
    first = top.argmax(axis=1)
    reciprocal_rank = np.where(top.any(axis=1), 1.0 / (first + 1), 0.0)

    # Groups of tied scores: a position ends a group when the next one is padding or scores differently.
    next_differs = np.ones((num_queries, width), dtype=bool)
    np.not_equal(ranked_scores[:, :-1], ranked_scores[:, 1:], out=next_differs[:, :-1])
    if full:
        group_end = next_differs
    else:
        next_differs[:, :-1] |= ~valid[:, 1:]
        group_end = valid & next_differs
    # For each group end, the end of the group before it (-1 for the first group); looked up with a shift of one
    # in arrays that start with a zero column.
    end_positions = np.where(group_end, positions.astype(np.int32), np.int32(-1))
    previous_end = np.empty_like(end_positions)
    previous_end[:, 0] = -1
    previous_end[:, 1:] = np.maximum.accumulate(end_positions, axis=1)[:, :-1]

    # Integer counts (exact) on the full width; the float work below runs only on the few groups of ties that
    # hold a relevant document, the only ones whose AP and DCG terms are not zero.
    cumulative_relevant = np.zeros((num_queries, width + 1), dtype=np.int32)
    np.cumsum(ranked_relevant, axis=1, dtype=np.int32, out=cumulative_relevant[:, 1:])
    relevant_before_group = np.take_along_axis(cumulative_relevant, previous_end + 1, axis=1)
    group_relevant = cumulative_relevant[:, 1:] - relevant_before_group
    rows, ends = np.nonzero(group_end & (group_relevant > 0))
    starts = previous_end[rows, ends] + 1
    hits_in_group = group_relevant[rows, ends].astype(np.float64)
    relevant_to_end = cumulative_relevant[rows, ends + 1].astype(np.float64)

    has_relevant = total_relevant > 0
    denominator = np.where(has_relevant, total_relevant, 1.0)[rows]

    # AP as sklearn integrates the precision-recall step function: one term per threshold (group of ties).
    precision = relevant_to_end / (ends + 1)
    recall_step = relevant_to_end / denominator - (relevant_to_end - hits_in_group) / denominator
    average_precision = np.bincount(rows, weights=recall_step * precision, minlength=num_queries)
    average_precision = np.where(has_relevant, average_precision, 0.0)

    # NDCG@k with tie-averaged gains; the discount is sklearn's, 0 from rank k on.
    ideal_length = int(min(at_k, max(width, int(total_relevant.max()))))
    discount = 1 / (np.log(np.arange(max(width, ideal_length)) + 2) / np.log(2))
    discount[at_k:] = 0
    discount_cumsum = np.zeros(discount.shape[0] + 1)
    np.cumsum(discount, out=discount_cumsum[1:])
    group_gain = hits_in_group / (ends - starts + 1)
    group_discount = discount_cumsum[ends + 1] - discount_cumsum[starts]
    dcg = np.bincount(rows, weights=group_gain * group_discount, minlength=num_queries)
    ideal_hits = np.minimum(total_relevant, at_k).astype(np.intp)
    ideal_dcg = discount_cumsum[ideal_hits]
    ndcg = np.where(ideal_dcg > 0, dcg / np.where(ideal_dcg > 0, ideal_dcg, 1.0), 0.0)

    return dict(zip(metric_keys, (average_precision, reciprocal_rank, ndcg), strict=True))
