"""Time reading a results file and its per-sample log: each line checked by the typed model against the engines.

Usage::

    python benchmarks/results_reading.py [--rows 50000] [--runs 5]

Writes one results file with a ``--rows``-line per-sample log (through ``genbench.runs._results.write_results``) into
a temporary directory, then times ``read_results`` on it, alternating in the same run:

- ``model``: as shipped, every line checked by the typed model (pydantic, ``Sample``);
- ``jsonschema``: every line checked by jsonschema's ``Draft202012Validator`` against the shipped schema (the reference
  that tests/runs/test_results_sample_validation.py holds the model to);
- ``fastjsonschema``: every line checked by fastjsonschema's compiled validator first (how logs were read before the
  model checked them), when fastjsonschema is installed (it is no dependency of genbench).

All readings must return identical documents and rows. Reports the minimum and median of each and the ratios of the
medians; ``benchmarks/results/results_reading.json`` records them (rendered into docs/performance.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import row, summary, versions, write_results  # noqa: E402
from _results_document import results_document  # noqa: E402

import genbench.runs._results as results  # noqa: E402


def samples(count: int) -> list[dict[str, object]]:
    """Rows the shape a generation task's log has: a prompt, an output, a target and two metrics."""
    return [
        {
            "shots": 0,
            "_genbench_idx": number,
            "prompt": f"Question {number}: what is {number} plus {number}?\nAnswer:",
            "raw_output": f" {2 * number} is the answer.",
            "prediction": str(2 * number),
            "target": str(2 * number),
            "metrics": {"exact_match": 1.0, "f1": 0.5 if number % 3 else None},
        }
        for number in range(count)
    ]


def sample_schema() -> dict[str, Any]:
    schema: dict[str, Any] = {**json.loads(results.results_schema_text()), "$ref": "#/$defs/sample"}
    for key in ("required", "properties", "additionalProperties", "type"):
        schema.pop(key, None)
    return schema


def jsonschema_check() -> Callable[[Any], list[str]]:
    import jsonschema

    validator = jsonschema.Draft202012Validator(sample_schema())
    return lambda record: [error.message for error in validator.iter_errors(record)]


def fastjsonschema_check() -> Callable[[Any], list[str]]:
    import fastjsonschema

    compiled, reference = fastjsonschema.compile(sample_schema()), jsonschema_check()

    def check(record: Any) -> list[str]:
        try:
            compiled(record)
        except fastjsonschema.JsonSchemaException:
            return reference(record)  # as before: jsonschema named the problems of a line the compiled check refused
        return []

    return check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50_000, help="lines of the per-sample log")
    parser.add_argument("--runs", type=int, default=5, help="timed readings of each kind (>= 5 for reported figures)")
    args = parser.parse_args()

    shipped = results.schema_problems
    checks: dict[str, Callable[[Any], list[str]] | None] = {"model": None, "jsonschema": jsonschema_check()}
    if importlib.util.find_spec("fastjsonschema"):
        checks["fastjsonschema"] = fastjsonschema_check()

    def with_line_check(check: Callable[[Any], list[str]]) -> Callable[..., list[str]]:
        return lambda document, definition=None: check(document) if definition == "sample" else shipped(document)

    timings: dict[str, list[float]] = {kind: [] for kind in checks}
    with tempfile.TemporaryDirectory() as folder:
        document = results_document(
            "bench_task", name="Benchmark task", num_examples=args.rows, accuracy=1.0, ci=(1.0, 1.0)
        )
        path = results.write_results(document, Path(folder) / "bench_task.json", samples(args.rows))
        read: dict[str, object] = {}
        for _ in range(args.runs):
            for kind, check in checks.items():  # alternated, so that a busy spell slows each
                results.schema_problems = shipped if check is None else with_line_check(check)  # type: ignore[assignment]
                start = time.perf_counter()
                read[kind] = results.read_results(path)
                timings[kind].append(time.perf_counter() - start)
        results.schema_problems = shipped  # type: ignore[assignment]
        if any(reading != read["model"] for reading in read.values()):
            raise SystemExit("the readings differ")
    figures = {kind: summary(seconds) for kind, seconds in timings.items()}
    ratios = {kind: figures[kind]["median"] / figures["model"]["median"] for kind in figures if kind != "model"}
    print(f"read_results, {args.rows:,}-row per-sample log, {args.runs} runs each:")
    print(row("typed model on every line (shipped)", figures["model"]))
    print(row("jsonschema on every line", figures["jsonschema"]))
    if "fastjsonschema" in figures:
        print(row("compiled validator first (fastjsonschema, before)", figures["fastjsonschema"]))
    print("  medians against the model's: " + ", ".join(f"{kind} {ratio:.2f}x" for kind, ratio in ratios.items()))
    write_results(
        "results_reading",
        {
            "rows": args.rows,
            "figures": figures,
            "ratios": ratios,
            "versions": versions("pydantic", *(kind for kind in checks if kind != "model")),
        },
    )


if __name__ == "__main__":
    main()
