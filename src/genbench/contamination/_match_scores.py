"""Scores from window matches, vectorised: the rules of :mod:`~genbench.contamination._analysis`, fast.

A backend hands its matches here as three aligned arrays (query field, unit, window start), and these functions
score every (instance, unit) pair with a match; every backend uses them, so every backend scores alike. Query fields
are numbered ``instance * n_fields + field`` within a block of instances.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass
class PairScores:
    """Scores of the (instance, unit) pairs of a block of instances that have any match.

    Attributes:
        instance: Instance number in the block, one per pair.
        unit: Training unit id.
        score: The pair's score (mean over fields of matched tokens / field tokens; 1.0 for an exact match).
        matched: ``(pairs, n_fields)`` matched tokens per field.
        span_start: ``(pairs, n_fields)`` start of the field's longest matched span (token position).
        span_end: ``(pairs, n_fields)`` end (exclusive) of that span; equal to the start when nothing matched.
    """

    instance: np.ndarray
    unit: np.ndarray
    score: np.ndarray
    matched: np.ndarray
    span_start: np.ndarray
    span_end: np.ndarray

    @classmethod
    def empty(cls, n_fields: int) -> PairScores:
        ints = np.zeros(0, dtype=np.int64)
        grid = np.zeros((0, n_fields), dtype=np.int64)
        return cls(ints, ints.copy(), np.zeros(0), grid, grid.copy(), grid.copy())

    def __len__(self) -> int:
        return len(self.unit)

    def take(self, rows: np.ndarray) -> PairScores:
        """The pairs at ``rows`` (indices or a boolean mask)."""
        return PairScores(
            self.instance[rows],
            self.unit[rows],
            self.score[rows],
            self.matched[rows],
            self.span_start[rows],
            self.span_end[rows],
        )

    @classmethod
    def concat(cls, parts: list[PairScores], n_fields: int) -> PairScores:
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty(n_fields)
        if len(parts) == 1:
            return parts[0]
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in _FIELDS))


_FIELDS = ("instance", "unit", "score", "matched", "span_start", "span_end")


def _sort_pairs(qf: np.ndarray, unit: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The matches sorted by (query field, unit, start), duplicates removed."""
    qf, unit, start = (np.asarray(a, dtype=np.int64) for a in (qf, unit, start))
    bits_unit = max(int(unit.max()).bit_length(), 1)
    bits_start = max(int(start.max()).bit_length(), 1)
    bits_qf = max(int(qf.max()).bit_length(), 1)
    if bits_qf + bits_unit + bits_start <= 63:
        # One packed int64 key sorts several times faster than a three-key lexsort.
        key = (qf << (bits_unit + bits_start)) | (unit << bits_start) | start
        key.sort()
        keep = np.ones(len(key), dtype=bool)
        keep[1:] = key[1:] != key[:-1]
        key = key[keep]
        mask_start = (1 << bits_start) - 1
        mask_unit = (1 << bits_unit) - 1
        return key >> (bits_unit + bits_start), (key >> bits_start) & mask_unit, key & mask_start
    order = np.lexsort((start, unit, qf))
    qf, unit, start = qf[order], unit[order], start[order]
    keep = np.ones(len(qf), dtype=bool)
    keep[1:] = (qf[1:] != qf[:-1]) | (unit[1:] != unit[:-1]) | (start[1:] != start[:-1])
    return qf[keep], unit[keep], start[keep]


def _group_starts(qf: np.ndarray, unit: np.ndarray) -> np.ndarray:
    new_group = np.ones(len(qf), dtype=bool)
    new_group[1:] = (qf[1:] != qf[:-1]) | (unit[1:] != unit[:-1])
    return new_group


