"""One-shot contamination checks: stream the training data past the test sets, with no index kept.

:func:`scan` gives the report that :func:`~genbench.contamination._workflow.search` gives after an index build, reading
the training data once, in blocks, with memory that does not grow with it. See
docs/contamination.md#one-shot-scan-no-index.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench._core.progress import progress_bar
from genbench.contamination._allocator import reused_heap
from genbench.contamination._analysis import tokenize
from genbench.contamination._checksums import DIGEST, file_state, new_digest
from genbench.contamination._errors import ContaminationError
from genbench.contamination._index_backend import SearchMode, SearchResult, text_instance_results, unit_preview
from genbench.contamination._match_scores import (
    PairScores,
    exact_pair_scores,
    ngram_pair_scores,
    top_per_instance_rows,
)
from genbench.contamination._scan_windows import QueryTokens, WindowLookup
from genbench.contamination._testsets import TestSet, task_test_sets
from genbench.contamination._token_keys import TokenKeys, span_token_keys
from genbench.contamination._training_data import (
    UnitSpec,
    check_unit_spec,
    index_name,
    is_local,
    load_training_dataset,
    no_units_error,
    parse_unit_lines,
)
from genbench.contamination._units import unit_spans
from genbench.contamination._workflow import ContaminationReport, training_datasets
from genbench.data._jsonl import plain_object_lines

if TYPE_CHECKING:
    import pyarrow as pa

PathLike = str | os.PathLike[str]
BLOCK_BYTES = 640 << 10
"""Bytes of JSONL read per block (a longer line makes a longer block); pyarrow's reader needs about 5 times that."""
BLOCK_ROWS = 20_000
"""Rows per block when the data is read through ``load_training_dataset``."""
THREADS = 2
EXACT_WINDOW = 8
"""Exact matches look fields up by windows of at most this many tokens (as the embedded index does)."""


class _NotPlain(Exception):
    """The JSONL file is not plainly one object per line: read it the careful way instead."""


@dataclass
class _Block:
    """Rows to scan: the bytes of whole JSONL lines (plain path), or an Arrow table (any other source)."""

    data: bytes | None = None
    table: Any = None


@dataclass
class _Query:
    """One test set, prepared: its query fields' tokens and its window lookups."""

    test_set: TestSet
    tokens: QueryTokens
    lookups: list[WindowLookup]
    window_counts: np.ndarray  # exact matches: windows per query field


@dataclass
class _Best:
    """Kept pairs of one test set: scores and, per pair, the unit's row, turn and (first rank only) preview."""

    pairs: PairScores
    rows: np.ndarray
    turns: np.ndarray
    previews: list[str | None]
    matched_units: list[np.ndarray] = field(default_factory=list)
    matched_rows: list[np.ndarray] = field(default_factory=list)


@dataclass
class _BlockResult:
    rows: int
    units: int
    tokens: int
    unit_type: Any
    best: list[_Best]


