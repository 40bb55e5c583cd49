"""The embedded text index: unit token ids on disk, n-gram tables built on demand, exact n-gram and exact search.

Files of an index folder: ``vocab.txt`` (one token per line, line number = token id), ``tokens.npy`` (``int32`` ids of
all units, concatenated), ``offsets.npy`` (``int64``, where each unit starts; one more than units),
``original_ids.npy`` and ``turns.npy`` (per unit), and ``tables/ngram-<n>/`` for each n searched so far
(:mod:`.ngram_table`). A search reads only the parts of these files it needs (:mod:`.npy_file`), so its memory does
not grow with the corpus (the vocabulary, and one flag per unit when matched units are collected, excepted).
"""

from __future__ import annotations

import shutil
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from genbench._core.errors import GenBenchError
from genbench._core.progress import progress_iter
from genbench.contamination._checksums import bytes_digest
from genbench.contamination._embedded.integrity import check_files, recorded_digest
from genbench.contamination._embedded.leftovers import build_lock, remove_stale_table_leftovers
from genbench.contamination._embedded.ngram_table import NgramTable, build_table, table_dir
from genbench.contamination._embedded.npy_file import NpyFile, npy_header
from genbench.contamination._embedded.store import write_manifest
from genbench.contamination._embedded.token_scan import IdWindows, id_query, token_blocks
from genbench.contamination._embedded.tokens import UNKNOWN, Vocabulary
from genbench.contamination._errors import DamagedIndexError
from genbench.contamination._index_backend import (
    Index,
    InstanceResult,
    SearchMode,
    SearchResult,
    text_instance_results,
    unit_preview,
)
from genbench.contamination._match_scores import PairScores, exact_pair_scores, ngram_pair_scores, top_per_instance
from genbench.contamination._scan_windows import WindowLookup
from genbench.contamination._testsets import TestSet
from genbench.contamination._token_keys import TokenKeys
from genbench.contamination._training_data import UnitBatch

EXACT_WINDOW = 8
"""Exact search looks fields up by windows of at most this many tokens (one table per window size in use)."""

ENCODE_CHARS = 1 << 18
MATCH_THREADS = 2  # the first search's threads matching token blocks
"""Characters of training text tokenised at once while building (the tokenizer's memory is about 100 bytes each)."""

_FINALIZE_CHUNK = 1 << 20

INSTANCES_PER_BATCH = 2048
PAIRS_PER_BLOCK = 250_000
"""Most (window, unit) matches held at once; a block of test instances with more is split by unit ranges."""


class TextShardBuilder:
    """Tokenises each shard of units and grows the vocabulary (one token list per shard, for resuming)."""

    def __init__(self) -> None:
        self.vocabulary = Vocabulary()

    def resume(self, shard_dir: Path) -> None:
        self.vocabulary.extend((shard_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1])

    def process(self, batch: UnitBatch) -> dict[str, np.ndarray | str]:
        known = len(self.vocabulary)
        # The tokenizer holds several arrays per character of its input: a shard is tokenised a few texts at a
        # time, so that its memory is bounded by ENCODE_CHARS rather than by the shard's size.
        sizes = np.fromiter(map(len, batch.texts), dtype=np.int64, count=len(batch.texts))
        ends = np.cumsum(sizes)
        cuts = np.searchsorted(ends, np.arange(ENCODE_CHARS, int(ends[-1]) if len(ends) else 0, ENCODE_CHARS))
        bounds = [0, *np.unique(cuts + 1).tolist(), len(batch.texts)]
        token_parts, length_parts = [np.zeros(0, dtype=np.int32)], [np.zeros(0, dtype=np.int64)]
        for first, stop in zip(bounds[:-1], bounds[1:], strict=True):
            if stop > first:
                ids, lengths = self.vocabulary.encode(batch.texts[first:stop])
                token_parts.append(ids.astype(np.int32))
                length_parts.append(lengths)
        tokens, lengths = np.concatenate(token_parts), np.concatenate(length_parts)
        return {
            "tokens": tokens,
            "lengths": lengths,
            "original_ids": batch.original_ids.astype(np.int64),
            "turns": batch.turns.astype(np.int32),
            "vocab": "".join(word + "\n" for word in self.vocabulary.words[known:]),
        }

    def finalize(self, staging: Path) -> dict[str, Any]:
        # offsets = 0, then the running sum of the lengths, a chunk at a time.
        dtype, (units,), data_offset = npy_header(staging / "lengths.npy")
        total = 0
        with open(staging / "lengths.npy", "rb") as source, open(staging / "offsets.npy", "wb") as out:
            np.lib.format.write_array_header_1_0(
                out,
                {
                    "descr": np.lib.format.dtype_to_descr(np.dtype(np.int64)),
                    "fortran_order": False,
                    "shape": (units + 1,),
                },
            )
            np.zeros(1, dtype=np.int64).tofile(out)
            source.seek(data_offset)
            for _ in range(0, units, _FINALIZE_CHUNK):
                offsets = np.cumsum(np.fromfile(source, dtype=dtype, count=_FINALIZE_CHUNK), dtype=np.int64)
                offsets += total
                offsets.tofile(out)
                total = int(offsets[-1])
        (staging / "lengths.npy").unlink()
        return {"units": units, "tokens": total, "vocabulary": len(self.vocabulary)}


