"""Time reading a results file and its per-sample log: jsonschema on every line (before) against the compiled check.

Usage::

    python benchmarks/results_reading.py [--rows 50000] [--runs 5]

Writes one results file with a ``--rows``-line per-sample log (through ``genbench.runs._results.write_results``) into
a temporary directory, then times ``read_results`` on it, alternating in the same run:

- ``jsonschema``: every line checked by jsonschema's ``Draft202012Validator`` alone (how it was read before: the
  compiled validator switched off by emptying ``FAST_DEFINITIONS``);
- ``compiled``: as shipped, every line checked by fastjsonschema's compiled validator first (jsonschema only for a
  line it refuses, to name the problems).

Both readings must return identical documents and rows. Reports the minimum and median of each and the ratio of the
medians; ``benchmarks/results/results_reading.json`` records them (rendered into docs/performance.md).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50_000, help="lines of the per-sample log")
    parser.add_argument("--runs", type=int, default=5, help="timed readings of each kind (>= 5 for reported figures)")
    args = parser.parse_args()

    shipped = results.FAST_DEFINITIONS
    timings: dict[str, list[float]] = {"jsonschema": [], "compiled": []}
    with tempfile.TemporaryDirectory() as folder:
        document = results_document(
            "bench_task", name="Benchmark task", num_examples=args.rows, accuracy=1.0, ci=(1.0, 1.0)
        )
        path = results.write_results(document, Path(folder) / "bench_task.json", samples(args.rows))
        read: dict[str, object] = {}
        for _ in range(args.runs):
            for kind in ("jsonschema", "compiled"):  # alternated, so that a busy spell slows both
                results.FAST_DEFINITIONS = shipped if kind == "compiled" else frozenset()
                start = time.perf_counter()
                read[kind] = results.read_results(path)
                timings[kind].append(time.perf_counter() - start)
        results.FAST_DEFINITIONS = shipped
        if read["jsonschema"] != read["compiled"]:
            raise SystemExit("the two readings differ")
    figures = {kind: summary(seconds) for kind, seconds in timings.items()}
    ratio = figures["jsonschema"]["median"] / figures["compiled"]["median"]
    print(f"read_results, {args.rows:,}-row per-sample log, {args.runs} runs each:")
    print(row("jsonschema on every line (before)", figures["jsonschema"]))
    print(row("compiled validator first (fastjsonschema)", figures["compiled"]))
    print(f"  ratio of medians: {ratio:.1f}x")
    write_results(
        "results_reading",
        {
            "rows": args.rows,
            "figures": figures,
            "ratio": ratio,
            "versions": versions("jsonschema", "fastjsonschema"),
        },
    )


if __name__ == "__main__":
    main()
