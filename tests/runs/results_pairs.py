"""A small, valid results file and per-sample log written by hand (no task run), for the damage tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genbench.runs.results import write_results

SHA = "a" * 64


def results_document(task_id: str = "toy_task", accuracy: float = 0.5) -> dict[str, Any]:
    """A results document that follows the schema: one model, one evaluation of one metric."""
    return {
        "schema_version": 1,
        "task": {
            "id": task_id,
            "name": "Toy task",
            "task_type": "free_form",
            "fingerprint": {"sha256": SHA, "config_sha256": SHA, "data_sha256": {"test": SHA}},
        },
        "genbench_version": "0",
        "model": {"spec": "python:predict.py:f", "kind": "python", "revision": None},
        "preparation_strategy": "prompt_based_testing",
        "seed": 42,
        "bootstrap": {"confidence": 0.95, "resamples": 10, "statistic_resamples": 10, "seed": 42},
        "evaluations": [
            {
                "shots": 0,
                "num_examples": 4,
                "prompt_builder_sha256": None,
                "primary_metric": "exact_match",
                "metrics": {"exact_match": {"value": accuracy, "ci": [0.0, 1.0]}},
            }
        ],
        "run_seconds": 1.0,
        "created": "2026-01-01T00:00:00Z",
    }


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
    document = results_document(task_id, sum(scores) / max(1, len(scores)))
    return write_results(document, folder / f"{task_id.replace(':', '.')}.json", samples(scores))
