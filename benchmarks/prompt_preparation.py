"""Prompt preparation: genbench against the original GenBench framework, both run in this benchmark.

Usage::

    GENBENCH_ORIG_SRC=/path/to/genbench_cbt make bench-anchors   # once: the original's venv with its pins
    python benchmarks/prompt_preparation.py [--rows 20000] [--runs 5]

The data are a seeded multiple-choice task written as JSONL files: ``--rows`` test and ``--rows`` train examples,
~20-word inputs and 4 options each, ``permute_choices`` on, ``shot_list=[0, 5]``. The same task folder (same
config and files) is registered with both frameworks, and both run the same calls
(``load_task(id).get_prepared_datasets(PROMPT_BASED_TESTING, shot_list=[0, 5])``, see ``_prompt_child.py``), each
in processes of its own interpreter:

* whole process: a fresh interpreter imports the framework, loads the task and prepares the prompts; wall time of
  the process, interpreter start included;
* in-process first call: ``datasets`` and the framework already imported, the first ``load_task`` +
  ``get_prepared_datasets`` call.

The original runs from a checkout of github.com/GenBench/genbench_cbt (``GENBENCH_ORIG_SRC``; its package is
copied to a scratch folder, where the benchmark task is added to its ``tasks`` package, since it finds tasks only
there) with the Python of ``.bench-anchors/genbench-orig`` (``GENBENCH_ORIG_PYTHON`` overrides it). Without
them the anchor is skipped with a message. Each side runs once untimed first (caches of both warm, as a user
meets them on the second run), then ``--runs`` times per figure; the 0-shot prompts of both must be identical.
Results: ``benchmarks/results/prompt_preparation.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO_ROOT, ratio, row, run_process, summary, versions, write_results  # noqa: E402

CHILD = str(Path(__file__).resolve().parent / "_prompt_child.py")
TASK_ID = "bench_mc"
FIXED_TASK_ID = "bench_mc_fixed"  # the same without permute_choices, for the exact prompt comparison

WORDS = [
    "time",
    "person",
    "year",
    "way",
    "day",
    "thing",
    "man",
    "world",
    "life",
    "hand",
    "part",
    "child",
    "eye",
    "woman",
    "place",
    "work",
    "week",
    "case",
    "point",
    "government",
    "company",
    "number",
    "group",
    "problem",
    "fact",
    "be",
    "have",
    "do",
    "say",
    "get",
    "make",
    "go",
    "know",
    "take",
    "see",
    "come",
    "think",
    "look",
    "want",
    "give",
    "use",
    "find",
    "tell",
    "ask",
    "seem",
    "feel",
    "try",
    "leave",
    "call",
    "good",
    "new",
    "first",
    "last",
    "long",
    "great",
    "little",
    "own",
    "other",
    "old",
    "right",
    "big",
    "high",
    "different",
    "small",
    "large",
    "next",
    "early",
    "young",
    "important",
    "few",
    "public",
    "bad",
    "same",
    "able",
]


def write_data(rows: int, folder: Path, seed: int = 0) -> None:
    """``train.jsonl`` and ``test.jsonl``: ``rows`` seeded multiple-choice examples each, 4 options."""
    rng = random.Random(seed)
    for split in ("train", "test"):
        with open(folder / f"{split}.jsonl", "w", encoding="utf-8") as handle:
            for _ in range(rows):
                example = {
                    "input": " ".join(rng.choices(WORDS, k=rng.randint(15, 25))) + "?",
                    "target": rng.randrange(4),
                    "target_options": [" ".join(rng.choices(WORDS, k=rng.randint(1, 3))) for _ in range(4)],
                }
                handle.write(json.dumps(example) + "\n")


def write_tasks(tasks_root: Path, data: Path) -> None:
    """The benchmark task folders, with and without ``permute_choices``, valid for both frameworks."""
    write_task(tasks_root / TASK_ID, data, permute_choices=True)
    write_task(tasks_root / FIXED_TASK_ID, data, permute_choices=False)


def write_task(task_dir: Path, data: Path, *, permute_choices: bool) -> None:
    """A benchmark task folder, valid for both frameworks (absolute ``file://`` data URIs)."""
    task_dir.mkdir(parents=True)
    config = {
        "name": "Benchmark multiple choice",
        "description": "Generated data for the prompt preparation benchmark.",
        "keywords": ["benchmark"],
        "authors": ["genbench"],
        "data_source": {
            "type": "manual",
            "train": (data / "train.jsonl").as_uri(),
            "test": (data / "test.jsonl").as_uri(),
        },
        "has_validation_set": False,
        "has_train_set": True,
        "task_type": "multiple_choice",
        "evaluation_metrics": [{"hf_id": "accuracy", "best_score": 1.0, "git_commit_sha": "unused"}],
        "preparation_strategies": {"prompt_based_testing": {"prompt_builder": {"permute_choices": permute_choices}}},
    }
    (task_dir / "config.jsonnet").write_text(json.dumps(config, indent=2))
    (task_dir / "__init__.py").write_text("from .task import BenchTask\n")
    (task_dir / "task.py").write_text("from genbench import Task\n\n\nclass BenchTask(Task):\n    pass\n")
    (task_dir / "doc.md").write_text("# Benchmark multiple choice\n")


def original_framework(scratch: Path, data: Path) -> tuple[list[str], dict[str, str]] | str:
    """The command prefix and environment running the original framework, or why it cannot run here."""
    source = os.environ.get("GENBENCH_ORIG_SRC", "")
    python = os.environ.get(
        "GENBENCH_ORIG_PYTHON", str(REPO_ROOT / ".bench-anchors" / "genbench-orig" / "bin" / "python")
    )
    if not source or not (Path(source) / "src" / "genbench" / "task.py").is_file():
        return "GENBENCH_ORIG_SRC does not name a checkout of github.com/GenBench/genbench_cbt"
    if not Path(python).is_file():
        return f"no Python for the original framework at {python}: run `make bench-anchors`"
    package = scratch / "orig-src" / "genbench"
    shutil.copytree(Path(source) / "src" / "genbench", package, ignore=shutil.ignore_patterns("__pycache__"))
    write_tasks(package / "tasks", data)
    env = {**os.environ, "PYTHONPATH": str(package.parent), "HF_DATASETS_CACHE": str(scratch / "orig-hf-cache")}
    env.pop("GENBENCH_TASKS_PATH", None)
    return [python, CHILD], env


def prompts(prefix: list[str], env: dict[str, str], task_id: str, scratch: Path) -> dict[str, Any]:
    """An untimed run that returns the 0-shot prompts (and warms the caches)."""
    check = scratch / "check.json"
    completed = subprocess.run([*prefix, task_id, "warm", str(check)], env=env, capture_output=True, text=True)
    if completed.returncode != 0:
        raise SystemExit(f"{prefix[0]} failed to prepare the prompts:\n{completed.stderr[-3000:]}")
    return json.loads(check.read_text())


def child_runs(prefix: list[str], env: dict[str, str], runs: int, scratch: Path) -> dict[str, Any]:
    """Verification runs (untimed, they warm the caches), then whole-process and in-process figures."""
    checked = {
        "fixed": prompts(prefix, env, FIXED_TASK_ID, scratch),
        "permuted": prompts(prefix, env, TASK_ID, scratch),
    }
    fresh = [run_process([*prefix, TASK_ID, "fresh", "-"], env=env) for _ in range(runs)]
    warm = []
    for _ in range(runs):
        completed = subprocess.run([*prefix, TASK_ID, "warm", "-"], env=env, check=True, capture_output=True)
        warm.append(json.loads(completed.stdout.splitlines()[-1])["seconds"])
    return {"whole_process": summary(fresh), "first_call_in_process": summary(warm), "check": checked}


def _lines_sorted(prompt: str) -> list[str]:
    return sorted(prompt.split("\n"))


def compare_prompts(original: dict[str, Any], ours: dict[str, Any]) -> bool:
    """0-shot prompts: identical without ``permute_choices``; with it, identical up to the order of the choices.

    The order differs by design: genbench draws each example's permutation from a counter-based generator (the
    same on every machine and NumPy version), the original from ``np.random.RandomState(seed + idx)``.
    """
    fixed_original, fixed_ours = original["fixed"], ours["fixed"]
    for key in ("zero_shot_input", "zero_shot_target"):
        if fixed_original[key] != fixed_ours[key]:
            pairs = zip(fixed_original[key], fixed_ours[key], strict=False)
            first = next(((i, a, b) for i, (a, b) in enumerate(pairs) if a != b), None)
            raise SystemExit(f"0-shot {key} of genbench and of the original framework differ: {first!r}")
    permuted_original, permuted_ours = original["permuted"], ours["permuted"]
    if permuted_original["zero_shot_target"] != permuted_ours["zero_shot_target"] or list(
        map(_lines_sorted, permuted_original["zero_shot_input"])
    ) != list(map(_lines_sorted, permuted_ours["zero_shot_input"])):
        raise SystemExit("with permute_choices, the 0-shot prompts differ in more than the order of the choices")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20000, help="test rows and train rows")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure and side (at least 5 for results)")
    parser.add_argument("--no-write", action="store_true", help="do not write benchmarks/results/")
    args = parser.parse_args(argv)

    scratch = Path(tempfile.mkdtemp(prefix="genbench-bench-prompts-"))
    try:
        data = scratch / "data"
        data.mkdir()
        write_data(args.rows, data)
        ours_root = scratch / "ours-tasks"
        write_tasks(ours_root, data)
        ours_env = {
            **os.environ,
            "GENBENCH_TASKS_PATH": str(ours_root),
            "HF_DATASETS_CACHE": str(scratch / "ours-hf-cache"),
            "GENBENCH_CACHE": str(scratch / "ours-genbench-cache"),
        }
        print(f"prompt preparation: {args.rows} test + {args.rows} train MC rows, shots [0, 5], permute_choices")
        ours = child_runs([sys.executable, CHILD], ours_env, args.runs, scratch)
        anchor_setup = original_framework(scratch, data)
        anchor: dict[str, Any] | None = None
        skipped = None
        if isinstance(anchor_setup, str):
            skipped = f"original GenBench framework skipped: {anchor_setup}"
            print(skipped)
        else:
            anchor = child_runs(*anchor_setup, args.runs, scratch)
            orig_version = subprocess.run(
                [anchor_setup[0][0], "-c", "import datasets, numpy; print(datasets.__version__, numpy.__version__)"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()

        figures: dict[str, Any] = {"genbench": {k: v for k, v in ours.items() if k != "check"}}
        print(row("genbench, whole process", ours["whole_process"]))
        print(row("genbench, first call in process", ours["first_call_in_process"]))
        payload: dict[str, Any] = {
            "workload": {"rows": args.rows, "shot_list": [0, 5], "permute_choices": True, "runs": args.runs},
            "versions": versions("genbench", "datasets", "numpy"),
        }
        if anchor is not None:
            same = compare_prompts(anchor["check"], ours["check"])
            figures["original"] = {k: v for k, v in anchor.items() if k != "check"}
            payload["versions"]["original"] = {"datasets": orig_version[0], "numpy": orig_version[1]}
            print(row("original GenBench, whole process", anchor["whole_process"]))
            print(row("original GenBench, first call in process", anchor["first_call_in_process"]))
            payload["ratios"] = {
                "whole_process": ratio(anchor["whole_process"], ours["whole_process"]),
                "first_call_in_process": ratio(anchor["first_call_in_process"], ours["first_call_in_process"]),
            }
            payload["identical_zero_shot_prompts"] = same
            payload["prompt_check"] = (
                "without permute_choices: identical 0-shot inputs and targets on every row; with it: identical up to "
                "the order of the choices (genbench's permutation generator differs from the original's by design)"
            )
            print(
                f"  median ratios (original / genbench): whole process {payload['ratios']['whole_process']:.1f}x, "
                f"first call {payload['ratios']['first_call_in_process']:.1f}x; 0-shot prompts identical on all "
                f"{args.rows} rows (with permute_choices: up to the order of the choices)"
            )
        else:
            payload["skipped"] = skipped
        payload["figures"] = figures
        if not args.no_write:
            print(f"written {write_results('prompt_preparation', payload)}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