# ---------------------------------------------------------------------------------------------- public API
def scan(
    train_datasets: str | Sequence[str] | None = None,
    *,
    dataset_mixer_config: PathLike | None = None,
    split: str = "train",
    test_sets: Iterable[TestSet] | None = None,
    ngram_size: int | None = None,
    match_threshold: float | None = None,
    top_k: int = 1,
    messages_field: str | None = "messages",
    query_filter: str | None = "role:user",
    query_field: str = "content",
    text_field: str | None = None,
    progress: bool = False,
    hash_bits: int = 64,
) -> ContaminationReport:
    """Score test sets against training datasets in one streaming pass over each (no index is written).

    Args:
        train_datasets: Training dataset names or paths (JSONL or Parquet file, ``save_to_disk`` folder, cached Hub
            id), as for :func:`~genbench.contamination._workflow.build_index`.
        dataset_mixer_config: A training config YAML whose ``dataset_mixer`` names more training datasets.
        split: The training split to read.
        test_sets: The test sets; default: the test split of every task in the registry.
        ngram_size: N-gram match of this size; without it, exact match.
        match_threshold: Instances score 1 above it (strictly), else 0.
        top_k: Matches reported per instance (the first is the largest match).
        messages_field: Column of chat messages; each message passing ``query_filter`` is a unit.
        query_filter: ``key:value`` a message must have (``role:user``); ``None`` for every message.
        query_field: Key of a message's text.
        text_field: Read this column, one unit per row, instead of messages.
        progress: Show a progress bar per training dataset.
        hash_bits: Test hook: keep only this many bits of the window hashes (forces collisions; results stay exact).

    Returns:
        The report, as :func:`~genbench.contamination._workflow.search` would give it; its ``manifests`` describe the
        training datasets (``backend: scan``), so :func:`~genbench.contamination._workflow.decontaminate` works on it.

    Raises:
        ContaminationError: a dataset cannot be read, lacks a field, is empty or has no units; bad options.

    >>> import tempfile, pathlib, json
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     train = pathlib.Path(tmp, "train.jsonl")
    ...     _ = train.write_text(json.dumps({"messages": [{"role": "user", "content": "What is 12 + 30?"}]}) + "\\n")
    ...     report = scan(str(train), test_sets=[TestSet.from_texts("sums", ["what is 12 + 30", "what is 5 + 5"])],
    ...                   ngram_size=3)
    >>> [round(r.score, 4) for r in report.results], report.results[0].instances[0].matches[0].unit_text
    ([0.5], 'what is 12 30')
    """
    mode = SearchMode.create(index_type="text", ngram_size=ngram_size, match_threshold=match_threshold)
    if top_k < 1:
        raise ContaminationError(f"top_k must be at least 1, got {top_k}.")
    spec = UnitSpec(messages_field, query_filter, query_field, text_field)
    names = training_datasets(train_datasets, dataset_mixer_config)
    suite = list(test_sets) if test_sets is not None else task_test_sets()
    if not suite:
        raise ContaminationError("There are no test sets to search.")
    queries = [_prepare(test_set, mode, hash_bits) for test_set in suite]
    results: list[SearchResult] = []
    manifests: dict[str, dict[str, Any]] = {}
    for name in names:
        with reused_heap():
            manifest, bests = _scan_dataset(name, split, spec, queries, mode, top_k, progress)
        manifests[manifest["name"]] = manifest
        for query, best in zip(queries, bests, strict=True):
            results.append(_search_result(manifest, query, best, mode))
    return ContaminationReport(mode, results, manifests)


# ---------------------------------------------------------------------------------------------- test side
def _prepare(test_set: TestSet, mode: SearchMode, hash_bits: int) -> _Query:
    tokens = QueryTokens.from_fields([tokenize(text) for row in test_set.rows for text in row])
    everything = np.arange(len(tokens.counts))
    if mode.kind == "ngram":
        assert mode.ngram_size is not None
        lookups = [WindowLookup(tokens, everything, mode.ngram_size, hash_bits=hash_bits)]
        return _Query(test_set, tokens, lookups, np.zeros(0, dtype=np.int64))
    sizes = np.minimum(tokens.counts, EXACT_WINDOW)
    window_counts = np.where(tokens.counts > 0, tokens.counts - sizes + 1, 0)
    lookups = [
        WindowLookup(tokens, np.flatnonzero(sizes == size), size, hash_bits=hash_bits)
        for size in np.unique(sizes[sizes > 0]).tolist()
    ]
    return _Query(test_set, tokens, lookups, window_counts)


# ---------------------------------------------------------------------------------------------- training side
def _scan_dataset(
    name: str,
    split: str,
    spec: UnitSpec,
    queries: list[_Query],
    mode: SearchMode,
    top_k: int,
    progress: bool,
) -> tuple[dict[str, Any], list[_Best]]:
    """One pass over a training dataset: its manifest and, per test set, the kept pairs."""
    path = Path(name).expanduser()
    if is_local(path, "file") and path.suffix.lower() == ".jsonl":
        digest, content = hashlib.sha256(), new_digest()
        state: dict[str, int] = {}
        try:
            bests, rows, units, tokens = _run_blocks(
                _jsonl_blocks(path, digest, content, state), spec, queries, mode, top_k, progress, name
            )
        except _NotPlain:
            units = 0
        if units:  # without units the loader's path says why (a missing field, the filter values seen)
            source = {
                "name": name,
                "kind": "jsonl",
                "path": str(path.resolve()),
                "split": split,
                "fingerprint": digest.hexdigest(),
                "rows": rows,
                DIGEST: content.hexdigest(),
            }
            if state:
                source["file_state"] = state
            return _manifest(name, source, spec, units, tokens, rows), bests

    loaded = load_training_dataset(name, split, spec)
    check_unit_spec(loaded, spec)
    bests, _, units, tokens = _run_blocks(_table_blocks(loaded), spec, queries, mode, top_k, progress, name)
    if units == 0:
        raise no_units_error(loaded, spec)
    return _manifest(name, loaded.source_info(), spec, units, tokens, loaded.num_rows), bests