@dataclass
class _EncodedBatch:
    ids: np.ndarray  # token ids of all query fields, concatenated (-1: not in the index's vocabulary)
    starts: np.ndarray  # where each query field starts in `ids`
    lengths: np.ndarray  # tokens of each query field


@dataclass
class _Windows:
    table: NgramTable
    lo: np.ndarray
    hi: np.ndarray
    impure: np.ndarray
    starts: np.ndarray  # in the batch's `ids`
    query_field: np.ndarray
    local_start: np.ndarray  # in the field

    def take(self, rows: np.ndarray) -> _Windows:
        return _Windows(
            self.table,
            self.lo[rows],
            self.hi[rows],
            self.impure[rows],
            self.starts[rows],
            self.query_field[rows],
            self.local_start[rows],
        )


class TextIndex(Index):
    """An embedded text index, opened for search."""

    def __init__(
        self,
        path: Path,
        manifest: dict[str, Any],
        *,
        hash_bits: int = 64,
        rebuild_hint: str = "Build the index again with --rebuild.",
        verify: bool = False,
    ):
        self.path = path
        self.name = path.name
        self.manifest = manifest
        self.hash_bits = hash_bits
        self.rebuild_hint = rebuild_hint
        self.verify = verify
        counts = manifest.get("counts", {})
        self.tokens = self._array("tokens.npy", counts.get("tokens"))
        self.offsets = self._array("offsets.npy", _plus_one(counts.get("units")))
        self.units_count = len(self.offsets) - 1
        self.original_ids = self._array("original_ids.npy", self.units_count)
        self.turns = self._array("turns.npy", self.units_count)
        self._vocabulary: Vocabulary | None = None
        self._tables: dict[int, NgramTable] = {}

    def _array(self, name: str, length: int | None) -> NpyFile:
        """One of the index's arrays, checked to hold ``length`` elements (the manifest's counts)."""
        path = self.path / name
        try:
            array = NpyFile(path)
        except (OSError, ValueError, EOFError) as exc:
            raise DamagedIndexError(f"{path} cannot be read as an array ({exc}). {self.rebuild_hint}") from None
        if length is None or len(array) != length:
            raise DamagedIndexError(
                f"{path} holds {len(array)} values, the manifest counts {length}: the index is damaged. "
                f"{self.rebuild_hint}"
            )
        return array

    @property
    def vocabulary(self) -> Vocabulary:
        if self._vocabulary is None:
            path = self.path / "vocab.txt"
            try:
                data = path.read_bytes()
                words = data.decode("utf-8").split("\n")
            except (OSError, UnicodeDecodeError) as exc:
                raise DamagedIndexError(f"{path} cannot be read ({exc}). {self.rebuild_hint}") from None
            # Read whole anyway: its checksum costs little, whatever its size (see .integrity).
            if bytes_digest(data) != recorded_digest(self.manifest.get("files"), "vocab.txt"):
                raise DamagedIndexError(
                    f"{path} does not have the checksum the index was built with: the file is damaged. "
                    f"{self.rebuild_hint}"
                )
            expected = self.manifest.get("counts", {}).get("vocabulary")
            if words[-1] != "" or len(words) - 1 != expected or len(set(words)) != len(words):
                raise DamagedIndexError(
                    f"{path} does not hold the {expected} distinct tokens the manifest counts: the index is damaged. "
                    f"{self.rebuild_hint}"
                )
            self._vocabulary = Vocabulary(words[:-1])
        return self._vocabulary

    def table(self, n: int) -> NgramTable:
        """The n-gram table for ``n``, built and stored on first use."""
        if n not in self._tables:
            path = table_dir(self.path, n)
            # A missing, outdated or damaged table is (re)built: it is derived from the index's files.
            if not self._table_usable(path, verify=self.verify):
                path.parent.mkdir(parents=True, exist_ok=True)
                with build_lock(path.parent, path.name):
                    remove_stale_table_leftovers(path.parent, n)
                    # Another process may have built it while this one waited for the lock.
                    if not self._table_usable(path, verify=self.verify):
                        build_table(self.path, n, self.manifest["files"], hash_bits=self.hash_bits)
                        self._record_table(n)
            try:
                self._tables[n] = NgramTable(path, self.tokens)
            except DamagedIndexError:  # damaged where its checks did not look (a large file's bytes): build again
                with build_lock(path.parent, path.name):
                    build_table(self.path, n, self.manifest["files"], hash_bits=self.hash_bits)
                self._tables[n] = NgramTable(path, self.tokens)
        return self._tables[n]

    def _table_usable(self, path: Path, *, verify: bool) -> bool:
        files = self.manifest.get("files")
        return NgramTable.usable(path, len(self.tokens), files, self.hash_bits, verify=verify)

    def _record_table(self, n: int) -> None:
        """List the n-gram sizes with a stored table in the manifest (rewritten atomically, sealed again)."""
        sizes = sorted({*self.manifest.get("ngram_tables", []), n})
        self.manifest = write_manifest(self.path, {**self.manifest, "ngram_tables": sizes})

    def _encode(self, texts: list[str]) -> _EncodedBatch:
        ids, lengths = self.vocabulary.encode(texts, grow=False)
        return _EncodedBatch(ids, np.cumsum(lengths) - lengths, lengths)

    def _windows(self, batch: _EncodedBatch, fields: np.ndarray, n: int) -> _Windows | None:
        """The windows of ``n`` tokens of the given query fields (those with an unknown token dropped), looked up."""
        counts = np.maximum(batch.lengths[fields] - n + 1, 0)
        total = int(counts.sum())
        if total == 0:
            return None
        query_field = np.repeat(fields, counts)
        local = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
        starts = batch.starts[query_field] + local
        unknown = np.concatenate([[0], np.cumsum(batch.ids == UNKNOWN)])
        known = unknown[starts + n] == unknown[starts]
        if not known.any():
            return None
        starts, query_field, local = starts[known], query_field[known], local[known]
        table = self.table(n)
        lo, hi, impure = table.find(batch.ids, starts)
        found = np.flatnonzero(hi > lo)
        return _Windows(table, lo, hi, impure, starts, query_field, local).take(found)

    def _blocks(
        self,
        groups: list[_Windows],
        batch: _EncodedBatch,
        score: Callable[[np.ndarray, np.ndarray, np.ndarray], PairScores],
        keep: Callable[[PairScores], None],
        unit_lo: int,
        unit_hi: int,
    ) -> None:
        """Score the matches of ``groups`` within units ``[unit_lo, unit_hi)``, halving the range while too many."""
        total = sum(int((g.hi - g.lo).sum()) for g in groups)
        if total == 0:
            return
        if total > PAIRS_PER_BLOCK and unit_hi - unit_lo > 1:
            middle = (unit_lo + unit_hi) // 2
            lower, upper = [], []
            for group in groups:
                split = group.table.restrict(group.lo, group.hi, middle)
                lower.append(_Windows(group.table, group.lo, split, *_rest(group)))
                upper.append(_Windows(group.table, split, group.hi, *_rest(group)))
            self._blocks(lower, batch, score, keep, unit_lo, middle)
            self._blocks(upper, batch, score, keep, middle, unit_hi)
            return
        query_fields, units, starts = [], [], []
        for group in groups:
            window, unit = group.table.expand(group.lo, group.hi, group.impure, batch.ids, group.starts)
            query_fields.append(group.query_field[window])
            units.append(unit)
            starts.append(group.local_start[window])
        keep(score(np.concatenate(query_fields), np.concatenate(units), np.concatenate(starts)))

    def _contains(self, batch: _EncodedBatch, query_fields: np.ndarray, units: np.ndarray) -> np.ndarray:
        """Whether each unit holds its query field's whole token sequence contiguously."""
        result = np.zeros(len(units), dtype=bool)
        for row, (query_field, unit) in enumerate(zip(query_fields.tolist(), units.tolist(), strict=True)):
            start = batch.starts[query_field]
            needle = batch.ids[start : start + batch.lengths[query_field]].astype(np.int32).tobytes()
            haystack = self._unit_tokens(unit).tobytes()
            found = haystack.find(needle)
            while found != -1 and found % 4:
                found = haystack.find(needle, found + 1)
            result[row] = found != -1
        return result

    def search(self, test_set: TestSet, mode: SearchMode, *, top_k: int = 1, progress: bool = False) -> SearchResult:
        if mode.kind not in ("exact", "ngram"):
            raise ValueError(f"A text index cannot do an {mode.describe()}.")
        try:
            return self._search(test_set, mode, top_k, progress)
        except (IndexError, ValueError, OverflowError) as exc:
            if isinstance(exc, GenBenchError):
                raise
            # Values out of range in files checked by size only (see .integrity): find the damaged file.
            self._find_damage()
            raise  # every file is whole: a bug, shown as it is

    def _find_damage(self) -> None:
        """Hash every file of the index and of its open n-gram tables.

        Raises:
            DamagedIndexError: a file does not match its manifest (a damaged table is removed: the next search
                builds it again).
        """
        check_files(self.path, self.manifest.get("files"), self.rebuild_hint, verify=True)
        for n in sorted(self._tables):
            path = table_dir(self.path, n)
            if not self._table_usable(path, verify=True):
                with build_lock(path.parent, path.name):
                    shutil.rmtree(path, ignore_errors=True)
                raise DamagedIndexError(
                    f"{path} was damaged (its files do not match their checksums) and has been removed: search again "
                    "to build it again."
                )

    def _search(self, test_set: TestSet, mode: SearchMode, top_k: int, progress: bool) -> SearchResult:
        n_fields = len(test_set.fields)
        matched = np.zeros(self.units_count, dtype=bool) if mode.can_decontaminate else None
        if mode.kind == "ngram" and self._first_search_of(mode.ngram_size):
            scanned = self._scan_tokens(test_set, mode, top_k, matched, progress)
            return SearchResult(self.name, self.source, test_set.name, mode, scanned, *self._matched(matched))
        instances: list[InstanceResult] = []
        starts = range(0, len(test_set), INSTANCES_PER_BATCH)
        for first in progress_iter(starts, desc=f"{test_set.name} in {self.name}", unit="batch", enabled=progress):
            rows = test_set.rows[first : first + INSTANCES_PER_BATCH]
            batch = self._encode([text for row in rows for text in row])
            best = self._search_batch(batch, n_fields, mode, top_k, matched)
            instances.extend(self._results(test_set, first, len(rows), batch, best, mode))
        return SearchResult(self.name, self.source, test_set.name, mode, instances, *self._matched(matched))

    def _first_search_of(self, n: int | None) -> bool:
        """Whether a search of ``n``-grams is the first of its size here: none recorded, and no table (a table
        folder that is there, usable or not, was asked for: it is used, or built again)."""
        if n is None or n in self.manifest.get("ngram_scans", []) or n in self._tables:
            return False
        return not table_dir(self.path, n).exists()

    def _scan_tokens(
        self, test_set: TestSet, mode: SearchMode, top_k: int, matched: np.ndarray | None, progress: bool
    ) -> list[InstanceResult]:
        """The first search of an n-gram size: the token file read once past every batch's windows, no table built
        (see :mod:`.token_scan`); the manifest records the size, so that the next search of it builds the table."""
        assert mode.ngram_size is not None
        n, n_fields = mode.ngram_size, len(test_set.fields)
        firsts = list(range(0, len(test_set), INSTANCES_PER_BATCH))
        batches = [
            self._encode([t for row in test_set.rows[f : f + INSTANCES_PER_BATCH] for t in row]) for f in firsts
        ]
        lookups = [
            IdWindows(
                WindowLookup(
                    id_query(b.ids, b.starts, b.lengths), np.arange(len(b.lengths)), n, hash_bits=self.hash_bits
                )
            )
            for b in batches
        ]
        parts: list[list[PairScores]] = [[] for _ in batches]

        def match(first_unit: int, block: TokenKeys) -> list[PairScores | None]:
            found_pairs: list[PairScores | None] = []
            for batch, lookup in zip(batches, lookups, strict=True):
                found = lookup.match(block)
                if not len(found.position):
                    found_pairs.append(None)
                    continue
                units = first_unit + np.searchsorted(block.first, found.position, side="right") - 1
                found_pairs.append(
                    ngram_pair_scores(
                        found.query_field, units, found.start, n=n, field_lengths=batch.lengths, n_fields=n_fields
                    )
                )
            return found_pairs

        def keep(found_pairs: list[PairScores | None]) -> None:
            for pairs, kept in zip(found_pairs, parts, strict=True):
                if pairs is not None:
                    _mark_matched(matched, pairs, mode)
                    kept.append(top_per_instance(pairs, top_k))

        blocks = token_blocks(self.path, self.manifest.get("files"), self.rebuild_hint)
        # Blocks are matched on two threads (numpy releases the GIL) while this one reads and checksums the next;
        # at most two blocks in flight, and their results kept in order.
        in_flight: deque[Future[list[PairScores | None]]] = deque()
        with ThreadPoolExecutor(max_workers=MATCH_THREADS, thread_name_prefix="genbench-token-scan") as pool:
            for first_unit, block in progress_iter(blocks, desc=f"{test_set.name} in {self.name}", unit="block",
                                                   enabled=progress):  # fmt: skip
                in_flight.append(pool.submit(match, first_unit, block))
                if len(in_flight) > MATCH_THREADS:
                    keep(in_flight.popleft().result())
            while in_flight:
                keep(in_flight.popleft().result())
        self.manifest = write_manifest(
            self.path, {**self.manifest, "ngram_scans": sorted({*self.manifest.get("ngram_scans", []), n})}
        )
        instances: list[InstanceResult] = []
        for first, batch, kept in zip(firsts, batches, parts, strict=True):
            best = top_per_instance(PairScores.concat(kept, n_fields), top_k)
            count = min(INSTANCES_PER_BATCH, len(test_set) - first)
            instances.extend(self._results(test_set, first, count, batch, best, mode))
        return instances

    def _search_batch(
        self, batch: _EncodedBatch, n_fields: int, mode: SearchMode, top_k: int, matched: np.ndarray | None
    ) -> PairScores:
        """The top pairs of each instance of a batch; marks the matched units in ``matched``."""
        parts: list[PairScores] = []

        def keep(pairs: PairScores) -> None:
            _mark_matched(matched, pairs, mode)
            parts.append(top_per_instance(pairs, top_k))

        score: Callable[[np.ndarray, np.ndarray, np.ndarray], PairScores]
        if mode.kind == "ngram":
            assert mode.ngram_size is not None
            size = mode.ngram_size

            def score(qf: np.ndarray, unit: np.ndarray, start: np.ndarray) -> PairScores:
                return ngram_pair_scores(qf, unit, start, n=size, field_lengths=batch.lengths, n_fields=n_fields)

            windows = self._windows(batch, np.arange(len(batch.lengths)), size)
            groups = [windows] if windows is not None else []
        else:
            sizes = np.minimum(batch.lengths, EXACT_WINDOW)
            counts = np.where(batch.lengths > 0, batch.lengths - sizes + 1, 0)
            groups = []
            for window_size in np.unique(sizes[sizes > 0]).tolist():
                windows = self._windows(batch, np.flatnonzero(sizes == window_size), window_size)
                if windows is not None:
                    groups.append(windows)

            def score(qf: np.ndarray, unit: np.ndarray, start: np.ndarray) -> PairScores:
                return exact_pair_scores(
                    qf,
                    unit,
                    start,
                    window_counts=counts,
                    field_lengths=batch.lengths,
                    n_fields=n_fields,
                    verify=lambda q, u: self._contains(batch, q, u),
                )

        self._blocks(groups, batch, score, keep, 0, self.units_count)
        return top_per_instance(PairScores.concat(parts, n_fields), top_k)

    def _results(
        self, test_set: TestSet, first: int, count: int, batch: _EncodedBatch, best: PairScores, mode: SearchMode
    ) -> list[InstanceResult]:
        words = self.vocabulary.words
        fields = [
            [words[i] if i >= 0 else "" for i in batch.ids[start : start + length].tolist()]
            for start, length in zip(batch.starts.tolist(), batch.lengths.tolist(), strict=True)
        ]
        first_rows: dict[int, int] = {}
        for row, instance in enumerate(best.instance.tolist()):
            first_rows.setdefault(instance, row)
        # What the matches show of their units, read for the whole batch at once.
        units = best.unit.astype(np.int64)
        original_ids, turns = self.original_ids.take(units).tolist(), self.turns.take(units).tolist()
        firsts = list(first_rows.values())
        bounds = self.offsets.take_windows(units[firsts], 2)
        unit_tokens = dict(zip(firsts, self.tokens.read_ranges(bounds[:, 0], bounds[:, 1]), strict=True))
        return text_instance_results(
            test_set,
            first,
            count,
            fields,
            best,
            mode,
            self.source,
            origin=lambda row, unit: (int(original_ids[row]), int(turns[row])),
            preview=lambda row, unit, longest: unit_preview([words[i] for i in unit_tokens[row].tolist()], longest),
        )

    def _unit_tokens(self, unit: int) -> np.ndarray:
        start, stop = self.offsets.read(unit, unit + 2).tolist()
        return self.tokens.read(start, stop)

    def _matched(self, matched: np.ndarray | None) -> tuple[np.ndarray | None, np.ndarray | None]:
        """``(matched_units, matched_rows)``, as
        :func:`~genbench.contamination._index_backend.matched_from_mask` gives them."""
        if matched is None:
            return None, None
        units = np.flatnonzero(matched)
        return units, np.unique(self.original_ids.take(units))


def _mark_matched(matched: np.ndarray | None, pairs: PairScores, mode: SearchMode) -> None:
    """Flag the units of the pairs that match (above the threshold, or any match without one) in ``matched``."""
    if matched is not None:
        hit = pairs.score > mode.threshold if mode.threshold is not None else pairs.score > 0
        matched[pairs.unit[hit]] = True


def _plus_one(count: Any) -> int | None:
    return count + 1 if isinstance(count, int) else None


def _rest(group: _Windows) -> tuple[np.ndarray, ...]:
    return group.impure, group.starts, group.query_field, group.local_start
