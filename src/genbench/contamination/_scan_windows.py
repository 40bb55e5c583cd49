"""The test side of the one-shot scan: the windows of a test set, looked up in blocks of training tokens.

:class:`WindowLookup` keeps a test set's distinct windows as rows of token keys sorted by hash, behind a filter
(:data:`FILTER_BITS`); a block's windows pass the filter, are found by binary search and compared key by key, so a
match is exact whatever the hash does. See docs/contamination.md#one-shot-scan-no-index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from genbench.contamination._hashing import MIX1, MULTIPLIER, SEED, SHIFT
from genbench.contamination._token_keys import PACKED_BYTES, TokenKeys, keys_of_tokens

_SEED = np.uint64(SEED)
FILTER_BITS = 21
"""The filter has ``2**FILTER_BITS`` buckets (2 MiB of booleans): a block window passes it only when a test window
shares its hash's top bits, so few windows reach the binary search."""


def window_hashes(keys: np.ndarray, size: int, hash_bits: int = 64) -> np.ndarray:
    """The hash of every window of ``size`` consecutive keys (``len(keys) - size + 1`` of them).

    The hash is ``seed * M**size + sum(key[o] * M**(size - 1 - o))`` (mod 2**64), finalised. It is computed by
    doubling (windows of 1, 2, 4, ... keys combined), about ``log2(size)`` passes over the block instead of
    ``size``; :func:`row_hashes` computes the same value row by row.

    Args:
        keys: Token keys (``uint64``).
        size: Window size.
        hash_bits: Keep only this many high bits (a test hook that forces collisions).
    """
    count = len(keys) - size + 1
    if count <= 0:
        return np.zeros(0, dtype=np.uint64)
    result: np.ndarray | None = None
    covered = 0  # keys in `result`'s windows
    power, span = keys, 1  # windows of `span` keys
    remaining = size
    while True:
        if remaining & 1:
            if result is None:
                result = power[: len(keys) - size + 1 + (size - covered - span)].copy()
            else:
                length = len(keys) - size + 1 + (size - covered - span)
                result = result[:length] * _power(span) + power[covered : covered + length]
            covered += span
        remaining >>= 1
        if not remaining:
            break
        power = power[:-span] * _power(span) + power[span:]
        span *= 2
    assert result is not None and covered == size
    result = result[:count] + np.uint64(int(_SEED) * int(_power(size)) % (1 << 64))
    return _finish(result, hash_bits)


def _power(exponent: int) -> np.uint64:
    """``M ** exponent`` modulo 2**64."""
    return np.uint64(pow(int(MULTIPLIER), exponent, 1 << 64))


def row_hashes(rows: np.ndarray, hash_bits: int = 64) -> np.ndarray:
    """The hash of each row of a ``(windows, size)`` key matrix: the same as :func:`window_hashes` of the row."""
    hashes = np.full(len(rows), _SEED, dtype=np.uint64)
    for offset in range(rows.shape[1] if len(rows) else 0):  # no rows, no passes (the size may be huge)
        hashes *= MULTIPLIER
        hashes += rows[:, offset]
    return _finish(hashes, hash_bits)


def _finish(hashes: np.ndarray, hash_bits: int) -> np.ndarray:
    """Spread the bits (one multiply and a shift: enough for the filter and the search, which never trust it)."""
    hashes *= MIX1
    hashes ^= hashes >> SHIFT
    if hash_bits < 64:
        hashes &= np.uint64(((1 << hash_bits) - 1) << (64 - hash_bits))
    return hashes


@dataclass
class QueryTokens:
    """The tokens of every query field of a test set (query field ``q`` = instance ``q // n_fields``).

    Attributes:
        tokens: Each query field's tokens (strings).
        keys: Their keys, concatenated.
        lengths: Bytes of each token.
        starts: Where each query field starts in ``keys``.
        counts: Tokens of each query field.
    """

    tokens: list[list[str]]
    keys: np.ndarray
    lengths: np.ndarray
    starts: np.ndarray
    counts: np.ndarray

    @classmethod
    def from_fields(cls, tokens: list[list[str]]) -> QueryTokens:
        counts = np.array([len(field) for field in tokens], dtype=np.int64)
        keys, lengths = keys_of_tokens([token for field in tokens for token in field])
        return cls(tokens, keys, lengths, np.cumsum(counts) - counts, counts)


@dataclass
class WindowMatches:
    """Matches of test windows in a block: query field, block position of the window, and its start in the field."""

    query_field: np.ndarray
    position: np.ndarray
    start: np.ndarray


def _distinct_rows(matrix: np.ndarray, hash_bits: int) -> tuple[np.ndarray, np.ndarray]:
    """For each row its distinct row's number, and one row index per distinct row.

    Rows are grouped by hash, then checked to be equal within each group; only when different rows share a hash
    (a collision: in practice only with ``hash_bits`` forced low) does it fall back to ``np.unique(axis=0)``, which
    is several times slower.
    """
    if len(matrix) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    hashes = row_hashes(matrix, hash_bits)
    order = np.argsort(hashes, kind="stable")
    sorted_hashes, sorted_rows = hashes[order], matrix[order]
    same_hash = sorted_hashes[1:] == sorted_hashes[:-1]
    same_row = (sorted_rows[1:] == sorted_rows[:-1]).all(axis=1)
    if (same_hash & ~same_row).any():
        _, first, inverse = np.unique(matrix, axis=0, return_index=True, return_inverse=True)
        return inverse.reshape(-1), first
    new = np.ones(len(order), dtype=bool)
    new[1:] = ~same_hash
    number = np.empty(len(order), dtype=np.int64)
    number[order] = np.cumsum(new) - 1
    return number, order[new]


