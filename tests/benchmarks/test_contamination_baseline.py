"""The contamination benchmark's streaming baseline scores as genbench's embedded search does (on a tiny corpus).

The benchmark checks this on every run; this test keeps the baseline and the data generator from rotting between
runs of ``make bench``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load_benchmark():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("contamination_benchmark", BENCHMARKS / "contamination.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


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
