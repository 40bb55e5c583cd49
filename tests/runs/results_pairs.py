"""A small, valid results file and per-sample log written without a task run, for the damage tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genbench.runs._results import write_results
from tests.benchmark_modules import benchmark_module

results_document = benchmark_module("_results_document").results_document
"""``results_document(task_id="toy_task", accuracy=0.5, ...)``: the builder of ``benchmarks/_results_document.py``."""


def samples(scores: list[float]) -> list[dict[str, Any]]:
    """Per-sample rows with the given ``exact_match`` scores."""
    return [
        {
            "shots": 0,
            "_genbench_idx": index,
            "prompt": f"Q{index}",
            "raw_output": "a",
            "prediction": "a",
            "target": "a" if score else "b",
            "metrics": {"exact_match": score},
        }
        for index, score in enumerate(scores)
    ]


def write_pair(folder: Path, scores: list[float] | None = None, task_id: str = "toy_task") -> Path:
    """Write ``<task>.json`` and ``<task>.samples.jsonl`` into ``folder``; returns the results file."""
    scores = [1.0, 0.0, 1.0, 0.0] if scores is None else scores
    document = results_document(task_id, accuracy=sum(scores) / max(1, len(scores)))
    return write_results(document, folder / f"{task_id.replace(':', '.')}.json", samples(scores))
