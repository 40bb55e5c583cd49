"""The n-gram table of a text index: every n-gram of every unit, hashed and sorted, exact on lookup.

For one n, each window (n consecutive tokens inside one unit) gets a 64-bit hash of its token ids. The table is one
sorted ``uint64`` array of keys, each the hash's high bits with the window's token position in the low bits, and an
aligned array of unit ids; a unit containing an n-gram several times keeps one entry. Looking a test n-gram up is a
binary search (``np.searchsorted``) for its hash prefix.

Exactness: hashes can collide, so no score rests on a hash alone. When the table is built, the windows sharing a
hash prefix are compared token by token: a prefix whose windows are all the same n-gram is *pure*, the others are
listed as impure. A test n-gram found under a pure prefix is compared with that n-gram's tokens once; under an
impure prefix every entry is compared. Scores are therefore exact whatever the hash does (the tests force
collisions with ``hash_bits``).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from genbench.contamination.analysis import ANALYZER_VERSION

HASH_VERSION = 1
_SEED = 0x2545F4914F6CDD1D
_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xFF51AFD7ED558CCD)
_MIX2 = np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT = np.uint64(33)
_CHUNK = 1 << 22


def _mix(values: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser, in place: spreads every input bit over the high bits used as prefix."""
    values ^= values >> _SHIFT
    values *= _MIX1
    values ^= values >> _SHIFT
    values *= _MIX2
    values ^= values >> _SHIFT
    return values


def hash_windows(tokens: np.ndarray, starts: np.ndarray, n: int, hash_bits: int = 64) -> np.ndarray:
    """Hashes of the windows ``tokens[s:s+n]`` for each ``s`` in ``starts`` (the caller keeps them in range).

    Args:
        tokens: Token ids.
        starts: Window starts.
        n: Window size.
        hash_bits: Keep only this many high bits (a test hook that forces collisions).
    """
    hashes = np.full(len(starts), _SEED, dtype=np.uint64)
    for offset in range(n):
        hashes *= _MULTIPLIER
        hashes += tokens[starts + offset].astype(np.uint64)
    _mix(hashes)
    if hash_bits < 64:
        hashes &= np.uint64(((1 << hash_bits) - 1) << (64 - hash_bits))
    return hashes


def _all_window_hashes(tokens: np.ndarray, n: int, hash_bits: int) -> np.ndarray:
    """Hashes of every window of a contiguous token array (sequential reads, no index arrays)."""
    count = len(tokens) - n + 1
    wide = tokens.astype(np.uint64)
    hashes = np.full(count, _SEED, dtype=np.uint64)
    for offset in range(n):
        hashes *= _MULTIPLIER
        hashes += wide[offset : offset + count]
    _mix(hashes)
    if hash_bits < 64:
        hashes &= np.uint64(((1 << hash_bits) - 1) << (64 - hash_bits))
    return hashes


def table_dir(index_path: Path, n: int) -> Path:
    return index_path / "tables" / f"ngram-{n}"


