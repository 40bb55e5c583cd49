"""Time a leaderboard build (``build_leaderboard``): 10 models x 10 tasks, each results file with a per-sample log.

Usage::

    python benchmarks/leaderboard.py [--models 10] [--tasks 10] [--rows 500] [--runs 5] [--src DIR ...] [--no-write]

Writes ``--models`` x ``--tasks`` results files (through ``genbench.runs._results.write_results``, so each records
its log's SHA-256) with ``--rows``-line per-sample logs shaped like a multiple-choice task's, into a temporary
directory, then times :func:`genbench._leaderboard.build_leaderboard` on them (reading and checking every file and
log, ranking with 1000 bootstrap rounds, writing every page).

Each timed build runs in a child process that has already imported genbench (only the build is timed). With several
``--src`` folders (e.g. ``--src /work/main/src --src src``) the children import genbench from each in turn,
alternating run by run, so that a busy spell of the machine slows all of them: the way to compare two versions of the
code in one run. Every build's ranking (``leaderboard.json``'s ``models``) is checked equal to the first tree's.
Reports the minimum and median per tree; ``benchmarks/results/leaderboard.json`` records them unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, row, summary, write_results  # noqa: E402

METRIC = "hf_accuracy__accuracy"

# The child: import genbench from the tree it is given, build once, print the seconds and the digest of the ranking
# (``leaderboard.json``'s models: ranks, means, intervals, per-task scores), which every tree must agree on.
CHILD = """
import hashlib, json, sys, time
from pathlib import Path
from genbench._leaderboard import build_leaderboard
results, site = Path(sys.argv[1]), Path(sys.argv[2])
start = time.perf_counter()
built = build_leaderboard([results], site)
seconds = time.perf_counter() - start
models = json.loads(built.data.read_text())["models"]
for model in models:  # written by newer trees only: left out so that older ones compare
    model.pop("rank_interval", None)
ranking = json.dumps(models, sort_keys=True).encode()
print(seconds, hashlib.sha256(ranking).hexdigest(), len(built.standings.models))
"""


def document(task: int, model: int, rows: int, scores: list[float]) -> dict[str, Any]:
    """A results document of model ``model`` on task ``task`` (one 0-shot evaluation, accuracy)."""
    from genbench._core.bootstrap import bootstrap_mean_interval
    from genbench.runs._results import canonical_sha256

    low, high = bootstrap_mean_interval(scores, resamples=200, seed=42)
    task_id = f"bench_task_{task}"
    return {
        "schema_version": 1,
        "task": {
            "id": task_id,
            "name": f"Benchmark task {task}",
            "task_type": "multiple_choice",
            "keywords": ["benchmark"],
            "fingerprint": {
                "sha256": canonical_sha256([task_id]),
                "config_sha256": canonical_sha256(["config", task_id]),
                "data_sha256": {"test": canonical_sha256(["data", task_id])},
            },
        },
        "genbench_version": "bench",
        "model": {"spec": f"hf:bench/model-{model}", "kind": "hf", "revision": None},
        "preparation_strategy": "prompt_based_testing",
        "seed": 42,
        "limit": None,
        "bootstrap": {"confidence": 0.95, "resamples": 200, "statistic_resamples": 20, "seed": 42},
        "evaluations": [
            {
                "shots": 0,
                "num_examples": rows,
                "prompt_builder_sha256": None,
                "primary_metric": METRIC,
                "metrics": {METRIC: {"value": sum(scores) / rows, "ci": [low, high], "ci_method": "bootstrap_mean"}},
            }
        ],
        "run_seconds": 1.0,
        "created": "2026-01-01T00:00:00+00:00",
    }


def samples(rows: int, scores: list[float]) -> list[dict[str, Any]]:
    """Per-sample rows the shape a multiple-choice log has: prompt, output, prediction, target, one metric."""
    return [
        {
            "shots": 0,
            "_genbench_idx": i,
            "prompt": f"Question {i}: which of the options is the odd one out?\nOptions: a, b, c, d\nAnswer:",
            "raw_output": [-1.5, -2.25, -0.5, -3.0],
            "prediction": i % 4,
            "target": 2,
            "metrics": {METRIC: score},
        }
        for i, score in enumerate(scores)
    ]


def write_board(root: Path, models: int, tasks: int, rows: int) -> None:
    import numpy as np

    from genbench.runs._results import write_results as write_results_file

    rng = np.random.default_rng(0)
    for model in range(models):
        for task in range(tasks):
            scores = [float(s) for s in rng.random(rows) < 0.3 + 0.04 * model]
            path = root / f"model-{model}" / f"bench_task_{task}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            write_results_file(document(task, model, rows, scores), path, samples(rows, scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--rows", type=int, default=500, help="lines of each per-sample log")
    parser.add_argument("--runs", type=int, default=5, help="timed builds per tree (>= 5 for reported figures)")
    parser.add_argument("--src", action="append", help="a src/ folder to import genbench from (default: this tree)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave benchmarks/results alone")
    args = parser.parse_args()
    trees = [str(Path(s).resolve()) for s in (args.src or [str(REPO_ROOT / "src")])]

    timings: dict[str, list[float]] = {tree: [] for tree in trees}
    with tempfile.TemporaryDirectory() as folder:
        results = Path(folder) / "results"
        write_board(results, args.models, args.tasks, args.rows)
        digests: set[str] = set()
        for run in range(args.runs):
            for tree in trees:  # alternated, so that a busy spell slows every tree
                env = {**os.environ, "PYTHONPATH": tree}
                site = Path(folder) / f"site-{run}-{trees.index(tree)}"
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, str(results), str(site)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if out.returncode != 0:
                    raise SystemExit(f"the build with {tree} failed:\n{out.stderr}")
                seconds, digest, ranked = out.stdout.split()
                if int(ranked) != args.models:
                    raise SystemExit(f"{tree}: {ranked} models ranked, not {args.models}")
                digests.add(digest)
                timings[tree].append(float(seconds))
        if len(digests) != 1:
            raise SystemExit("the builds' rankings (leaderboard.json models) differ between runs or trees")
    figures = {tree: summary(seconds) for tree, seconds in timings.items()}
    print(f"build_leaderboard, {args.models} models x {args.tasks} tasks x {args.rows}-row logs, {args.runs} runs:")
    for tree, figure in figures.items():
        print(row(tree[-58:], figure))
    if not args.no_write:
        write_results(
            "leaderboard",
            {"models": args.models, "tasks": args.tasks, "rows": args.rows, "figures": figures},
        )


if __name__ == "__main__":
    main()