def _combine_fields(
    qf: np.ndarray,
    unit: np.ndarray,
    field_value: np.ndarray,
    matched: np.ndarray,
    span_start: np.ndarray,
    span_end: np.ndarray,
    n_fields: int,
) -> tuple[PairScores, np.ndarray]:
    """Per (instance, unit): field values laid out by field, and the number of fields with a match."""
    instance = qf // n_fields
    field = qf % n_fields
    bits_unit = max(int(unit.max()).bit_length(), 1) if len(unit) else 1
    if max(int(instance.max()).bit_length(), 1) + bits_unit <= 63:
        pair_key = (instance << bits_unit) | unit
        keys, inverse = np.unique(pair_key, return_inverse=True)
        pair_instance, pair_unit = keys >> bits_unit, keys & ((1 << bits_unit) - 1)
    else:
        both = np.stack([instance, unit], axis=1)
        keys, inverse = np.unique(both, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        pair_instance, pair_unit = keys[:, 0], keys[:, 1]
    count = len(pair_unit)
    values = np.zeros((count, n_fields))
    grids = [np.zeros((count, n_fields), dtype=np.int64) for _ in range(3)]
    values[inverse, field] = field_value
    grids[0][inverse, field] = matched
    grids[1][inverse, field] = span_start
    grids[2][inverse, field] = span_end
    # Summed field by field, in order, then divided: the same float operations as the definition's sum()/len().
    score = values[:, 0].copy()
    for column in range(1, n_fields):
        score += values[:, column]
    score /= n_fields
    fields_matched = np.bincount(inverse, minlength=count)
    return PairScores(pair_instance, pair_unit, score, *grids), fields_matched


def ngram_pair_scores(
    qf: np.ndarray,
    unit: np.ndarray,
    start: np.ndarray,
    *,
    n: int,
    field_lengths: np.ndarray,
    n_fields: int,
) -> PairScores:
    """N-gram scores of every (instance, unit) pair with a matched window.

    Args:
        qf: Query field of each match (``instance * n_fields + field``).
        unit: Unit containing the window.
        start: Token position where the window starts in its field.
        n: The n-gram size.
        field_lengths: Tokens of each query field, indexed by ``qf``.
        n_fields: Fields per instance.

    Returns:
        One row per (instance, unit) pair, in (instance, unit) order. Duplicate matches are harmless.

    >>> import numpy as np
    >>> # "a b c d" (one field) against unit 7: the 2-grams starting at 0 and 2 occur in it.
    >>> pairs = ngram_pair_scores(np.array([0, 0]), np.array([7, 7]), np.array([0, 2]), n=2,
    ...                           field_lengths=np.array([4]), n_fields=1)
    >>> pairs.unit.tolist(), pairs.score.tolist(), pairs.matched.tolist()
    ([7], [1.0], [[4]])
    """
    if not len(qf):
        return PairScores.empty(n_fields)
    qf, unit, start = _sort_pairs(qf, unit, start)
    size = len(qf)
    new_group = _group_starts(qf, unit)
    group_index = np.flatnonzero(new_group)
    last_in_group = np.ones(size, dtype=bool)
    last_in_group[:-1] = new_group[1:]
    # Tokens covered: each window adds the tokens before the next window of its group, at most n.
    gap = np.full(size, n, dtype=np.int64)
    gap[:-1] = start[1:] - start[:-1]
    gap[last_in_group] = n
    covered = np.add.reduceat(np.minimum(gap, n), group_index)
    # Matched spans: a window starting after the previous window's end (a gap) opens a new span.
    new_span = new_group.copy()
    new_span[1:] |= start[1:] > start[:-1] + n
    span_index = np.flatnonzero(new_span)
    span_last = np.empty(len(span_index), dtype=np.int64)
    span_last[:-1] = span_index[1:] - 1
    span_last[-1] = size - 1
    span_begin = start[span_index]
    span_length = start[span_last] + n - span_begin
    span_group = np.cumsum(new_group)[span_index] - 1
    first_span_of_group = np.flatnonzero(new_group[span_index])
    longest = np.maximum.reduceat(span_length, first_span_of_group)
    # The first of the longest spans, as analysis.longest_run picks it.
    is_longest = np.flatnonzero(span_length == longest[span_group])
    first = np.ones(len(is_longest), dtype=bool)
    first[1:] = span_group[is_longest[1:]] != span_group[is_longest[:-1]]
    longest_begin = span_begin[is_longest[first]]

    group_qf, group_unit = qf[group_index], unit[group_index]
    field_value = covered / field_lengths[group_qf]
    pairs, _ = _combine_fields(
        group_qf, group_unit, field_value, covered, longest_begin, longest_begin + longest, n_fields
    )
    return pairs


def exact_pair_scores(
    qf: np.ndarray,
    unit: np.ndarray,
    start: np.ndarray,
    *,
    window_counts: np.ndarray,
    field_lengths: np.ndarray,
    n_fields: int,
    verify: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> PairScores:
    """Exact-match pairs: the (instance, unit) pairs where the unit contains every field of the instance.

    The backend matches windows of ``min(field tokens, w)`` tokens. A unit can contain a field only if it contains
    all of the field's windows; where one window is the whole field that is also enough, otherwise ``verify``
    checks the candidates.

    Args:
        qf: Query field of each window match.
        unit: Unit containing the window.
        start: Window start in its field.
        window_counts: Windows of each query field (0 for an empty field).
        field_lengths: Tokens of each query field.
        n_fields: Fields per instance.
        verify: Called with (query fields, units) of candidates whose field is longer than one window; returns
            whether each unit really contains the field.

    Returns:
        The matching pairs, score 1.0, each field matched over its whole length.
    """
    if not len(qf):
        return PairScores.empty(n_fields)
    qf, unit, start = _sort_pairs(qf, unit, start)
    group_index = np.flatnonzero(_group_starts(qf, unit))
    windows_found = np.diff(np.append(group_index, len(qf)))
    group_qf, group_unit = qf[group_index], unit[group_index]
    complete = windows_found == window_counts[group_qf]
    group_qf, group_unit = group_qf[complete], group_unit[complete]
    needs_check = window_counts[group_qf] > 1
    if needs_check.any():
        if verify is None:
            raise ValueError("exact_pair_scores needs `verify` for fields longer than one window.")
        ok = np.ones(len(group_qf), dtype=bool)
        ok[needs_check] = verify(group_qf[needs_check], group_unit[needs_check])
        group_qf, group_unit = group_qf[ok], group_unit[ok]
    if not len(group_qf):
        return PairScores.empty(n_fields)
    lengths = field_lengths[group_qf]
    pairs, fields_matched = _combine_fields(
        group_qf, group_unit, np.ones(len(group_qf)), lengths, np.zeros_like(lengths), lengths, n_fields
    )
    return pairs.take(fields_matched == n_fields)


def top_per_instance(pairs: PairScores, k: int) -> PairScores:
    """At most ``k`` pairs per instance: highest score first, then lowest unit id (the definition's tie-break)."""
    if not len(pairs):
        return pairs
    return pairs.take(top_per_instance_rows(pairs, k))


def top_per_instance_rows(pairs: PairScores, k: int) -> np.ndarray:
    """The rows :func:`top_per_instance` keeps, in its order (by instance, best first)."""
    order = np.lexsort((pairs.unit, -pairs.score, pairs.instance))
    instance = pairs.instance[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = instance[1:] != instance[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
    rank = np.arange(len(order)) - group_start
    return order[rank < k]
