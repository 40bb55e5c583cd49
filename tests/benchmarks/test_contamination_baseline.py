"""The contamination benchmark's streaming baseline scores as genbench's embedded search does (on a tiny corpus).

The benchmark checks this on every run; this test keeps the baseline and the data generator from rotting between
runs of ``make bench``.
"""

from __future__ import annotations

import json

from tests.benchmark_modules import benchmark_module


def _load_benchmark():
    return benchmark_module("contamination")


def test_streaming_baseline_matches_the_embedded_search(tmp_path):
    bench = _load_benchmark()
    bench.generate(tmp_path, 30_000, 60)
    bench.write_subset(tmp_path, 10_000)
    result = tmp_path / "ours.json"
    bench.phase_genbench(tmp_path, "subset.jsonl", str(tmp_path / "indexes"), 8, 60, str(result))
    ours = json.loads(result.read_text())
    theirs = bench.baseline_scores(tmp_path / "subset.jsonl", bench._test_texts(tmp_path, 60), 8)
    assert [tuple(pair) for pair in ours] == theirs
    assert any(score == 1.0 for score, _ in theirs)  # copies of training turns are found
    assert any(0 < score < 1 for score, _ in theirs)  # and perturbed ones partly


def test_the_floor_parses_every_row_of_the_training_file(tmp_path):
    bench = _load_benchmark()
    bench.generate(tmp_path, 30_000, 60)
    lines = (tmp_path / "train.jsonl").read_bytes().count(b"\n")
    assert bench.phase_parse(tmp_path, "train.jsonl")["rows"] == lines > 100
