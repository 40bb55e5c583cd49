"""The pieces that bound the embedded index's memory give what the whole-in-memory versions gave.

* JSONL files read in line ranges (and Parquet files by row groups) give the rows and units of a whole-file read;
* the n-gram table built by an external sort, with tiny runs and merges forced, is the table of the in-memory
  definition (all windows hashed, sorted, neighbours compared token by token), hash collisions included;
* :class:`NpyFile` reads what numpy indexing reads, and releases the pages it touched.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.json as paj
import pyarrow.parquet as pq
import pytest

import genbench.contamination._training_data as training_data
from genbench._core.errors import GenBenchError
from genbench.contamination import TestSet, build_index, search
from genbench.contamination._embedded import EmbeddedBackend, ngram_table, npy_file, text_index
from genbench.contamination._training_data import LoadedDataset, UnitSpec, iter_unit_batches, load_training_dataset

from .test_differential import _check_against_definition, _random_data

WORDS = ["alpha", "beta", "gamma", "δέλτα", "東京", "x" * 40, "3.5", "naïve"]


def _text(rng: random.Random, longest: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, longest)))


def _chat_rows(rng: random.Random, count: int) -> list[dict]:
    rows: list[dict] = []
    for number in range(count):
        if number < 9:  # the first block has only empty lists: their type is list<null> there
            rows.append({"messages": []})
            continue
        kind = rng.random()
        if kind < 0.05:
            rows.append({"other": 1})  # no messages field at all
        elif kind < 0.1:
            rows.append({"messages": [{"content": _text(rng)}]})  # no role: not a user turn
        else:
            roles = ["user", "assistant", "system"]
            rows.append(
                {"messages": [{"role": rng.choice(roles), "content": _text(rng)} for _ in range(rng.randint(0, 4))]}
            )
    return rows


def _text_rows(rng: random.Random, count: int) -> list[dict]:
    rows: list[dict] = []
    for number in range(count):
        if number < 9:  # the field first appears after the first block
            rows.append({"id": number})
        elif number % 13 == 0:
            rows.append({"text": None, "extra": {"nested": [1, 2]}})
        elif number % 17 == 0:
            rows.append({"text": " ".join(_text(rng, 400) for _ in range(20))})  # a long line
        else:
            rows.append({"text": _text(rng), "id": number})
    return rows


def _write(path: Path, rows: list[dict], *, newline: str = "\n", final_newline: bool = True) -> Path:
    text = newline.join(json.dumps(row, ensure_ascii=False) for row in rows)
    path.write_bytes((text + (newline if final_newline else "")).encode("utf-8"))
    return path


def _units(loaded: LoadedDataset, spec: UnitSpec, shard_rows: int) -> tuple[list[str], list[int], list[int]]:
    texts, rows, turns = [], [], []
    for batch in iter_unit_batches(loaded, spec, shard_rows=shard_rows):
        texts += batch.texts
        rows += batch.original_ids.tolist()
        turns += batch.turns.tolist()
    return texts, rows, turns


def _whole(path: Path) -> LoadedDataset:
    """The file read whole, as before line ranges."""
    table = paj.read_json(path, read_options=paj.ReadOptions(block_size=1 << 24))
    return LoadedDataset(str(path), table, "jsonl", str(path), "train", "whole")


@pytest.mark.parametrize("block_lines", [4, 9, 1024])
@pytest.mark.parametrize(("kind", "spec"), [("chat", UnitSpec()), ("text", UnitSpec(text_field="text"))])
@pytest.mark.parametrize(("newline", "final_newline"), [("\n", True), ("\r\n", False)])
def test_jsonl_line_ranges_give_the_units_of_a_whole_read(
    tmp_path: Path, monkeypatch, block_lines, kind, spec, newline, final_newline
):
    monkeypatch.setattr(training_data, "BLOCK_LINES", block_lines)
    monkeypatch.setattr(training_data, "_PARSE_BLOCK", 1 << 10)  # lines longer than pyarrow's block: retried
    rng = random.Random(block_lines)
    rows = (_chat_rows if kind == "chat" else _text_rows)(rng, 4 * 9 + 3)  # ranges ending on and off blocks
    path = _write(tmp_path / "train.jsonl", rows, newline=newline, final_newline=final_newline)
    loaded = load_training_dataset(str(path))
    assert type(loaded.rows).__name__ == "_JsonlBlocks" and loaded.num_rows == len(rows)
    whole = _whole(path)
    for shard_rows in (1, 4, 7, 9, 100):
        assert _units(loaded, spec, shard_rows) == _units(whole, spec, shard_rows)
    for start, stop in [(0, len(rows)), (3, 11), (8, 9), (9, 18), (len(rows) - 1, len(rows) + 5), (5, 5)]:
        got = loaded.slice(start, stop).to_pylist()
        want = whole.slice(start, stop).to_pylist()
        # A range whose rows all lack a field has no such column: the whole read has nulls there.
        assert [{k: v for k, v in r.items() if v is not None} for r in got] == [
            {k: v for k, v in r.items() if v is not None} for r in want
        ]


def test_a_field_missing_from_the_first_block_is_found_further_down(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(training_data, "BLOCK_LINES", 4)
    rows = [{"id": k} for k in range(6)] + [{"id": 6, "text": "late field"}]
    loaded = load_training_dataset(str(_write(tmp_path / "train.jsonl", rows)))
    assert "text" not in loaded.column_names and "text" in loaded.full_schema().names
    assert _units(loaded, UnitSpec(text_field="text"), 3)[0] == [""] * 6 + ["late field"]
    with pytest.raises(GenBenchError, match="no field 'body'"):
        list(iter_unit_batches(loaded, UnitSpec(text_field="body"), shard_rows=3))


def test_a_bad_line_in_a_later_range_is_named(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(training_data, "BLOCK_LINES", 4)
    path = tmp_path / "train.jsonl"
    lines = [json.dumps({"text": f"row {k}"}) for k in range(10)]
    lines[8] = '{"text": "cut'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = load_training_dataset(str(path))  # the first pass only looks at line starts
    with pytest.raises(GenBenchError, match="line 9"):
        list(iter_unit_batches(loaded, UnitSpec(text_field="text"), shard_rows=3))


def test_odd_files_are_still_read_whole(tmp_path: Path):
    """Blank lines or a line starting with a space: the careful whole-file reader, as before."""
    path = tmp_path / "train.jsonl"
    path.write_text('{"text": "a"}\n\n {"text": "b"}\n', encoding="utf-8")
    loaded = load_training_dataset(str(path))
    assert isinstance(loaded.rows, pa.Table)
    assert _units(loaded, UnitSpec(text_field="text"), 1)[0] == ["a", "b"]


def test_rows_json_of_a_ranged_file_are_its_lines(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(training_data, "BLOCK_LINES", 2)
    rows = [{"text": f"row {k}", "é": "ü"} for k in range(5)]
    path = _write(tmp_path / "train.jsonl", rows, newline="\r\n", final_newline=False)
    lines = [json.dumps(row, ensure_ascii=False) for row in rows]
    assert list(training_data.iter_rows_json(load_training_dataset(str(path)))) == list(enumerate(lines))


def test_parquet_row_groups_give_the_units_of_a_whole_read(tmp_path: Path):
    rng = random.Random(0)
    rows = [{"text": _text(rng), "n": k} for k in range(50)]
    path = tmp_path / "train.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=7)
    loaded = load_training_dataset(str(path))
    assert type(loaded.rows).__name__ == "_ParquetRowGroups"
    whole = LoadedDataset(str(path), pq.read_table(path), "parquet", str(path), "train", "whole")
    spec = UnitSpec(text_field="text")
    for shard_rows in (1, 6, 7, 8, 100):
        assert _units(loaded, spec, shard_rows) == _units(whole, spec, shard_rows)
    assert loaded.slice(6, 15).to_pylist() == rows[6:15] and loaded.slice(49, 60).to_pylist() == rows[49:]


# ---------------------------------------------------------------------------------------------- n-gram table
def _reference_table(index: Path, n: int, hash_bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The table by its definition, all in memory: every window inside a unit, hashed with its position, sorted;
    a repeat of an n-gram right after itself in one unit dropped; a prefix whose neighbours differ is impure."""
    tokens = np.load(index / "tokens.npy")
    offsets = np.load(index / "offsets.npy")
    bits = max(int(len(tokens)).bit_length(), 1)
    starts = np.array(
        [s for u in range(len(offsets) - 1) for s in range(offsets[u], offsets[u + 1] - n + 1)], dtype=np.int64
    )
    keys = ngram_table.hash_windows(tokens, starts, n, hash_bits) if len(starts) else np.zeros(0, np.uint64)
    keys = np.sort((keys & ~np.uint64((1 << bits) - 1)) | starts.astype(np.uint64))
    positions = (keys & np.uint64((1 << bits) - 1)).astype(np.int64)
    units = np.searchsorted(offsets, positions, side="right") - 1
    prefixes = keys >> np.uint64(bits)
    keep, impure = np.ones(len(keys), dtype=bool), set()
    for k in range(1, len(keys)):
        if prefixes[k] != prefixes[k - 1]:
            continue
        if (tokens[positions[k] : positions[k] + n] == tokens[positions[k - 1] : positions[k - 1] + n]).all():
            keep[k] = units[k] != units[k - 1]
        else:
            impure.add(int(prefixes[k]))
    return keys[keep], units[keep], np.array(sorted(impure), dtype=np.uint64)


