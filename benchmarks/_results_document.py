"""A small results document that follows the results schema, built without running a task.

The one builder of such a document: ``results_reading.py`` times reading one, and the damage tests
(``tests/runs/results_pairs.py``, importing this file by path through ``tests/benchmark_modules.py``) write and break
one. Its fields are those ``genbench.runs._results.write_results`` checks: one model, one evaluation of one metric.
"""

from __future__ import annotations

from typing import Any

SHA = "a" * 64
"""The stand-in SHA-256 of every fingerprint."""


def results_document(
    task_id: str = "toy_task",
    *,
    name: str = "Toy task",
    num_examples: int = 4,
    accuracy: float = 0.5,
    ci: tuple[float, float] = (0.0, 1.0),
) -> dict[str, Any]:
    """A results document of ``task_id`` (a free-form task) with ``exact_match`` = ``accuracy`` over
    ``num_examples`` zero-shot examples, its confidence interval ``ci``."""
    return {
        "schema_version": 1,
        "task": {
            "id": task_id,
            "name": name,
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
                "num_examples": num_examples,
                "prompt_builder_sha256": None,
                "primary_metric": "exact_match",
                "metrics": {"exact_match": {"value": accuracy, "ci": list(ci)}},
            }
        ],
        "run_seconds": 1.0,
        "created": "2026-01-01T00:00:00Z",
    }
