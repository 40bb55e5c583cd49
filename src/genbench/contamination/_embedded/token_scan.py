"""The first search of an n-gram size: the index's token file read once past the test windows, no table built.

Blocks of token ids are sifted by a 32-bit hash, then looked up exactly; ``tokens.npy`` and ``offsets.npy`` are
checked against their recorded checksums as they are read. See docs/contamination.md, "The first search of a size
reads the tokens".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from genbench.contamination._checksums import new_digest
from genbench.contamination._embedded.integrity import recorded_digest
from genbench.contamination._embedded.npy_file import npy_header
from genbench.contamination._errors import DamagedIndexError
from genbench.contamination._scan_windows import QueryTokens, WindowLookup, WindowMatches, row_hashes
from genbench.contamination._token_keys import TokenKeys

BLOCK_TOKENS = 1 << 20
"""Tokens read and matched at a time (a unit longer than this is a block of its own)."""
OFFSET_CHUNK = 1 << 16
"""Unit offsets read at a time."""
SIFT_BITS = 22
"""The sieve has ``2**SIFT_BITS`` buckets (4 MiB of booleans)."""
_P32 = 0x9E3779B1
_MIX32 = 0x85EBCA6B
_MASK32 = (1 << 32) - 1


def id_query(ids: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> QueryTokens:
    """Query fields given as token ids (:data:`~.tokens.UNKNOWN` for a token the index lacks: it matches nothing),
    as the window lookup takes them: the ids are the keys, and no key stands for a longer token."""
    return QueryTokens([], ids.astype(np.uint64), np.zeros(len(ids), dtype=np.int64), starts, lengths)


def _sums32(ids: np.ndarray, size: int) -> np.ndarray:
    """``sum(ids[i + o] * P**(size - 1 - o)) mod 2**32`` for every window start ``i``, by doubling (windows of 1, 2,
    4, ... ids combined: about ``log2(size)`` passes over the block)."""
    count = len(ids) - size + 1
    result: np.ndarray | None = None
    covered, power, span, remaining = 0, ids, 1, size
    while True:
        if remaining & 1:
            length = count + (size - covered - span)
            if result is None:
                result = power[:length].copy()
            else:
                result = result[:length] * np.uint32(pow(_P32, span, 1 << 32)) + power[covered : covered + length]
            covered += span
        remaining >>= 1
        if not remaining:
            break
        power = power[:-span] * np.uint32(pow(_P32, span, 1 << 32)) + power[span:]
        span *= 2
    assert result is not None
    return result[:count]


def _buckets(sums: np.ndarray) -> np.ndarray:
    sums *= np.uint32(_MIX32)
    sums ^= sums >> np.uint32(15)
    return sums >> np.uint32(32 - SIFT_BITS)


class IdWindows:
    """A window lookup for blocks whose keys are token ids (``uint32``-sized), with a 32-bit sieve in front.

    Args:
        lookup: The test windows (their keys are token ids).
    """

    def __init__(self, lookup: WindowLookup):
        self.lookup = lookup
        grams = lookup.grams
        matchable = grams <= np.uint64(np.iinfo(np.int32).max)  # an unknown token matches nothing
        rows = grams[matchable.all(axis=1)].astype(np.uint32)
        sums = np.zeros(len(rows), dtype=np.uint32)
        for offset in range(lookup.size if len(rows) else 0):  # no windows, no passes (the size may be huge)
            sums = sums * np.uint32(_P32) + rows[:, offset]
        self.sieve = np.zeros(1 << SIFT_BITS, dtype=bool)
        self.sieve[_buckets(sums)] = True

    def match(self, block: TokenKeys) -> WindowMatches:
        """The test windows occurring in the block (keys: the token ids, ``uint32``)."""
        size = self.lookup.size
        if len(self.lookup) == 0 or len(block.keys) < size:
            empty = np.zeros(0, dtype=np.int64)
            return WindowMatches(empty, empty, empty)
        candidates = np.flatnonzero(self.sieve[_buckets(_sums32(block.keys, size))])
        # A window must end inside its unit.
        unit_end = block.first[np.searchsorted(block.first, candidates, side="right")]
        candidates = candidates[candidates + size <= unit_end]
        rows = block.keys[candidates[:, None] + np.arange(size)].astype(np.uint64)
        return self.lookup.match_at(block, candidates, row_hashes(rows, self.lookup.hash_bits))


class _CheckedReader:
    """A ``.npy`` file read front to back, checksummed on the way."""

    def __init__(self, path: Path, rebuild_hint: str):
        self.path = path
        self.rebuild_hint = rebuild_hint
        try:
            self.dtype, (self.length,), offset = npy_header(path)
        except (DamagedIndexError, ValueError) as exc:
            raise DamagedIndexError(f"{exc} {rebuild_hint}") from None
        self._handle: BinaryIO = open(path, "rb")  # noqa: SIM115 (closed by close())
        self._digest = new_digest()
        self._digest.update(self._handle.read(offset))
        self.position = 0

    def read(self, count: int) -> np.ndarray:
        data = self._handle.read(count * self.dtype.itemsize)
        if len(data) != count * self.dtype.itemsize:
            self.damaged("it ends before the values its companion files point to")
        self._digest.update(data)
        self.position += count
        return np.frombuffer(data, dtype=self.dtype)

    def finish(self, files: Any) -> None:
        """Read what is left and compare the checksum with the manifest's record (``files``)."""
        while data := self._handle.read(1 << 22):
            self._digest.update(data)
        if self._digest.hexdigest() != recorded_digest(files, self.path.name):
            self.damaged("it does not have the checksum the index was built with")

    def damaged(self, why: str) -> None:
        self.close()
        raise DamagedIndexError(f"{self.path} is damaged: {why}. {self.rebuild_hint}")

    def close(self) -> None:
        self._handle.close()