@pytest.mark.parametrize("hash_bits", [64, 5])
@pytest.mark.parametrize(("run_entries", "merge_entries", "fan_in"), [(1 << 19, 1 << 19, 64), (7, 10, 3), (1, 1, 2)])
def test_the_external_sort_builds_the_definitions_table(
    tmp_path: Path, monkeypatch, write_jsonl, hash_bits, run_entries, merge_entries, fan_in
):
    monkeypatch.setattr(ngram_table, "RUN_ENTRIES", run_entries)
    monkeypatch.setattr(ngram_table, "MERGE_ENTRIES", merge_entries)
    monkeypatch.setattr(ngram_table, "MERGE_FAN_IN", fan_in)
    monkeypatch.setattr(ngram_table, "FENCE_STRIDE", 3)
    rng = random.Random(hash_bits)
    # Repeats within and across units, empty and short units: the n-gram "a b" occurs many times.
    units = [" ".join(rng.choice("aab") for _ in range(rng.choice([0, 1, 2, 5, 9]))) for _ in range(40)]
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": unit} for unit in units])
    backend = EmbeddedBackend(tmp_path / "indexes", shard_rows=6)
    backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
    index = backend.open(str(train), hash_bits=hash_bits)
    for n in (1, 2, 3):
        table = index.table(n)
        keys, units_, impure = _reference_table(index.path, n, hash_bits)
        folder = ngram_table.table_dir(index.path, n)
        assert np.array_equal(np.load(folder / "keys.npy"), keys)
        assert np.array_equal(np.load(folder / "units.npy"), units_)
        assert np.array_equal(np.load(folder / "impure.npy"), impure)
        assert np.array_equal(table.fence, keys[::3])
        assert not list(folder.glob("run-*")) and not list(folder.glob("merged-*"))
        ends = np.array([0, 2**64 - 1], dtype=np.uint64)
        with np.errstate(over="ignore"):
            lookups = np.concatenate([keys, keys + np.uint64(1), keys - np.uint64(1), ends])
        for side in ("left", "right"):
            assert np.array_equal(table.searchsorted(lookups, side), np.searchsorted(keys, lookups, side=side))
    if hash_bits == 5:
        assert len(np.load(ngram_table.table_dir(index.path, 2) / "impure.npy")), "collisions were forced"


