"""The n-gram table of a text index: every n-gram of every unit, hashed and sorted, exact on lookup.

Sorted 64-bit keys with a small *fence* for lookups, built by an external sort (memory bounded by
:data:`RUN_ENTRIES` and :data:`MERGE_ENTRIES`); hash prefixes shared by different n-grams are marked impure and
compared token by token, so scores are exact whatever the hash does. See
docs/contamination.md#how-the-embedded-index-works.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from genbench._core.files import follow_umask
from genbench.contamination._allocator import reused_heap
from genbench.contamination._analysis import ANALYZER_VERSION
from genbench.contamination._embedded.integrity import check_files, file_records, is_sealed, recorded_digest, seal
from genbench.contamination._embedded.npy_file import NpyFile
from genbench.contamination._errors import DamagedIndexError
from genbench.contamination._hashing import MULTIPLIER, SEED, mix
from genbench.contamination._memory import give_back_free_memory

HASH_VERSION = 2


def hash_windows(tokens: np.ndarray, starts: np.ndarray, n: int, hash_bits: int = 64) -> np.ndarray:
    """Hashes of the windows ``tokens[s:s+n]`` for each ``s`` in ``starts`` (the caller keeps them in range).

    Args:
        tokens: Token ids.
        starts: Window starts.
        n: Window size.
        hash_bits: Keep only this many high bits (a test hook that forces collisions).
    """
    hashes = np.full(len(starts), SEED, dtype=np.uint64)
    for offset in range(n if len(starts) else 0):  # no windows, no passes (n may be far beyond every text)
        hashes *= MULTIPLIER
        hashes += tokens[starts + offset].astype(np.uint64)
    mix(hashes)
    if hash_bits < 64:
        hashes &= np.uint64(((1 << hash_bits) - 1) << (64 - hash_bits))
    return hashes


def _all_window_hashes(tokens: np.ndarray, n: int, hash_bits: int) -> np.ndarray:
    """Hashes of every window of a contiguous token array (sequential reads, no index arrays)."""
    count = len(tokens) - n + 1
    wide = tokens.astype(np.uint64)
    hashes = np.full(count, SEED, dtype=np.uint64)
    for offset in range(n):
        hashes *= MULTIPLIER
        hashes += wide[offset : offset + count]
    mix(hashes)
    if hash_bits < 64:
        hashes &= np.uint64(((1 << hash_bits) - 1) << (64 - hash_bits))
    return hashes


def table_dir(index_path: Path, n: int) -> Path:
    return index_path / "tables" / f"ngram-{n}"


RUN_ENTRIES = 1 << 18
"""Windows hashed and sorted at a time into one sorted run (a temporary file) while building a table."""
MERGE_ENTRIES = 1 << 18
"""Entries held from all runs at once while merging them."""
MERGE_FAN_IN = 128
"""Most runs merged at once; more are first merged into longer runs."""
FENCE_STRIDE = 256
"""Every this many keys, one is kept in ``fence.npy`` (read whole by a search: where to read the keys)."""


BUILT_FROM = ("tokens.npy", "offsets.npy")
"""The index files a table is derived from: its ``meta.json`` records their checksums (``built_from``)."""


def built_from(index_files: Any) -> dict[str, str | None]:
    """What binds a table to its index: the checksums the index's manifest (``files``) records for
    :data:`BUILT_FROM`."""
    return {name: recorded_digest(index_files, name) for name in BUILT_FROM}


def build_table(index_path: Path, n: int, index_files: dict[str, Any], *, hash_bits: int = 64) -> Path:
    """Build and store the table of ``n``-grams of an index, atomically; returns its folder.

    ``index_files`` is the index manifest's ``files``: the table records the checksums of the files it is built from
    (:func:`built_from`), so that it is only ever used with them.

    An external sort: the windows are hashed and sorted :data:`RUN_ENTRIES` at a time into runs on disk, which are
    merged (:data:`MERGE_ENTRIES` entries in memory at a time) into the table, checking neighbours under one hash
    prefix token by token on the way. Memory is bounded by those constants, not by the index's size.
    """
    with reused_heap():  # the same large arrays, allocated and freed run after run: keep the memory for reuse
        return _build_table(index_path, n, index_files, hash_bits=hash_bits)


def _build_table(index_path: Path, n: int, index_files: dict[str, Any], *, hash_bits: int) -> Path:
    tokens = NpyFile(index_path / "tokens.npy")
    offsets = NpyFile(index_path / "offsets.npy")
    total = len(tokens)
    units_count = len(offsets) - 1
    position_bits = max(int(total).bit_length(), 1)
    unit_dtype = np.dtype(np.int32 if units_count < 2**31 else np.int64)

    target = table_dir(index_path, n)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".ngram-{n}.", suffix=".tmp", dir=target.parent))
    try:
        runs = _sorted_runs(staging, tokens, offsets, n, hash_bits, position_bits, unit_dtype)
        give_back_free_memory()
        while len(runs) > MERGE_FAN_IN:
            runs = [
                _merge_to_run(runs[k : k + MERGE_FAN_IN], staging / f"merged-{len(runs)}-{k}")
                for k in range(0, len(runs), MERGE_FAN_IN)
            ]
        writer = _TableWriter(staging, tokens, n, position_bits, unit_dtype)
        for keys, units in _merge(runs):
            writer.add(keys, units)
        for run in runs:
            run.remove()
        entries, impure = writer.close()
        give_back_free_memory()
        meta = {
            "n": n,
            "hash_version": HASH_VERSION,
            "hash_bits": hash_bits,
            "position_bits": position_bits,
            "fence_stride": FENCE_STRIDE,
            "analyzer_version": ANALYZER_VERSION,
            "entries": entries,
            "impure_prefixes": impure,
            "tokens": total,
            "built_from": built_from(index_files),
            "files": file_records(staging, ["keys.npy", "units.npy", "fence.npy", "impure.npy"]),
        }
        (staging / "meta.json").write_text(json.dumps(seal(meta), indent=2), encoding="utf-8")
        follow_umask(staging, directory=True)  # mkdtemp made it 0700
        if target.exists():  # an unusable earlier table (e.g. another hash version)
            shutil.rmtree(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


class _Run:
    """A sorted run on disk: keys and their units, as raw arrays."""

    def __init__(self, stem: Path, unit_dtype: np.dtype[Any]):
        self.keys_path, self.units_path = stem.with_suffix(".keys"), stem.with_suffix(".units")
        self.unit_dtype = unit_dtype
        self.length = 0

    def append(self, keys: np.ndarray, units: np.ndarray) -> None:
        with open(self.keys_path, "ab") as out:
            keys.astype(np.uint64, copy=False).tofile(out)
        with open(self.units_path, "ab") as out:
            units.astype(self.unit_dtype, copy=False).tofile(out)
        self.length += len(keys)

    def read(self, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        count = max(min(count, self.length - start), 0)
        if not count:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=self.unit_dtype)
        with open(self.keys_path, "rb") as source:
            keys = np.fromfile(source, dtype=np.uint64, count=count, offset=start * 8)
        with open(self.units_path, "rb") as source:
            units = np.fromfile(source, dtype=self.unit_dtype, count=count, offset=start * self.unit_dtype.itemsize)
        return keys, units

    def remove(self) -> None:
        self.keys_path.unlink(missing_ok=True)
        self.units_path.unlink(missing_ok=True)


def _sorted_runs(
    staging: Path,
    tokens: NpyFile,
    offsets: NpyFile,
    n: int,
    hash_bits: int,
    position_bits: int,
    unit_dtype: np.dtype[Any],
) -> list[_Run]:
    """Hash every window (``n`` tokens inside one unit), :data:`RUN_ENTRIES` at a time, each lot sorted to a run."""
    total = len(tokens)
    position_mask = np.uint64((1 << position_bits) - 1)
    windows = max(total - n + 1, 0)
    runs: list[_Run] = []
    for chunk_start in range(0, windows, RUN_ENTRIES):
        chunk_stop = min(chunk_start + RUN_ENTRIES, windows)
        # The units overlapping positions [chunk_start, chunk_stop): their bounds, and each position's unit and end.
        first_unit = offsets.searchsorted(chunk_start, side="right") - 1
        bounds = offsets.read(first_unit, offsets.searchsorted(chunk_stop, side="left") + 1)
        # A window is valid when it ends inside its unit: the last n-1 positions of each unit start none.
        valid = np.ones(chunk_stop - chunk_start, dtype=bool)
        # Beyond the longest unit's length every position of every unit is marked: the work follows the data, not n.
        longest = int(np.diff(bounds).max()) if len(bounds) > 1 else 0
        for back in range(1, min(n, longest + 1)):
            ends = bounds[1:] - back
            ends = ends[(ends >= bounds[:-1]) & (ends >= chunk_start) & (ends < chunk_stop)]
            valid[ends - chunk_start] = False
        kept = np.flatnonzero(valid)
        del valid
        if not len(kept):  # no unit holds n tokens: nothing to hash
            continue
        keys = _all_window_hashes(tokens.read(chunk_start, chunk_stop + n - 1), n, hash_bits)[kept]
        keys &= ~position_mask
        kept += chunk_start
        keys |= kept.view(np.uint64)
        del kept
        keys.sort()
        counts = np.diff(np.clip(bounds, chunk_start, chunk_stop))
        unit_of = np.repeat(np.arange(first_unit, first_unit + len(counts), dtype=unit_dtype), counts)
        units = unit_of[(keys & position_mask).view(np.int64) - chunk_start]
        del unit_of
        run = _Run(staging / f"run-{len(runs):06d}", unit_dtype)
        run.append(keys, units)
        runs.append(run)
    return runs


def _merge(runs: list[_Run]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The entries of sorted runs in key order, a few at a time.

    Each round takes, from every run's buffer, the keys up to the smallest last key among the buffers of runs with
    more to read (no key still on disk can be smaller), and sorts those together.
    """
    if not runs:
        return
    size = max(MERGE_ENTRIES // len(runs), 1)
    read_to = [0] * len(runs)
    buffers: list[tuple[np.ndarray, np.ndarray]] = []
    for k, run in enumerate(runs):
        buffers.append(run.read(0, size))
        read_to[k] = len(buffers[k][0])
    while True:
        pending = [k for k, run in enumerate(runs) if read_to[k] < run.length]
        limits = [buffers[k][0][-1] for k in pending if len(buffers[k][0])]
        limit = min(limits) if limits else None
        key_parts, unit_parts = [], []
        for k, (keys, units) in enumerate(buffers):
            take = len(keys) if limit is None else int(np.searchsorted(keys, limit, side="right"))
            if take:
                key_parts.append(keys[:take])
                unit_parts.append(units[:take])
                buffers[k] = keys[take:], units[take:]
        for k in pending:
            keys, units = buffers[k]
            if len(keys) < max(size // 2, 1):  # top the buffer up
                more_keys, more_units = runs[k].read(read_to[k], size - len(keys))
                read_to[k] += len(more_keys)
                buffers[k] = np.concatenate([keys, more_keys]), np.concatenate([units, more_units])
        if not key_parts:
            if any(len(keys) for keys, _ in buffers) or pending:
                continue
            return
        keys = np.concatenate(key_parts)
        units = np.concatenate(unit_parts)
        del key_parts, unit_parts
        order = np.argsort(keys)  # the keys are unique: any sort is the stable one
        yield keys[order], units[order]


def _merge_to_run(runs: list[_Run], stem: Path) -> _Run:
    merged = _Run(stem, runs[0].unit_dtype)
    for keys, units in _merge(runs):
        merged.append(keys, units)
    for run in runs:
        run.remove()
    return merged


class _TableWriter:
    """Writes the merged entries as the table's files: drops repeats of an n-gram within one unit, lists the impure
    prefixes (neighbours under one prefix whose tokens differ) and keeps every :data:`FENCE_STRIDE`-th key."""

    def __init__(self, staging: Path, tokens: NpyFile, n: int, position_bits: int, unit_dtype: np.dtype[Any]):
        self.staging = staging
        self.tokens = tokens
        self.n = n
        self.shift = np.uint64(position_bits)
        self.position_mask = np.uint64((1 << position_bits) - 1)
        self.unit_dtype = unit_dtype
        self.keys_out = _NpyWriter(staging / "keys.npy", np.dtype(np.uint64))
        self.units_out = _NpyWriter(staging / "units.npy", unit_dtype)
        self.fence: list[np.ndarray] = []
        self.impure: list[np.ndarray] = []
        self.previous: tuple[Any, Any] | None = None  # the last entry seen (before dropping repeats)
        self.written = 0

    def add(self, keys: np.ndarray, units: np.ndarray) -> None:
        if not len(keys):
            return
        prefixes = keys >> self.shift
        followers = np.flatnonzero(prefixes[1:] == prefixes[:-1]) + 1
        before = followers - 1
        if self.previous is not None and self.previous[0] >> self.shift == prefixes[0]:
            followers = np.concatenate([[0], followers])
            before = np.concatenate([[-1], before])  # the last entry of the previous lot
        del prefixes
        keep = np.ones(len(keys), dtype=bool)
        if len(followers):
            before_keys, before_units = keys[before], units[before]
            if len(before) and before[0] == -1:
                assert self.previous is not None
                before_keys[0], before_units[0] = self.previous
            # Neighbours under one prefix: the same n-gram (compare tokens), or a collision (the prefix is impure).
            here_positions = (keys[followers] & self.position_mask).view(np.int64)
            before_positions = (before_keys & self.position_mask).view(np.int64)
            same = (
                self.tokens.take_windows(here_positions, self.n) == self.tokens.take_windows(before_positions, self.n)
            ).all(axis=1)
            if not same.all():
                self.impure.append(np.unique(keys[followers[~same]] >> self.shift))
            keep[followers[same & (units[followers] == before_units)]] = False
        self.previous = keys[-1], units[-1]
        kept_keys, kept_units = keys[keep], units[keep]
        first_fence = (-self.written) % FENCE_STRIDE
        self.fence.append(kept_keys[first_fence::FENCE_STRIDE].copy())
        self.keys_out.write(kept_keys)
        self.units_out.write(kept_units)
        self.written += len(kept_keys)

    def close(self) -> tuple[int, int]:
        """Finish the files; returns the number of entries and of impure prefixes."""
        self.keys_out.close()
        self.units_out.close()
        impure = np.unique(np.concatenate([np.zeros(0, dtype=np.uint64), *self.impure]))
        np.save(self.staging / "impure.npy", impure)
        np.save(self.staging / "fence.npy", np.concatenate([np.zeros(0, dtype=np.uint64), *self.fence]))
        return self.written, len(impure)


class _NpyWriter:
    """A one-dimensional ``.npy`` file written in pieces; the header, which holds the length, is written last."""

    def __init__(self, path: Path, dtype: np.dtype[Any]):
        self.path = path
        self.dtype = dtype
        self.handle = open(path, "wb")  # noqa: SIM115 (closed by close())
        self.header_size = len(self._header(0))
        self.handle.write(b"\0" * self.header_size)
        self.length = 0

    def _header(self, length: int) -> bytes:
        buffer = io.BytesIO()
        header = {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False, "shape": (length,)}
        np.lib.format.write_array_header_1_0(buffer, header)
        return buffer.getvalue()

    def write(self, values: np.ndarray) -> None:
        values.astype(self.dtype, copy=False).tofile(self.handle)
        self.length += len(values)

    def close(self) -> None:
        header = self._header(self.length)
        if len(header) != self.header_size:  # cannot happen for lengths below 10**40; kept honest anyway
            raise ValueError(f"{self.path}: the .npy header changed size")
        self.handle.seek(0)
        self.handle.write(header)
        self.handle.close()


class NgramTable:
    """An opened n-gram table: the fence in memory; the keys, units and tokens read as needed (:class:`.NpyFile`)."""

    def __init__(self, path: Path, tokens: NpyFile):
        """Open the table at ``path``.

        Raises:
            DamagedIndexError: a file of the table cannot be read as what it should be (the caller rebuilds it).
        """
        try:
            self.meta: dict[str, Any] = json.loads((path / "meta.json").read_text(encoding="utf-8"))
            self.n = int(self.meta["n"])
            self.hash_bits = int(self.meta["hash_bits"])
            self.position_bits = int(self.meta["position_bits"])
            self.position_mask = np.uint64((1 << self.position_bits) - 1)
            self.stride = int(self.meta["fence_stride"])
            self.keys = NpyFile(path / "keys.npy")
            self.units = NpyFile(path / "units.npy")
            self.fence = np.load(path / "fence.npy")
            self.impure = np.load(path / "impure.npy")
        except DamagedIndexError:
            raise
        except Exception as exc:  # json, numpy's header parser (ast) and int() raise many types on damaged bytes
            raise DamagedIndexError(f"{path}: the n-gram table is damaged ({type(exc).__name__}: {exc}).") from None
        if not (len(self.keys) == len(self.units) and self.fence.ndim == 1 and self.impure.ndim == 1):
            raise DamagedIndexError(f"{path}: the n-gram table's arrays do not fit together (damaged).")
        self.tokens = tokens

    @staticmethod
    def usable(path: Path, tokens_count: int, index_files: Any, hash_bits: int = 64, *, verify: bool = False) -> bool:
        """Whether a stored table exists, was built by this code from this index's files (``index_files``: the index
        manifest's ``files``; see :func:`built_from`), and is whole (its files match the sizes and checksums its
        sealed ``meta.json`` records: see :mod:`.integrity`). A table that is not is rebuilt.
        """
        try:
            meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return False
        if not (
            isinstance(meta, dict)
            and is_sealed(meta)
            and meta.get("hash_version") == HASH_VERSION
            and meta.get("analyzer_version") == ANALYZER_VERSION
            and meta.get("tokens") == tokens_count
            and meta.get("hash_bits") == hash_bits
            and meta.get("built_from") == built_from(index_files)
            and None not in meta["built_from"].values()
        ):
            return False
        try:
            check_files(path, meta.get("files"), "", verify=verify, what="the n-gram table")
        except DamagedIndexError:
            return False
        return True

    def searchsorted(self, values: np.ndarray, side: str) -> np.ndarray:
        """``np.searchsorted(keys, values, side)``, touching only the key blocks the fence points to.

        The keys are unique, so the answer for a value at or after ``fence[j]`` and before ``fence[j + 1]`` lies in
        block ``j`` (keys ``[j * stride, (j + 1) * stride)``) or just after it: a binary search over that block, for
        all values at once, a group of blocks at a time (:meth:`.NpyFile.spans`).
        """
        result = np.zeros(len(values), dtype=np.int64)
        count = len(self.keys)
        if not len(values) or not count:
            return result
        block = np.searchsorted(self.fence, values, side="right") - 1
        order = np.argsort(block, kind="stable")
        order = order[block[order] >= 0]  # before the first key: 0
        block_starts = block[order] * self.stride
        keys = self.keys.array
        for first, stop in self.keys.spans(block_starts, self.stride):
            rows = order[first:stop]
            wanted = values[rows]
            low = block_starts[first:stop].copy()
            high = np.minimum(low + self.stride, count)
            active = low < high
            while active.any():
                middle = (low + high) // 2
                key = keys[np.minimum(middle, count - 1)]
                right = (key < wanted if side == "left" else key <= wanted) & active
                low = np.where(right, middle + 1, low)
                high = np.where(active & ~right, middle, high)
                active = low < high
            result[rows] = low
            self.keys.release(int(block_starts[first]), int(block_starts[stop - 1]) + self.stride)
        return result

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
        lo = self.searchsorted(low, "left")[inverse]
        hi = self.searchsorted(low | self.position_mask, "right")[inverse]
        impure = np.isin(prefixes, self.impure) if len(self.impure) else np.zeros(len(starts), dtype=bool)
        check = np.flatnonzero((hi > lo) & ~impure)
        if len(check):
            representative = (self.keys.take(lo[check]) & self.position_mask).view(np.int64)
            windows = self.tokens.take_windows(representative, n)
            equal = (windows == query_tokens[starts[check][:, None] + np.arange(n)]).all(axis=1)
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
        units = self.units.take(entry).astype(np.int64)
        if impure.any():
            check = np.flatnonzero(impure[window])
            if len(check):
                positions = (self.keys.take(entry[check]) & self.position_mask).view(np.int64)
                window_starts = starts[window[check]]
                windows = self.tokens.take_windows(positions, self.n)
                equal = (windows == query_tokens[window_starts[:, None] + np.arange(self.n)]).all(axis=1)
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
            below = self.units.take(middle[index]) < unit
            low[index[below]] = middle[index[below]] + 1
            high[index[~below]] = middle[index[~below]]
            active = low < high
        return low
