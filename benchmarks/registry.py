"""Time the registry: ``list-tasks`` over 100 generated tasks (cold and warm metadata cache) and ``show-task``.

Usage::

    python benchmarks/registry.py [--tasks 100] [--repeats 5] [--json benchmarks/results/registry.json]

The script writes ``--tasks`` task directories into a temporary root (one in ten a TaskDict with two subtasks,
each config importing a small ``.libsonnet`` like real tasks do, each task with a JSONL test file) and points
``GENBENCH_TASKS_PATH`` at it. It reports the minimum and the median of ``--repeats`` runs of:

- whole process: ``genbench-cli list-tasks --json`` as a subprocess, *cold* (an empty genbench cache, so every
  config is evaluated and validated) and *warm* (the registry metadata cache filled by a previous run);
  ``genbench-cli show-task -t <task> --shots 0`` (loads the task's data and builds its 0-shot prompt) and
  ``genbench-cli show-task -t <task>`` (the default: 0-shot and 3-shot prompts);
- in process: :func:`genbench._registry.listing.task_records` in a process that already imported genbench, cold
  (a fresh cache directory per run) and warm.

Every run's listing is checked to hold every generated task, none broken, and warm output equals cold output.
Every ``show-task`` run's output is checked to hold the first test example's prompts and target.
Targets (issue 9): list-tasks < 0.5 s cold and < 0.2 s warm whole-process, show-task < 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

# The installed console script, as a user runs it (next to this interpreter in a virtual environment).
CLI = [shutil.which("genbench-cli", path=str(Path(sys.executable).parent)) or "genbench-cli"]


def _config(i: int, name: str) -> str:
    return (
        "local shared = import 'shared.libsonnet';\n"
        "{\n"
        f"  name: '{name} {i}',\n"
        "  description: 'A generated task for the registry benchmark.',\n"
        "  keywords: shared.keywords,\n"
        "  authors: ['bench'],\n"
        "  data_source: { type: 'manual', test: 'test.jsonl' },\n"
        "  has_train_set: false,\n"
        "  task_type: 'free_form',\n"
        "  evaluation_metrics: [{ hf_id: 'exact_match', best_score: 1.0 }],\n"
        "  preparation_strategies: { prompt_based_testing: { prompt_builder: { input_prefix: 'Q: ' } } },\n"
        "}\n"
    )


def _write_task(task_dir: Path, i: int, name: str) -> None:
    task_dir.mkdir(parents=True)
    (task_dir / "__init__.py").touch()
    (task_dir / "shared.libsonnet").write_text("{ keywords: ['bench', 'generated'] }\n")
    (task_dir / "config.jsonnet").write_text(_config(i, name))
    (task_dir / "task.py").write_text("from genbench import Task\n\n\nclass GeneratedTask(Task):\n    pass\n")
    (task_dir / "doc.md").write_text(f"# {name} {i}\n")
    rows = "".join(json.dumps({"input": f"{i} + {k}", "target": str(i + k)}) + "\n" for k in range(20))
    (task_dir / "test.jsonl").write_text(rows)


def generate_tasks(root: Path, count: int) -> list[str]:
    """Write ``count`` task directories under ``root``; every tenth is a TaskDict of two subtasks."""
    ids = []
    for i in range(count):
        task_id = f"bench_task_{i:03d}"
        task_dir = root / task_id
        if i % 10 == 9:
            task_dir.mkdir(parents=True)
            (task_dir / "__init__.py").touch()
            (task_dir / "config.jsonnet").write_text(f"{{ name: 'Bench dict {i}', subtasks_order: ['one', 'two'] }}\n")
            for sub in ("one", "two"):
                _write_task(task_dir / sub, i, f"Bench subtask {sub}")
        else:
            _write_task(task_dir, i, "Bench task")
        ids.append(task_id)
    return ids


def _time(function: Callable[[], object], repeats: int, before: Callable[[], None] | None = None) -> list[float]:
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def _summary(times: list[float]) -> dict[str, float]:
    return {"min_s": min(times), "median_s": statistics.median(times), "runs": len(times)}


def _run_cli(args: list[str], env: dict[str, str]) -> str:
    run = subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        raise SystemExit(f"genbench-cli {' '.join(args)} failed:\n{run.stderr}")
    return run.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None, help="Also write the results to this JSON file.")
    options = parser.parse_args()
    if options.repeats < 5:
        parser.error("--repeats must be at least 5 (min and median of 5+ runs)")

    with tempfile.TemporaryDirectory(prefix="genbench-registry-bench-") as scratch:
        scratch_dir = Path(scratch)
        root = scratch_dir / "tasks"
        ids = generate_tasks(root, options.tasks)
        cache = scratch_dir / "cache"
        os.environ["GENBENCH_TASKS_PATH"] = str(root)
        os.environ["GENBENCH_CACHE"] = str(cache)
        os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        env = dict(os.environ)

        def clear_cache() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        outputs: list[str] = []

        def listing() -> None:
            outputs.append(_run_cli(["list-tasks", "--json"], env))

        results: dict[str, dict[str, float]] = {}
        results["list_tasks_cold_process"] = _summary(_time(listing, options.repeats, before=clear_cache))
        cold_output = outputs[-1]
        listing()  # fills the cache (already filled by the last cold run; kept explicit)
        results["list_tasks_warm_process"] = _summary(_time(listing, options.repeats))
        records = json.loads(cold_output)
        generated = {r["id"] for r in records if r["path"].startswith(str(root))}
        assert generated == set(ids), "the listing misses generated tasks"
        assert not [r["id"] for r in records if r["error"]], "a generated task is listed as broken"
        assert all(output == cold_output for output in outputs), "warm listings differ from the cold one"

        show_id = ids[0]
        shown: list[str] = []

        def show(*args: str) -> Callable[[], None]:
            return lambda: shown.append(_run_cli(["show-task", "-i", show_id, *args], env))

        results["show_task_process"] = _summary(_time(show("--shots", "0"), options.repeats))
        results["show_task_default_process"] = _summary(_time(show(), options.repeats))
        # The first test example's 0-shot prompt and target, in every run; the default adds the 3-shot prompt.
        first_example = (
            "--- 0-shot prompt (test example 0) ---\n(genbench prompts: 0-shot, queries from the 'test' split, "
        )
        assert all(first_example in output and "Q: 0 + 0\nA: \n--- target ---\n0\n" in output for output in shown)
        assert all(("--- 3-shot prompt" in output) == (i >= options.repeats) for i, output in enumerate(shown))

        from genbench._registry.listing import task_records

        counter = iter(range(10**6))

        def fresh_cache_dir() -> None:
            os.environ["GENBENCH_CACHE"] = str(scratch_dir / f"cache_in_process_{next(counter)}")

        task_records()  # imports what a first listing imports, so the in-process figures time the listing itself
        results["list_tasks_cold_in_process"] = _summary(_time(task_records, options.repeats, before=fresh_cache_dir))
        results["list_tasks_warm_in_process"] = _summary(_time(task_records, options.repeats))

    import genbench

    report = {
        "benchmark": "registry",
        "tasks": options.tasks,
        "task_dirs_with_subtasks": options.tasks // 10,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version()},
        "genbench": genbench.__version__,
        "targets_s": {
            "list_tasks_cold_process": 0.5,
            "list_tasks_warm_process": 0.2,
            "show_task_process": 0.5,
            "show_task_default_process": 0.5,
        },
        "results": results,
    }
    print(f"registry benchmark: {options.tasks} tasks, {options.repeats} runs each (min / median, seconds)")
    for name, summary in results.items():
        target = report["targets_s"].get(name)
        verdict = (
            "" if target is None else f"  target < {target}: {'met' if summary['median_s'] < target else 'MISSED'}"
        )
        print(f"  {name:<30} {summary['min_s']:.3f} / {summary['median_s']:.3f}{verdict}")
    if options.json is not None:
        options.json.parent.mkdir(parents=True, exist_ok=True)
        options.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
