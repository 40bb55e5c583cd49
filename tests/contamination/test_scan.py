"""The one-shot scan against index + search: the same report, whatever path the data takes through the scan.

The scan reads plain JSONL from its bytes in blocks, on threads, and anything else through the dataset loader; it
tokenises on bytes for ASCII texts and with the analyzer for others, and keys long tokens by hash. Each of those
paths is made to run here (tiny blocks, forced hash collisions, odd files) and must give what the embedded index
gives: scores, matches (unit ids, rows, turns, spans, previews), matched units and rows.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.json as paj
import pytest

import genbench.contamination._oneshot as scan_module
from genbench._core.errors import GenBenchError
from genbench.contamination import ContaminationError, TestSet, build_index, decontaminate, search
from genbench.contamination._analysis import tokenize
from genbench.contamination._oneshot import scan
from genbench.contamination._token_keys import keys_of_tokens, span_token_keys, string_spans
from genbench.contamination._training_data import UnitSpec
from genbench.contamination._units import unit_spans
from genbench.data._jsonl import plain_object_lines

WORDS = ["the", "cat", "sat", "on", "mat", "Paris", "CAFÉ", "東京", "a_very_long_token_indeed", "x1", "ΟΔΟΣ"]


def _text(rng: random.Random, length: int) -> str:
    words = [rng.choice(WORDS) for _ in range(length)]
    glue = [rng.choice([" ", "  ", ", ", "!", "\n", "-"]) for _ in words]
    return "".join(w + g for w, g in zip(words, glue, strict=True)).strip()


def _chat_rows(seed: int, count: int = 60) -> tuple[list[dict], list[str]]:
    rng = random.Random(seed)
    rows, user_texts = [], []
    for number in range(count):
        messages = []
        for _ in range(rng.randint(0, 3)):
            text = _text(rng, rng.randint(0, 12))
            user_texts.append(text)
            messages.append({"role": "user", "content": text})
            messages.append({"role": "assistant", "content": _text(rng, rng.randint(0, 6))})
        if number % 17 == 5:
            messages.append({"role": "user", "content": None})
        rows.append({"id": number, "messages": messages})
    return rows, user_texts


def _tests(seed: int, user_texts: list[str], count: int = 25) -> TestSet:
    rng = random.Random(seed + 100)
    texts = []
    for _ in range(count):
        if user_texts and rng.random() < 0.5:
            source = tokenize(rng.choice(user_texts))
            start = rng.randint(0, max(len(source) - 1, 0))
            texts.append(" ".join(source[start : start + rng.randint(1, 10)]))
        else:
            texts.append(_text(rng, rng.randint(0, 10)))
    return TestSet.from_texts("random", texts)


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=bool(len(rows) % 2)) + "\n" for row in rows), "utf-8")
    return path


def _same(scanned, searched) -> None:
    assert len(scanned.results) == len(searched.results)
    for ours, theirs in zip(scanned.results, searched.results, strict=True):
        assert [i.to_json() for i in ours.instances] == [i.to_json() for i in theirs.instances]
        assert ours.score == theirs.score
        for name in ("matched_units", "matched_rows"):
            mine, other = getattr(ours, name), getattr(theirs, name)
            assert (mine is None) == (other is None)
            if mine is not None:
                assert mine.tolist() == other.tolist()
    assert scanned.table() == searched.table()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    ("ngram_size", "threshold", "top_k"), [(None, None, 1), (2, 0.3, 3), (3, None, 2), (1, 0.5, 1)]
)
def test_scan_gives_the_report_of_index_and_search(tmp_path, monkeypatch, seed, ngram_size, threshold, top_k):
    monkeypatch.setattr(scan_module, "BLOCK_BYTES", [64, 1 << 20][seed % 2])  # tiny blocks: many, on threads
    rows, user_texts = _chat_rows(seed)
    train = _write(tmp_path / "train.jsonl", rows)
    tests = [_tests(seed, user_texts), _tests(seed + 7, user_texts)]
    build_index(str(train), index_dir=tmp_path / "indexes")
    searched = search(
        str(train),
        test_sets=tests,
        ngram_size=ngram_size,
        match_threshold=threshold,
        top_k=top_k,
        index_dir=tmp_path / "indexes",
    )
    scanned = scan(str(train), test_sets=tests, ngram_size=ngram_size, match_threshold=threshold, top_k=top_k)
    _same(scanned, searched)
    manifest = next(iter(scanned.manifests.values()))
    assert manifest["source"] == next(iter(searched.manifests.values()))["source"]  # same fingerprint and rows
    assert manifest["counts"]["units"] == next(iter(searched.manifests.values()))["counts"]["units"]


@pytest.mark.parametrize("hash_bits", [4, 12])
def test_forced_hash_collisions_do_not_change_results(tmp_path, monkeypatch, hash_bits):
    monkeypatch.setattr(scan_module, "BLOCK_BYTES", 200)
    rows, user_texts = _chat_rows(11, count=80)
    train = _write(tmp_path / "train.jsonl", rows)
    tests = [_tests(11, user_texts, count=40)]
    for ngram_size in (None, 2, 4):
        plain = scan(str(train), test_sets=tests, ngram_size=ngram_size, top_k=2)
        colliding = scan(str(train), test_sets=tests, ngram_size=ngram_size, top_k=2, hash_bits=hash_bits)
        _same(colliding, plain)
        assert any(r.raw_score > 0 for r in plain.results[0].instances)


def _index_and_scan(tmp_path: Path, train: Path, tests: list[TestSet], **options) -> tuple:
    spec = {k: options.pop(k) for k in ("text_field", "query_filter", "messages_field") if k in options}
    build_index(str(train), index_dir=tmp_path / "indexes", **spec)
    searched = search(str(train), test_sets=tests, index_dir=tmp_path / "indexes", **options)
    return scan(str(train), test_sets=tests, **spec, **options), searched


def test_files_the_fast_reader_refuses_take_the_careful_path(tmp_path, monkeypatch):
    """Blank lines, a block whose messages are not objects, Parquet, and a type change between blocks."""
    monkeypatch.setattr(scan_module, "BLOCK_BYTES", 150)
    rows, user_texts = _chat_rows(3)
    tests = [_tests(3, user_texts)]
    blank = tmp_path / "blank.jsonl"
    blank.write_text(
        "\n".join(json.dumps(r) for r in rows[:10]) + "\n\n" + "\n".join(json.dumps(r) for r in rows[10:])
    )
    changing = tmp_path / "changing.jsonl"  # `content` is a number in a late row: not the explicit schema
    changed = [*rows, {"messages": [{"role": "user", "content": 12345}]}]
    _write(changing, changed)
    parquet = tmp_path / "rows.parquet"
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), parquet)
    for train in (blank, parquet):
        scanned, searched = _index_and_scan(tmp_path / train.stem, train, tests, ngram_size=2, top_k=2)
        _same(scanned, searched)
    # The loader refuses a field whose type changes; so does the scan, with the loader's message (file, line).
    with pytest.raises(GenBenchError) as indexing:
        build_index(str(changing), index_dir=tmp_path / "changing")
    with pytest.raises(GenBenchError) as scanning:
        scan(str(changing), test_sets=tests)
    assert str(scanning.value) == str(indexing.value) and "line 61" in str(scanning.value)


def test_text_fields_of_any_type(tmp_path, monkeypatch):
    monkeypatch.setattr(scan_module, "BLOCK_BYTES", 100)
    rng = random.Random(5)
    values = [_text(rng, rng.randint(0, 8)) for _ in range(30)]
    values[3] = None  # type: ignore[call-overload]
    train = _write(tmp_path / "text.jsonl", [{"text": v} for v in values])
    lists = _write(tmp_path / "lists.jsonl", [{"text": (v or "").split()} for v in values] + [{"text": None}])
    numbers = _write(tmp_path / "numbers.jsonl", [{"text": number * 7.5} for number in range(30)])
    tests = [TestSet.from_texts("t", [values[0], "cat sat", "7", values[5][:12], "52 5", "15"])]
    for path in (train, lists, numbers):
        scanned, searched = _index_and_scan(tmp_path / path.stem, path, tests, ngram_size=1, text_field="text")
        _same(scanned, searched)


def test_multi_field_test_sets_and_every_message(tmp_path):
    rows, user_texts = _chat_rows(8)
    train = _write(tmp_path / "train.jsonl", rows)
    rng = random.Random(8)
    test_set = TestSet("pairs", ("q", "a"), [(rng.choice(user_texts), _text(rng, 4)) for _ in range(15)])
    for ngram_size in (None, 2):
        scanned, searched = _index_and_scan(
            tmp_path / str(ngram_size), train, [test_set], ngram_size=ngram_size, query_filter=None
        )
        _same(scanned, searched)


def test_decontaminating_from_a_scan(tmp_path):
    rows, user_texts = _chat_rows(2)
    train = _write(tmp_path / "train.jsonl", rows)
    tests = [_tests(2, user_texts)]
    scanned, searched = _index_and_scan(tmp_path, train, tests, ngram_size=2, match_threshold=0.4)
    ours = decontaminate(scanned, tmp_path / "from-scan")
    theirs = decontaminate(searched, tmp_path / "from-index")
    assert ours[0].removed == theirs[0].removed > 0
    assert ours[0].output.read_bytes() == theirs[0].output.read_bytes()
    _write(train, rows[1:])  # the training data changed since the scan
    with pytest.raises(ContaminationError, match="changed since"):
        decontaminate(scanned, tmp_path / "again")


def test_scan_errors_are_the_index_builds(tmp_path):
    """Missing, empty, field-less or unit-less data: the scan fails as the index build does, with its message."""
    tests = [TestSet.from_texts("t", ["a b"])]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    no_field = _write(tmp_path / "plain.jsonl", [{"text": "a b"}])
    assistants = _write(tmp_path / "assistants.jsonl", [{"messages": [{"role": "assistant", "content": "a b"}]}])
    for train, expected in [
        (tmp_path / "missing.jsonl", "does not exist"),
        (empty, "empty"),
        (no_field, "no field 'messages'"),
        (assistants, "the values of 'role' are \\['assistant'\\]"),
    ]:
        with pytest.raises(GenBenchError, match=expected) as indexing:
            build_index(str(train), index_dir=tmp_path / "indexes")
        with pytest.raises(GenBenchError) as scanning:
            scan(str(train), test_sets=tests)
        assert str(scanning.value) == str(indexing.value)
    with pytest.raises(ContaminationError, match="top_k"):
        scan(str(no_field), test_sets=tests, top_k=0)
    with pytest.raises(ContaminationError, match="match-threshold"):
        scan(str(no_field), test_sets=tests, ngram_size=2, match_threshold=2.0)


def test_token_keys_are_the_analyzers_tokens():
    rng = random.Random(0)
    alphabet = "abcXYZ _-.,!?\n\t0123456789éÉßİςΣ東京\x00\x1e"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(2000)]
    texts += ["a" * rng.randint(1, 30) + " " + "B" * rng.randint(5, 20) for _ in range(200)]
    texts += [None, "ab", "cd", "", "ef"]  # type: ignore[list-item]
    for group in (texts, [t for t in texts if t is None or t.isascii()]):
        array = pa.array(group)
        for view in (array, array.slice(5)):
            keys = span_token_keys(*string_spans(view))
            for number, text in enumerate(view.to_pylist()):
                expected, lengths = keys_of_tokens(tokenize(text or ""))
                assert keys.keys[keys.first[number] : keys.first[number + 1]].tolist() == expected.tolist(), text
                assert keys.lengths[keys.first[number] : keys.first[number + 1]].tolist() == lengths.tolist()
    # Texts that are every other range of a buffer (the others are masked), some adjacent without a separator.
    data = "".join(t or "" for t in texts).encode()
    sizes = [len((t or "").encode()) for t in texts]
    ends = np.cumsum(sizes)
    chosen = np.array(sorted({*range(0, len(texts), 2), *range(1, len(texts), 7)}))
    keys = span_token_keys(data, (ends - sizes)[chosen], ends[chosen])
    for row, number in enumerate(chosen.tolist()):
        expected, _ = keys_of_tokens(tokenize(texts[number] or ""))
        assert keys.keys[keys.first[row] : keys.first[row + 1]].tolist() == expected.tolist()


def test_unit_spans_follow_nulls_and_slices():
    rows = [
        {"messages": [{"role": "user", "content": "A"}, {"role": "assistant", "content": "B"}]},
        {"messages": None},
        {"messages": [None, {"role": None, "content": "C"}, {"role": "user", "content": None}]},
        {"messages": []},
        {"messages": [{"role": "users", "content": "D"}, {"role": "user", "content": "E"}]},
    ]
    table = pa.Table.from_pylist(rows)
    units = unit_spans(table, UnitSpec())
    assert [units.text(u) for u in range(len(units))] == ["A", "", "E"]
    assert units.rows.tolist() == [0, 2, 4] and units.turns.tolist() == [0, 2, 1]
    sliced = unit_spans(table.slice(2), UnitSpec())
    assert [sliced.text(u) for u in range(len(sliced))] == ["", "E"] and sliced.rows.tolist() == [0, 2]
    every = unit_spans(table, UnitSpec(query_filter=None))
    assert [every.text(u) for u in range(len(every))] == ["A", "B", "C", "", "D", "E"]
    parsed = paj.read_json(pa.BufferReader("".join(json.dumps(r) + "\n" for r in rows).encode()))
    assert unit_spans(parsed, UnitSpec()).rows.tolist() == [0, 2, 4]


def test_plain_object_lines():
    assert plain_object_lines(b'{"a": 1}\n{"b": 2}\n') == 2
    assert plain_object_lines(b'{"a": 1}\n{"b": 2}') == 2
    assert plain_object_lines(b'{"a": 1}\n\n{"b": 2}\n') is None
    assert plain_object_lines(b' {"a": 1}\n') is None
    assert plain_object_lines(b"null\n") is None


def test_scanning_and_indexing_keep_pandas_out(tmp_path):
    """pyarrow imports pandas (~50 MiB, ~0.5 s) when it converts Python values: neither the scan of plain JSONL nor
    an index build and search do."""
    rows, user_texts = _chat_rows(1)
    train = _write(tmp_path / "train.jsonl", rows)
    tests = f"[TestSet.from_texts('t', {user_texts[:3]!r})]"
    code = (
        "import sys\n"
        "from genbench.contamination import TestSet, build_index, scan, search\n"
        f"report = scan({str(train)!r}, test_sets={tests}, ngram_size=2)\n"
        "assert report.results[0].score > 0\n"
        f"build_index({str(train)!r}, index_dir={str(tmp_path / 'indexes')!r})\n"
        f"report = search({str(train)!r}, test_sets={tests}, ngram_size=2, index_dir={str(tmp_path / 'indexes')!r})\n"
        "assert report.results[0].score > 0\n"
        "print('pandas' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_the_heap_setting_is_scoped_and_optional(monkeypatch):
    import genbench.contamination._allocator as allocator

    calls = []
    monkeypatch.setattr(allocator, "_mallopt", lambda: lambda option, value: calls.append((option, value)) or 1)
    with allocator.reused_heap() as applied:
        assert applied and calls == [(allocator.M_MMAP_THRESHOLD, allocator.STREAMING), (-1, allocator.STREAMING)]
    assert calls[2:] == [(allocator.M_MMAP_THRESHOLD, allocator.GLIBC_DEFAULT), (-1, allocator.GLIBC_DEFAULT)]
    monkeypatch.setattr(allocator, "_mallopt", lambda: None)  # not glibc: nothing to do, the scan still runs
    with allocator.reused_heap() as applied:
        assert applied is False


def test_large_arrow_types_read_alike_in_scan_and_index(tmp_path):
    """Parquet written with 64-bit offsets (large_list, large_string): one unit selection serves both paths."""
    import pyarrow.parquet as pq

    rows, user_texts = _chat_rows(6)
    message = pa.struct([("role", pa.large_string()), ("content", pa.large_string())])
    table = pa.Table.from_pylist(
        [{"messages": row["messages"]} for row in rows],
        schema=pa.schema([("messages", pa.large_list(message))]),
    )
    parquet = tmp_path / "large.parquet"
    pq.write_table(table, parquet)
    scanned, searched = _index_and_scan(tmp_path, parquet, [_tests(6, user_texts)], ngram_size=2, top_k=2)
    _same(scanned, searched)
    assert any(i.raw_score > 0 for i in scanned.results[0].instances)


def test_an_empty_filter_value_matches_null_keys_in_scan_and_index(tmp_path):
    """`role:` selects messages whose role is empty or null (a null reads as the empty text) on both paths."""
    rows = [
        {"messages": [{"role": None, "content": "alpha beta"}, {"role": "", "content": "gamma delta"}]},
        {"messages": [{"role": "user", "content": "alpha beta gamma"}]},
    ]
    train = _write(tmp_path / "train.jsonl", rows)
    tests = [TestSet.from_texts("t", ["alpha beta", "gamma delta", "beta gamma"])]
    scanned, searched = _index_and_scan(tmp_path, train, tests, ngram_size=2, query_filter="role:")
    _same(scanned, searched)
    assert [i.raw_score for i in scanned.results[0].instances] == [1.0, 1.0, 0.0]