def _manifest(name: str, source: dict[str, Any], spec: UnitSpec, units: int, tokens: int, rows: int) -> dict[str, Any]:
    """What the report says of a scanned dataset (shaped like an index manifest, ``backend: scan``)."""
    return {
        "name": f"{index_name(name)}.text",
        "backend": "scan",
        "index_type": "text",
        "source": source,
        "units_from": spec.to_dict(),
        "counts": {"rows": rows, "units": units, "tokens": tokens},
    }


def _jsonl_blocks(path: Path, digest: Any, content: Any, state: dict[str, int]) -> Iterator[_Block]:
    """The file's lines in blocks of about :data:`BLOCK_BYTES`, each ending at a line end; every byte read goes to
    ``digest`` (SHA-256: the fingerprint ``load_training_dataset`` gives the file) and ``content`` (its XXH3-128, as
    an index records it); ``state`` receives the file's state (as an index records it) when it is read whole and
    unchanged."""
    carry: list[bytes] = []
    read = 0
    try:
        with open(path, "rb") as handle:
            before = file_state(os.fstat(handle.fileno()))
            while chunk := handle.read(BLOCK_BYTES):
                read += len(chunk)
                digest.update(chunk)
                content.update(chunk)
                cut = chunk.rfind(b"\n") + 1
                if cut == 0:  # a line longer than a block: keep reading
                    carry.append(chunk)
                    continue
                # One copy at most: the carried start of a line joined to this chunk's complete lines.
                block = b"".join([*carry, chunk[:cut]]) if carry else (chunk if cut == len(chunk) else chunk[:cut])
                carry = [chunk[cut:]] if cut < len(chunk) else []
                yield _Block(data=block)
            if file_state(os.fstat(handle.fileno())) == before and read == before["bytes"]:
                state.update(before)
    except OSError as exc:
        raise ContaminationError(f"Could not read {path}: {exc}") from exc
    if carry:
        yield _Block(data=b"".join(carry))


def _table_blocks(loaded: Any) -> Iterator[_Block]:
    for start in range(0, loaded.num_rows, BLOCK_ROWS):
        yield _Block(table=loaded.slice(start, min(start + BLOCK_ROWS, loaded.num_rows)))


def _run_blocks(
    blocks: Iterator[_Block],
    spec: UnitSpec,
    queries: list[_Query],
    mode: SearchMode,
    top_k: int,
    progress: bool,
    name: str,
) -> tuple[list[_Best], int, int, int]:
    """Process the blocks on :data:`THREADS` threads, merging their results in block order.

    Returns:
        The kept pairs per test set, and the rows, units and tokens seen.
    """
    kept = [_empty_best(len(q.test_set.fields)) for q in queries]
    rows = units = tokens = 0
    unit_type: Any = None
    bar = progress_bar(desc=f"Scanning {name}", unit="row") if progress else None
    pending: list[Future[_BlockResult]] = []
    with ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="genbench-scan") as pool:
        try:

            def merge(result: _BlockResult) -> None:
                nonlocal rows, units, tokens, unit_type
                if unit_type is None:
                    unit_type = result.unit_type
                elif result.unit_type is not None and result.unit_type != unit_type:
                    raise _NotPlain  # blocks disagree on the column's type: the careful reader decides
                for number, best in enumerate(result.best):
                    best.pairs.unit += units
                    best.rows += rows
                    best.matched_units = [local + units for local in best.matched_units]
                    best.matched_rows = [local + rows for local in best.matched_rows]
                    kept[number] = _merge_best(kept[number], best, top_k)
                rows += result.rows
                units += result.units
                tokens += result.tokens
                if bar is not None:
                    bar.update(result.rows)

            # The next block is read (and hashed) while the threads work on the others; it is handed over as soon as
            # a thread is free: at most THREADS blocks in the threads' hands, one more read ahead.
            for block in blocks:
                while len(pending) >= THREADS:
                    merge(pending.pop(0).result())
                pending.append(pool.submit(_process_block, block, spec, queries, mode, top_k, name))
            while pending:
                merge(pending.pop(0).result())
        finally:
            for future in pending:
                future.cancel()
            if bar is not None:
                bar.close()
    return kept, rows, units, tokens