def token_blocks(index_path: Path, files: Any, rebuild_hint: str) -> Iterator[tuple[int, TokenKeys]]:
    """``(first unit, block)`` for consecutive blocks of whole units of the index, in order; the block's keys are the
    token ids. After the last block, ``tokens.npy`` and ``offsets.npy`` have been checked against ``files``.

    Raises:
        DamagedIndexError: a file is cut short, its offsets are out of order, or its checksum differs.
    """
    offsets = _CheckedReader(index_path / "offsets.npy", rebuild_hint)
    tokens = _CheckedReader(index_path / "tokens.npy", rebuild_hint)
    try:
        pending = offsets.read(min(OFFSET_CHUNK, offsets.length)).astype(np.int64)
        if not len(pending) or pending[0] != 0:
            offsets.damaged("its first offset is not 0")
        first_unit = 0
        while len(pending) > 1 or offsets.position < offsets.length:
            while offsets.position < offsets.length and pending[-1] - pending[0] < BLOCK_TOKENS:
                more = offsets.read(min(OFFSET_CHUNK, offsets.length - offsets.position))
                pending = np.concatenate([pending, more.astype(np.int64)])
            cut = int(np.searchsorted(pending, pending[0] + BLOCK_TOKENS, side="right")) - 1
            cut = min(max(cut, 1), len(pending) - 1)
            first = pending[: cut + 1] - pending[0]
            if (np.diff(first) < 0).any() or pending[cut] > tokens.length:
                offsets.damaged("its offsets are out of order or past the end of tokens.npy")
            ids = tokens.read(int(first[-1]))
            yield first_unit, TokenKeys(ids.astype(np.uint32), np.zeros(0, dtype=np.int64), first)
            pending = pending[cut:]
            first_unit += cut
        if tokens.position != tokens.length:
            tokens.damaged("the offsets do not cover all of its tokens")
        offsets.finish(files)
        tokens.finish(files)
    finally:
        offsets.close()
        tokens.close()
