"""Decontamination: kept + removed = total, no unmatched row lost, idempotent."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import genbench.contamination._analysis as analysis
from genbench.contamination import ContaminationError, TestSet, build_index, decontaminate, search


@pytest.fixture
def corpus(tmp_path: Path, write_jsonl, chat) -> tuple[Path, list[dict]]:
    rng = random.Random(7)
    words = ["red", "green", "blue", "fox", "dog", "cat", "runs", "jumps"]
    rows = []
    for number in range(60):
        turns = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 9))) for _ in range(rng.randint(1, 3))]
        rows.append(chat(*turns) if number % 10 else {"messages": [], "note": "no user turn"})
    return write_jsonl(tmp_path / "train.jsonl", rows), rows


def _user_turns(row: dict) -> list[list[str]]:
    return [analysis.tokenize(m["content"]) for m in row["messages"] if m["role"] == "user"]


@pytest.mark.parametrize(("ngram_size", "threshold"), [(None, None), (3, 0.5), (2, 0.0)])
def test_kept_plus_removed_is_total_and_only_matches_are_removed(
    tmp_path, corpus, ngram_size, threshold, make_backend
):
    train, rows = corpus
    tests = ["red fox jumps", "blue dog runs green cat", "cat", "nothing in common"]
    backend = make_backend()
    build_index(str(train), backend=backend)
    report = search(
        str(train),
        test_sets=[TestSet.from_texts("t", tests)],
        ngram_size=ngram_size,
        match_threshold=threshold,
        backend=backend,
    )
    (summary,) = decontaminate(report, tmp_path / "out")
    assert summary.kept + summary.removed == summary.total == len(rows)

    test_tokens = [[analysis.tokenize(t)] for t in tests]

    def matches(unit: list[str]) -> bool:
        scores = [analysis.pair_score(fields, unit, ngram_size) for fields in test_tokens]
        return any(s > threshold for s in scores) if threshold is not None else any(s == 1.0 for s in scores)

    expected = [number for number, row in enumerate(rows) if not any(matches(u) for u in _user_turns(row))]
    original_lines = train.read_text(encoding="utf-8").splitlines()
    assert summary.output.read_text(encoding="utf-8").splitlines() == [original_lines[i] for i in expected]
    assert summary.removed == len(rows) - len(expected) > 0


def test_decontamination_is_idempotent(tmp_path, corpus, make_backend):
    train, _ = corpus
    test_set = TestSet.from_texts("t", ["red fox jumps", "green cat"])
    backend = make_backend()
    build_index(str(train), backend=backend)
    report = search(str(train), test_sets=[test_set], ngram_size=2, match_threshold=0.5, backend=backend)
    (first,) = decontaminate(report, tmp_path / "out1")
    assert first.removed > 0

    build_index(str(first.output), backend=backend)
    again = search(str(first.output), test_sets=[test_set], ngram_size=2, match_threshold=0.5, backend=backend)
    assert again.results[0].score == 0.0
    (second,) = decontaminate(again, tmp_path / "out2")
    assert (second.removed, second.kept) == (0, first.kept)
    assert second.output.read_bytes() == first.output.read_bytes()


def test_scores_without_threshold_cannot_decontaminate(tmp_path, corpus):
    train, _ = corpus
    build_index(str(train), index_dir=tmp_path / "idx")
    report = search(
        str(train), test_sets=[TestSet.from_texts("t", ["red fox"])], ngram_size=2, index_dir=tmp_path / "idx"
    )
    with pytest.raises(ContaminationError, match="needs a match threshold"):
        decontaminate(report, tmp_path / "out")


def test_a_changed_training_file_is_refused(tmp_path, corpus, write_jsonl, chat):
    train, _ = corpus
    build_index(str(train), index_dir=tmp_path / "idx")
    report = search(str(train), test_sets=[TestSet.from_texts("t", ["red fox"])], index_dir=tmp_path / "idx")
    write_jsonl(train, [chat("something else")])
    with pytest.raises(ContaminationError, match="changed since it was indexed"):
        decontaminate(report, tmp_path / "out")
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.jsonl"))


def test_rows_of_a_parquet_source_are_written_as_json(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"text": ["the quick brown fox", "lorem ipsum dolor", "quick brown"], "id": [1, 2, 3]})
    pq.write_table(table, tmp_path / "train.parquet")
    build_index(str(tmp_path / "train.parquet"), text_field="text", index_dir=tmp_path / "idx")
    report = search(
        str(tmp_path / "train.parquet"),
        test_sets=[TestSet.from_texts("t", ["quick brown fox"])],
        ngram_size=2,
        match_threshold=0.7,  # "quick brown" covers 2 of 3 tokens: kept
        index_dir=tmp_path / "idx",
    )
    (summary,) = decontaminate(report, tmp_path / "out")
    assert (summary.kept, summary.removed) == (2, 1)
    assert summary.output.read_text().splitlines() == [
        '{"text": "lorem ipsum dolor", "id": 2}',
        '{"text": "quick brown", "id": 3}',
    ]