@pytest.mark.parametrize("seed", range(3))
def test_scores_with_tiny_runs_and_collisions_match_the_definition(
    tmp_path: Path, monkeypatch, write_jsonl, seed: int
):
    monkeypatch.setattr(ngram_table, "RUN_ENTRIES", 5)
    monkeypatch.setattr(ngram_table, "MERGE_ENTRIES", 8)
    monkeypatch.setattr(ngram_table, "MERGE_FAN_IN", 2)
    monkeypatch.setattr(ngram_table, "FENCE_STRIDE", 2)
    monkeypatch.setattr(npy_file, "RELEASE_BYTES", 1)
    monkeypatch.setattr(text_index, "PAIRS_PER_BLOCK", 7)
    monkeypatch.setattr(text_index, "INSTANCES_PER_BATCH", 4)
    units, rows = _random_data(seed)
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": " ".join(unit)} for unit in units])
    backend = EmbeddedBackend(tmp_path / "indexes", shard_rows=7)
    backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
    _check_against_definition(backend.open(str(train), hash_bits=6), units, rows, seed)


def test_a_table_of_an_older_hash_version_is_rebuilt(tmp_path: Path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": "one two three four"}, {"text": "two three four five"}])
    tests = [TestSet.from_texts("t", ["one two three", "three four five"])]
    options = {"text_field": "text", "index_dir": tmp_path / "idx"}
    build_index(str(train), ngram_sizes=[2], **options)
    first = search(str(train), test_sets=tests, ngram_size=2, index_dir=options["index_dir"])
    (folder,) = (tmp_path / "idx").glob("*.text/tables/ngram-2")
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps({**meta, "hash_version": 1}))
    (folder / "fence.npy").unlink()  # version 1 had none
    again = search(str(train), test_sets=tests, ngram_size=2, index_dir=options["index_dir"])
    assert json.loads((folder / "meta.json").read_text())["hash_version"] == ngram_table.HASH_VERSION
    assert (folder / "fence.npy").is_file()
    assert [i.raw_score for i in again.results[0].instances] == [i.raw_score for i in first.results[0].instances]