class WindowLookup:
    """The distinct windows of ``size`` tokens of some query fields, ready to be looked up.

    Args:
        query: The test set's query fields.
        fields: The query fields whose windows to take (those shorter than ``size`` have none).
        size: The window size.
        hash_bits: Test hook: keep only this many bits of each hash (forces collisions).
    """

    def __init__(self, query: QueryTokens, fields: np.ndarray, size: int, *, hash_bits: int = 64):
        self.size = size
        self.hash_bits = hash_bits
        counts = np.maximum(query.counts[fields] - size + 1, 0)
        total = int(counts.sum())
        window_field = np.repeat(fields, counts)
        window_start = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
        first_token = query.starts[window_field] + window_start
        matrix = query.keys[first_token[:, None] + np.arange(size)] if total else np.zeros((0, size), np.uint64)
        window_gram, gram_rows = _distinct_rows(matrix, hash_bits)
        hashes = row_hashes(matrix[gram_rows], hash_bits)
        order = np.argsort(hashes, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        self.hashes = hashes[order]
        self.grams = matrix[gram_rows[order]]
        grams = self.grams
        long_token = query.lengths > PACKED_BYTES
        self.long = np.zeros(len(grams), dtype=bool)
        if total and long_token.any():
            has_long = np.zeros(total, dtype=bool)
            for offset in range(size):
                has_long |= long_token[first_token + offset]
            self.long[rank[window_gram[has_long]]] = True
        # The windows of each distinct gram (grouped, CSR): the query fields and starts a match stands for.
        by_gram = np.argsort(rank[window_gram], kind="stable")
        self.window_field = window_field[by_gram]
        self.window_start = window_start[by_gram]
        self.gram_first = np.searchsorted(rank[window_gram][by_gram], np.arange(len(grams) + 1))
        self.filter = np.zeros(1 << FILTER_BITS, dtype=bool)
        self.filter[self.hashes >> np.uint64(64 - FILTER_BITS)] = True

    def __len__(self) -> int:
        return len(self.hashes)

    def representative(self, gram: int) -> tuple[int, int]:
        """(query field, start) of one window of a distinct gram."""
        row = int(self.gram_first[gram])
        return int(self.window_field[row]), int(self.window_start[row])

    def match(
        self, block: TokenKeys, verify_long: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    ) -> WindowMatches:
        """The test windows occurring in the block's units (no window crosses a unit's end).

        Args:
            block: Token keys of a block of training units.
            verify_long: Called with (block positions, grams) of matches involving a token longer than 8 bytes;
                returns which really match (their keys are hashes). Without it such matches are kept.
        """
        size = self.size
        empty = np.zeros(0, dtype=np.int64)
        if len(self.hashes) == 0 or len(block.keys) < size:
            return WindowMatches(empty, empty, empty)
        hashes = window_hashes(block.keys, size, self.hash_bits)
        passes = self.filter[hashes >> np.uint64(64 - FILTER_BITS)]
        # No window may run past its unit's end: the last size-1 starts of each unit start none.
        first = block.first
        for back in range(1, size):
            ends = first[1:] - back
            ends = ends[(ends >= first[:-1]) & (ends < len(passes))]
            passes[ends] = False
        candidates = np.flatnonzero(passes)
        return self.match_at(block, candidates, hashes[candidates], verify_long)

    def match_at(
        self,
        block: TokenKeys,
        candidates: np.ndarray,
        found: np.ndarray,
        verify_long: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    ) -> WindowMatches:
        """The test windows occurring at the block positions ``candidates`` (windows inside their units), whose
        hashes are ``found``: as :meth:`match`, for a caller that ruled the other positions out itself."""
        size = self.size
        lo = np.searchsorted(self.hashes, found, side="left")
        hi = np.searchsorted(self.hashes, found, side="right")
        hit = hi > lo
        candidates, lo, hi = candidates[hit], lo[hit], hi[hit]
        # Expand each candidate to the grams of its hash (one, unless hashes collide), then compare the keys.
        counts = hi - lo
        position = np.repeat(candidates, counts)
        gram = np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(lo - (np.cumsum(counts) - counts), counts)
        equal = np.ones(len(position), dtype=bool)
        for offset in range(size if len(position) else 0):
            equal &= block.keys[position + offset].astype(np.uint64, copy=False) == self.grams[gram, offset]
        position, gram = position[equal], gram[equal]
        if verify_long is not None and len(position):
            long = self.long[gram].copy()
            for offset in range(size):
                long |= block.lengths[position + offset] > PACKED_BYTES
            if long.any():
                keep = np.ones(len(position), dtype=bool)
                keep[long] = verify_long(position[long], gram[long])
                position, gram = position[keep], gram[keep]
        # Each distinct gram stands for the query windows that have it.
        windows = self.gram_first[gram + 1] - self.gram_first[gram]
        row = np.arange(int(windows.sum()), dtype=np.int64) + np.repeat(
            self.gram_first[gram] - (np.cumsum(windows) - windows), windows
        )
        return WindowMatches(self.window_field[row], np.repeat(position, windows), self.window_start[row])