def _compact(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``values[keep]`` in place, chunk by chunk: no second full-size array (entries only move towards the start)."""
    filled = 0
    for chunk_start in range(0, len(values), _CHUNK):
        kept = values[chunk_start : chunk_start + _CHUNK][keep[chunk_start : chunk_start + _CHUNK]]
        values[filled : filled + len(kept)] = kept
        filled += len(kept)
    return values[:filled]


def build_table(index_path: Path, tokens: np.ndarray, offsets: np.ndarray, n: int, *, hash_bits: int = 64) -> Path:
    """Build and store the table of ``n``-grams of an index, atomically; returns its folder.

    Memory is proportional to the number of tokens (about 20 bytes per token).
    """
    total = len(tokens)
    units_count = len(offsets) - 1
    position_bits = max(int(total).bit_length(), 1)
    position_mask = np.uint64((1 << position_bits) - 1)
    lengths = np.diff(offsets)

    # A window is valid when it ends inside its unit: the last n-1 positions of each unit start none.
    valid = np.ones(total, dtype=bool)
    for back in range(1, n):
        ends = offsets[1:] - back
        valid[ends[ends >= offsets[:-1]]] = False
    # Filled in place (no list of parts concatenated into a second copy): the keys are the largest array here.
    windows = max(total - n + 1, 0)
    keys = np.empty(int(np.count_nonzero(valid[:windows])), dtype=np.uint64)
    filled = 0
    for chunk_start in range(0, windows, _CHUNK):
        chunk_stop = min(chunk_start + _CHUNK, windows)
        hashes = _all_window_hashes(tokens[chunk_start : chunk_stop + n - 1], n, hash_bits)
        positions = np.arange(chunk_start, chunk_stop, dtype=np.uint64)
        keep = valid[chunk_start:chunk_stop]
        hashes = hashes[keep]
        hashes &= ~position_mask
        hashes |= positions[keep]
        keys[filled : filled + len(hashes)] = hashes
        filled += len(hashes)
    del valid
    keys.sort()

    unit_dtype = np.int32 if units_count < 2**31 else np.int64
    unit_of_position = np.repeat(np.arange(units_count, dtype=unit_dtype), lengths)
    units = np.empty(len(keys), dtype=unit_dtype)
    shift = np.uint64(position_bits)
    followers_parts = []
    for chunk_start in range(0, len(keys), _CHUNK):
        chunk = keys[chunk_start : chunk_start + _CHUNK]
        units[chunk_start : chunk_start + len(chunk)] = unit_of_position[(chunk & position_mask).view(np.int64)]
        prefixes = keys[max(chunk_start - 1, 0) : chunk_start + len(chunk)] >> shift
        first = 1 if chunk_start == 0 else 0  # the first key has no predecessor
        followers_parts.append(np.flatnonzero(prefixes[1:] == prefixes[:-1]) + chunk_start + first)
    del unit_of_position
    followers = np.concatenate(followers_parts) if followers_parts else np.zeros(0, dtype=np.int64)

    # Neighbours under one prefix: the same n-gram (compare tokens), or a collision (the prefix is impure).
    same_ngram = np.ones(len(followers), dtype=bool)
    for chunk_start in range(0, len(followers), _CHUNK):
        part = followers[chunk_start : chunk_start + _CHUNK]
        here = (keys[part] & position_mask).view(np.int64)
        before = (keys[part - 1] & position_mask).view(np.int64)
        equal = same_ngram[chunk_start : chunk_start + _CHUNK]
        for offset in range(n):
            equal &= tokens[here + offset] == tokens[before + offset]
    impure = np.unique(keys[followers[~same_ngram]] >> shift)
    duplicate = followers[same_ngram & (units[followers] == units[followers - 1])]
    keep = np.ones(len(keys), dtype=bool)
    keep[duplicate] = False
    del followers, same_ngram, duplicate
    keys, units = _compact(keys, keep), _compact(units, keep)

    target = table_dir(index_path, n)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".ngram-{n}.", suffix=".tmp", dir=target.parent))
    try:
        np.save(staging / "keys.npy", keys)
        np.save(staging / "units.npy", units)
        np.save(staging / "impure.npy", impure)
        meta = {
            "n": n,
            "hash_version": HASH_VERSION,
            "hash_bits": hash_bits,
            "position_bits": position_bits,
            "analyzer_version": ANALYZER_VERSION,
            "entries": len(keys),
            "impure_prefixes": len(impure),
            "tokens": total,
        }
        (staging / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        from genbench.contamination.embedded.store import publish_permissions

        publish_permissions(staging)
        if target.exists():  # an unusable earlier table (e.g. another hash version)
            shutil.rmtree(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


class NgramTable:
    """An opened n-gram table (memory-mapped)."""

    def __init__(self, path: Path, tokens: np.ndarray):
        self.meta: dict[str, Any] = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        self.n = int(self.meta["n"])
        self.hash_bits = int(self.meta["hash_bits"])
        self.position_bits = int(self.meta["position_bits"])
        self.position_mask = np.uint64((1 << self.position_bits) - 1)
        self.keys = np.load(path / "keys.npy", mmap_mode="r")
        self.units = np.load(path / "units.npy", mmap_mode="r")
        self.impure = np.load(path / "impure.npy")
        self.tokens = tokens

    @staticmethod
    def usable(path: Path, tokens_count: int, hash_bits: int = 64) -> bool:
        """Whether a stored table exists and was built by this code for this index."""
        try:
            meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return (
            meta.get("hash_version") == HASH_VERSION
            and meta.get("analyzer_version") == ANALYZER_VERSION
            and meta.get("tokens") == tokens_count
            and meta.get("hash_bits") == hash_bits
        )

    def find(self, query_tokens: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Entry ranges ``[lo, hi)`` of the test windows at ``starts`` (empty when absent), and which are impure.

        Windows under a pure prefix are checked against the table's n-gram here; those under an impure prefix
        keep their whole range and need :meth:`expand` to check each entry.
        """
        n = self.n
        hashes = hash_windows(query_tokens, starts, n, self.hash_bits)
        shift = np.uint64(self.position_bits)
        prefixes = hashes >> shift
        unique, inverse = np.unique(prefixes, return_inverse=True)
        low = unique << shift
        lo = np.searchsorted(self.keys, low, side="left")[inverse]
        hi = np.searchsorted(self.keys, low | self.position_mask, side="right")[inverse]
        impure = np.isin(prefixes, self.impure) if len(self.impure) else np.zeros(len(starts), dtype=bool)
        check = np.flatnonzero((hi > lo) & ~impure)
        if len(check):
            representative = (self.keys[lo[check]] & self.position_mask).astype(np.int64)
            equal = np.ones(len(check), dtype=bool)
            for offset in range(n):
                equal &= self.tokens[representative + offset] == query_tokens[starts[check] + offset]
            hi[check[~equal]] = lo[check[~equal]]
        return lo, hi, impure

    def expand(
        self, lo: np.ndarray, hi: np.ndarray, impure: np.ndarray, query_tokens: np.ndarray, starts: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(window, unit) for every entry of the ranges, entries of impure prefixes checked token by token."""
        counts = hi - lo
        total = int(counts.sum())
        window = np.repeat(np.arange(len(lo)), counts)
        first = np.cumsum(counts) - counts
        entry = np.arange(total, dtype=np.int64) + np.repeat(lo - first, counts)
        units = self.units[entry].astype(np.int64)
        if impure.any():
            check = np.flatnonzero(impure[window])
            if len(check):
                positions = (self.keys[entry[check]] & self.position_mask).astype(np.int64)
                window_starts = starts[window[check]]
                equal = np.ones(len(check), dtype=bool)
                for offset in range(self.n):
                    equal &= self.tokens[positions + offset] == query_tokens[window_starts + offset]
                keep = np.ones(total, dtype=bool)
                keep[check[~equal]] = False
                window, units = window[keep], units[keep]
        return window, units

    def restrict(self, lo: np.ndarray, hi: np.ndarray, unit: int) -> np.ndarray:
        """For each range, the first entry whose unit is at least ``unit`` (entries of a prefix are in unit order)."""
        low, high = lo.astype(np.int64), hi.astype(np.int64)
        active = low < high
        while active.any():
            middle = (low + high) // 2
            index = np.flatnonzero(active)
            below = self.units[middle[index]] < unit
            low[index[below]] = middle[index[below]] + 1
            high[index[~below]] = middle[index[~below]]
            active = low < high
        return low