# ---------------------------------------------------------------------------------------------- NpyFile
def test_npy_file_reads_what_numpy_reads(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(npy_file, "RELEASE_BYTES", 1 << 16)
    rng = np.random.default_rng(0)
    array = rng.integers(0, 1 << 30, 300_000, dtype=np.int32)
    np.save(tmp_path / "a.npy", array)
    reader = npy_file.NpyFile(tmp_path / "a.npy")
    assert len(reader) == len(array) and reader.dtype == array.dtype
    starts = np.concatenate([rng.integers(0, len(array), 5000), [len(array) - 2, 0, 0]])
    windows = reader.take_windows(starts, 4)
    padded = np.concatenate([array, np.zeros(4, dtype=array.dtype)])
    assert np.array_equal(windows, padded[starts[:, None] + np.arange(4)])
    assert np.array_equal(reader.take(starts), array[starts])
    assert np.array_equal(reader.read(299_990, 400_000), array[299_990:])
    parts = reader.read_ranges(np.array([5, 0, 100]), np.array([9, 0, 1000]))
    assert [p.tolist() for p in parts] == [array[5:9].tolist(), [], array[100:1000].tolist()]
    ordered = np.sort(array)
    np.save(tmp_path / "s.npy", ordered)
    sorted_reader = npy_file.NpyFile(tmp_path / "s.npy")
    for value in [0, int(ordered[777]), 1 << 31]:
        for side in ("left", "right"):
            assert sorted_reader.searchsorted(value, side) == np.searchsorted(ordered, value, side=side)
    np.save(tmp_path / "empty.npy", np.zeros(0, dtype=np.uint64))
    empty = npy_file.NpyFile(tmp_path / "empty.npy")
    assert len(empty) == 0 and empty.take(np.zeros(0, dtype=np.int64)).tolist() == []


def _resident_file_kib() -> int | None:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("RssFile:")), None)


def test_npy_file_gives_back_the_pages_it_touched(tmp_path: Path):
    """Scattered reads over a 64 MiB file leave far less of it mapped than a plain memory map would."""
    if _resident_file_kib() is None:
        pytest.skip("no /proc/self/status here")
    np.save(tmp_path / "big.npy", np.arange(16 << 20, dtype=np.int32))
    starts = np.random.default_rng(0).integers(0, 16 << 20, 20_000)
    mapped = np.load(tmp_path / "big.npy", mmap_mode="r")
    before = _resident_file_kib()
    assert np.array_equal(mapped[starts], starts)
    plain = _resident_file_kib() - before
    del mapped
    reader = npy_file.NpyFile(tmp_path / "big.npy")
    before = _resident_file_kib()
    assert np.array_equal(reader.take(starts), starts)
    assert _resident_file_kib() - before < max(plain // 4, 8 << 10)


def test_a_table_build_that_stops_leaves_nothing_and_is_redone(tmp_path: Path, monkeypatch, write_jsonl):
    monkeypatch.setattr(ngram_table, "RUN_ENTRIES", 3)
    rows = [{"text": f"w{k % 5} w{k % 3} w{k % 7} w{k % 2}"} for k in range(30)]
    train = write_jsonl(tmp_path / "train.jsonl", rows)
    tests = [TestSet.from_texts("t", ["w1 w1 w1 w1", "w0 w0 w0"])]
    build_index(str(train), text_field="text", index_dir=tmp_path / "idx")
    search(str(train), test_sets=tests, ngram_size=2, index_dir=tmp_path / "idx")  # the first reads the tokens
    original_add = ngram_table._TableWriter.add

    def stop(self, keys, units):
        raise KeyboardInterrupt

    monkeypatch.setattr(ngram_table._TableWriter, "add", stop)
    with pytest.raises(KeyboardInterrupt):
        search(str(train), test_sets=tests, ngram_size=2, index_dir=tmp_path / "idx")
    (index,) = (tmp_path / "idx").glob("*.text")
    assert not [p for p in (index / "tables").iterdir() if not p.name.endswith(".lock")]  # no table, runs, staging
    killed = index / "tables" / ".ngram-2.k1lled_x.tmp"  # what a build killed outright leaves: its runs
    killed.mkdir()
    (killed / "run-000000.keys").write_bytes(b"\0" * 16)
    monkeypatch.setattr(ngram_table._TableWriter, "add", original_add)
    report = search(str(train), test_sets=tests, ngram_size=2, index_dir=tmp_path / "idx")
    scores = [instance.raw_score for instance in report.results[0].instances]
    monkeypatch.setattr(ngram_table, "RUN_ENTRIES", 1 << 18)
    fresh = tmp_path / "fresh"
    build_index(str(train), text_field="text", index_dir=fresh)
    expected = search(str(train), test_sets=tests, ngram_size=2, index_dir=fresh)
    assert scores == [instance.raw_score for instance in expected.results[0].instances] and scores[0] > 0
    assert not killed.exists()