# ---------------------------------------------------------------------------------------------- one block
def _parse_plain(data: bytes, spec: UnitSpec) -> pa.Table:
    """The block's rows, when it is plainly one JSON object per line of UTF-8 text, read as an index build reads
    them (:func:`~genbench.contamination._training_data.parse_unit_lines`); else :class:`_NotPlain` (the index
    build's reader then reads the file, and raises its errors)."""
    import pyarrow as pa

    lines = plain_object_lines(data)
    if lines is None:
        raise _NotPlain
    try:
        data.decode("utf-8")  # keys too: pyarrow checks neither them nor (until validated) the strings
    except UnicodeDecodeError:
        raise _NotPlain from None
    # One block per read (the threads are the scan's), and the system allocator, which gives the parser's scratch
    # memory back (pyarrow's default pool would keep it).
    table = parse_unit_lines(
        data,
        lines,
        spec,
        projected_first=True,
        block_size=len(data) + 1,
        use_threads=False,
        memory_pool=pa.system_memory_pool(),
    )
    if table is None:
        raise _NotPlain
    return table


def _process_block(
    block: _Block, spec: UnitSpec, queries: list[_Query], mode: SearchMode, top_k: int, name: str
) -> _BlockResult:
    table = _parse_plain(block.data, spec) if block.data is not None else block.table
    try:
        # A JSONL block is checked on its own (a missing field sends the file to the loader); a loaded dataset was
        # checked as a whole, and a block of it may lack a field that others have.
        units = unit_spans(table, spec, name, check=block.data is not None)
    except ContaminationError as exc:
        if block.data is not None:  # e.g. the field is missing from this block only: the careful reader decides
            raise _NotPlain from exc
        raise
    keys = span_token_keys(units.data, units.starts, units.ends)
    unit_tokens: dict[int, list[str]] = {}

    def tokens_of(unit: int) -> list[str]:
        if unit not in unit_tokens:
            unit_tokens[unit] = tokenize(units.text(unit))
        return unit_tokens[unit]

    best = [_block_best(query, keys, tokens_of, units.rows, units.turns, mode, top_k) for query in queries]
    unit_type = units.column_type if block.data is not None else None
    return _BlockResult(table.num_rows, len(units), len(keys.keys), unit_type, best)


def _block_best(
    query: _Query,
    keys: TokenKeys,
    tokens_of: Any,
    rows: np.ndarray,
    turns: np.ndarray,
    mode: SearchMode,
    top_k: int,
) -> _Best:
    """The top pairs of the block's units for one test set, their previews, and the matched units."""
    n_fields = len(query.test_set.fields)
    matches = [lookup.match(keys, _long_verifier(lookup, query, keys, tokens_of)) for lookup in query.lookups]
    found = [m for m in matches if len(m.position)]
    if not found:
        return _empty_best(n_fields)
    position = np.concatenate([m.position for m in found])
    query_field = np.concatenate([m.query_field for m in found])
    start = np.concatenate([m.start for m in found])
    unit = np.searchsorted(keys.first, position, side="right") - 1
    if mode.kind == "ngram":
        assert mode.ngram_size is not None
        pairs = ngram_pair_scores(
            query_field, unit, start, n=mode.ngram_size, field_lengths=query.tokens.counts, n_fields=n_fields
        )
    else:

        def contains(fields: np.ndarray, units: np.ndarray) -> np.ndarray:
            return np.array(
                [
                    _holds(tokens_of(u), query.tokens.tokens[f])
                    for f, u in zip(fields.tolist(), units.tolist(), strict=True)
                ],
                dtype=bool,
            )

        pairs = exact_pair_scores(
            query_field,
            unit,
            start,
            window_counts=query.window_counts,
            field_lengths=query.tokens.counts,
            n_fields=n_fields,
            verify=contains,
        )
    result = _empty_best(n_fields)
    if mode.can_decontaminate and len(pairs):
        hit = pairs.score > mode.threshold if mode.threshold is not None else pairs.score > 0
        result.matched_units.append(np.unique(pairs.unit[hit]))
    top = pairs.take(top_per_instance_rows(pairs, top_k))
    first = np.ones(len(top), dtype=bool)
    first[1:] = top.instance[1:] != top.instance[:-1]
    previews = [
        unit_preview(tokens_of(int(top.unit[row])), _longest_span(query, top, row)) if first[row] else None
        for row in range(len(top))
    ]
    result.pairs, result.rows, result.turns, result.previews = top, rows[top.unit], turns[top.unit], previews
    if result.matched_units:
        result.matched_rows.append(np.unique(rows[result.matched_units[0]]))
    return result


def _long_verifier(lookup: WindowLookup, query: _Query, keys: TokenKeys, tokens_of: Any) -> Any:
    """Checks matches involving long tokens (hashed keys) on the token strings."""

    def verify(positions: np.ndarray, grams: np.ndarray) -> np.ndarray:
        units = np.searchsorted(keys.first, positions, side="right") - 1
        keep = np.zeros(len(positions), dtype=bool)
        for row, (position, gram, unit) in enumerate(
            zip(positions.tolist(), grams.tolist(), units.tolist(), strict=True)
        ):
            query_field, start = lookup.representative(gram)
            local = position - int(keys.first[unit])
            window = query.tokens.tokens[query_field][start : start + lookup.size]
            keep[row] = tokens_of(unit)[local : local + lookup.size] == window
        return keep

    return verify


def _holds(unit: list[str], needle: list[str]) -> bool:
    """Whether ``unit`` contains ``needle`` contiguously."""
    size = len(needle)
    first = needle[0]
    return any(unit[i] == first and unit[i : i + size] == needle for i in range(len(unit) - size + 1))


def _longest_span(query: _Query, pairs: PairScores, row: int) -> list[str]:
    """The tokens of the pair's longest matched span (the first field's, among equally long)."""
    n_fields = len(query.test_set.fields)
    longest: list[str] = []
    instance = int(pairs.instance[row])
    for f in range(n_fields):
        begin, end = int(pairs.span_start[row, f]), int(pairs.span_end[row, f])
        if end - begin > len(longest):
            longest = query.tokens.tokens[instance * n_fields + f][begin:end]
    return longest


# ---------------------------------------------------------------------------------------------- merging
def _empty_best(n_fields: int) -> _Best:
    none = np.zeros(0, dtype=np.int64)
    return _Best(PairScores.empty(n_fields), none, none.copy(), [])


def _merge_best(kept: _Best, new: _Best, top_k: int) -> _Best:
    """The top pairs of both (``new``'s units already numbered globally)."""
    n_fields = kept.pairs.matched.shape[1]
    if len(new.pairs) == 0 and not new.matched_units:
        return kept
    both = PairScores.concat([kept.pairs, new.pairs], n_fields)
    rows = np.concatenate([kept.rows, new.rows])
    turns = np.concatenate([kept.turns, new.turns])
    previews = kept.previews + new.previews
    chosen = top_per_instance_rows(both, top_k)
    merged = _Best(both.take(chosen), rows[chosen], turns[chosen], [previews[i] for i in chosen.tolist()])
    merged.matched_units = kept.matched_units + new.matched_units
    merged.matched_rows = kept.matched_rows + new.matched_rows
    return merged


def _search_result(manifest: dict[str, Any], query: _Query, best: _Best, mode: SearchMode) -> SearchResult:
    test_set = query.test_set
    source = str(manifest["source"]["name"])
    instances = text_instance_results(
        test_set,
        0,
        len(test_set),
        query.tokens.tokens,
        best.pairs,
        mode,
        source,
        origin=lambda row, unit: (int(best.rows[row]), int(best.turns[row])),
        # A block's first pair may have lost to another block's: only an instance's first pair shows its unit.
        preview=lambda row, unit, longest: best.previews[row],
    )
    matched_units = matched_rows = None
    if mode.can_decontaminate:
        matched_units = np.unique(np.concatenate([np.zeros(0, dtype=np.int64), *best.matched_units]))
        matched_rows = np.unique(np.concatenate([np.zeros(0, dtype=np.int64), *best.matched_rows]))
    return SearchResult(manifest["name"], source, test_set.name, mode, instances, matched_units, matched_rows)
