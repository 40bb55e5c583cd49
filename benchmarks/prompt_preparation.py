"""Time prompt preparation: genbench.prompting against a baseline written the way the original framework did it.

Usage::

    python benchmarks/prompt_preparation.py [--rows 20000] [--baseline-rows 2000] [--repeats 5]

The data are a seeded multiple-choice task: ``--rows`` test and ``--rows`` train examples, ~20-word inputs and
4 options each. Both sides prepare 0- and 5-shot prompts (``shot_list=[0, 5]``).

The baseline follows the original GenBench ``make_nshot_dataset``: a per-row ``Dataset.map`` (``num_proc=4``)
formats every example with a ``RandomState`` per row, and each few-shot query picks ``k + 1`` pool positions,
reads them one by one (``pool[i]``) and drops any shot equal to the whole query row. It is slow, so it runs on
``--baseline-rows`` test rows with the full train pool, every ``Dataset.map`` timed: the map over the pool counts
as measured, and each map over the test rows is extrapolated to ``--rows`` along the line through its times on
``--baseline-rows`` and on a few (``2 * num_proc``) test rows, whose time is the map's fixed cost. With
``--baseline-rows`` equal to ``--rows`` nothing is extrapolated. The 0-shot prompts of both sides are compared on
the baseline's rows.

The "e2e" rows time what a user meets: ``load_task`` + ``get_prepared_datasets`` on a fresh task object whose
config points at the same data written as JSONL files, so reading, formatting and prompt building are all counted.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import tempfile
import time
from typing import Any

import numpy as np

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


def make_splits(rows: int, seed: int = 0) -> dict[str, Any]:
    """A seeded multiple-choice task: ``rows`` train and ``rows`` test examples, 4 options each."""
    from datasets import Dataset

    rng = random.Random(seed)

    def split(n: int) -> Any:
        inputs = [" ".join(rng.choices(WORDS, k=rng.randint(15, 25))) + "?" for _ in range(n)]
        options = [[" ".join(rng.choices(WORDS, k=rng.randint(1, 3))) for _ in range(4)] for _ in range(n)]
        targets = [rng.randrange(4) for _ in range(n)]
        return Dataset.from_dict(
            {"input": inputs, "target": targets, "target_options": options, "_genbench_idx": list(range(n))}
        )

    return {"train": split(rows), "test": split(rows)}


def baseline_prepare(
    splits: dict[str, Any],
    prompt_builder: Any,
    shot_list: list[int],
    random_seed: int,
    num_proc: int,
    stage_seconds: list[tuple[str, float]] | None = None,
) -> dict[int, Any]:
    """Prompt preparation as the original framework did it (per-row map, random access, whole-row comparison).

    Each ``Dataset.map`` is timed into ``stage_seconds`` as ``("test", s)`` or ``("pool", s)`` by the split it
    runs over.
    """
    pb = prompt_builder
    stages = stage_seconds if stage_seconds is not None else []

    def run_map(over: str, dataset: Any, fn: Any, **kwargs: Any) -> Any:
        seconds, mapped = timed(dataset.map, fn, num_proc=num_proc, **kwargs)
        stages.append((over, seconds))
        return mapped

    def format_for_icl(example: dict[str, Any]) -> dict[str, Any]:
        rng = np.random.RandomState(random_seed + example["_genbench_idx"])
        text = pb.input_prefix + example["input"]
        options = example["target_options"]
        if pb.append_choices_to_input:
            listed = rng.permutation(sorted(options)) if pb.permute_choices else options
            text += pb.choices_prefix + "".join(f"{pb.choice_item_prefix}{o}{pb.choice_item_postfix}" for o in listed)
        return {"formatted_input": text + pb.output_prefix, "formatted_target": options[example["target"]]}

    test, pool = splits["test"], splits["train"]
    output = {}
    for k in shot_list:
        if k == 0:

            def zero_shot(example: dict[str, Any]) -> dict[str, Any]:
                formatted = format_for_icl(example)
                return {
                    "input": pb.instruction_zero_shot + formatted["formatted_input"],
                    "target": formatted["formatted_target"],
                    "original_input": example["input"],
                    "original_target": example["target"],
                }

            output[k] = run_map("test", test, zero_shot, load_from_cache_file=False)
            continue
        queries = run_map("test", test, format_for_icl)
        formatted_pool = run_map("pool", pool, format_for_icl)

        def few_shot(query: dict[str, Any], idx: int, k: int = k, formatted_pool: Any = formatted_pool):
            rng = np.random.RandomState(random_seed + idx)
            picked = rng.choice(len(formatted_pool), k + 1, replace=False).tolist()
            shots = [formatted_pool[i] for i in picked if formatted_pool[i] != query]
            context = pb.few_shot_example_separator.join(s["formatted_input"] + s["formatted_target"] for s in shots)
            return {
                "input": pb.instruction_few_shot + context + pb.few_shot_example_separator + query["formatted_input"],
                "target": query["formatted_target"],
                "original_input": query["input"],
                "original_target": query["target"],
            }

        output[k] = run_map("test", queries, few_shot, with_indices=True, load_from_cache_file=False)
    return output


def write_task(splits: dict[str, Any], root: str) -> str:
    """Write ``splits`` as a registry task (JSONL files + config) under ``root``; returns its id."""
    import json
    from pathlib import Path

    task_dir = Path(root) / "bench_mc"
    (task_dir / "data").mkdir(parents=True)
    for name, dataset in splits.items():
        dataset.remove_columns("_genbench_idx").to_json(task_dir / "data" / f"{name}.jsonl", lines=True)
    config = {
        "name": "Benchmark multiple choice",
        "description": "Generated data for the prompt preparation benchmark.",
        "keywords": ["benchmark"],
        "authors": ["genbench"],
        "data_source": {"type": "manual", "train": "data/train.jsonl", "test": "data/test.jsonl"},
        "has_train_set": True,
        "task_type": "multiple_choice",
        "evaluation_metrics": [{"hf_id": "accuracy", "best_score": 1.0}],
        "preparation_strategies": {"prompt_based_testing": {"prompt_builder": {}}},
    }
    (task_dir / "config.jsonnet").write_text(json.dumps(config))
    (task_dir / "__init__.py").touch()
    (task_dir / "task.py").write_text("from genbench import Task\n\n\nclass BenchTask(Task):\n    pass\n")
    return task_dir.name


def timed(fn, *args, **kwargs) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return time.perf_counter() - start, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20000, help="test rows (and train rows) for genbench")
    parser.add_argument("--baseline-rows", type=int, default=2000, help="test rows for the baseline (0: skip it)")
    parser.add_argument("--baseline-num-proc", type=int, default=4, help="num_proc of the baseline's Dataset.map")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats of genbench (best is reported)")
    parser.add_argument("--seed", type=int, default=42, help="random_seed of the prompts")
    args = parser.parse_args(argv)

    # Keep the Hugging Face cache out of the user's home and quiet the progress bars.
    os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="genbench-bench-"))
    import datasets

    from genbench.api import TaskType
    from genbench.config.schema import PromptBuilderConfig
    from genbench.prompting import build_prompt_datasets

    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()
    logging.basicConfig(level=logging.ERROR)

    shot_list = [0, 5]
    prompt_builder = PromptBuilderConfig()
    print(f"generating {args.rows} test + {args.rows} train multiple-choice examples ...", file=sys.stderr)
    splits = make_splits(args.rows)

    def ours() -> dict[int, Any]:
        return build_prompt_datasets(
            splits,
            task_type=TaskType.MULTIPLE_CHOICE,
            prompt_builder=prompt_builder,
            shot_list=shot_list,
            random_seed=args.seed,
        )

    first, result = timed(ours)
    best = min(timed(ours)[0] for _ in range(max(args.repeats, 1)))
    if any(len(result[k]) != args.rows for k in shot_list) or any(
        len(i) != 5 for i in result[5]["_genbench_shot_ids"]
    ):
        raise SystemExit("genbench produced the wrong number of prompts or shots")

    # End to end, as a user meets it: a fresh task object reads its JSONL files, formats them and builds prompts.
    from genbench.api import PreparationStrategy
    from genbench.loading import load_task

    os.environ["GENBENCH_TASKS_PATH"] = tasks_root = tempfile.mkdtemp(prefix="genbench-bench-tasks-")
    task_id = write_task(splits, tasks_root)

    def end_to_end() -> dict[int, Any]:
        task = load_task(task_id)
        return task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=shot_list)

    e2e_first, e2e_result = timed(end_to_end)
    e2e_best = min(timed(end_to_end)[0] for _ in range(max(args.repeats, 1)))
    if e2e_result[5].to_dict()["input"] != result[5].to_dict()["input"]:
        raise SystemExit("end-to-end prompts differ from the in-memory ones")

    rows_out = [
        ("genbench, first call", first, args.rows, "measured"),
        ("genbench, best", best, args.rows, "measured"),
        ("genbench e2e, first call", e2e_first, args.rows, "measured"),
        ("genbench e2e, best", e2e_best, args.rows, "measured"),
    ]
    notes: list[str] = []
    if args.baseline_rows > 0:
        n = min(args.baseline_rows, args.rows)
        n_tiny = min(2 * args.baseline_num_proc, n - 1)

        def run_baseline(test_rows: int) -> tuple[float, list[tuple[str, float]], dict[int, Any]]:
            print(f"baseline on {test_rows} test rows (pool: all {args.rows} train rows) ...", file=sys.stderr)
            subset = {"train": splits["train"], "test": splits["test"].select(range(test_rows))}
            stages: list[tuple[str, float]] = []
            seconds, output = timed(
                baseline_prepare, subset, prompt_builder, shot_list, args.seed, args.baseline_num_proc, stages
            )
            return seconds, stages, output

        measured, stages, baseline_result = run_baseline(n)
        extrapolated = measured
        if n < args.rows and n_tiny > 0:
            # Each map over the test rows costs a + b * rows: fit it from this run and one on n_tiny rows (whose
            # time is the fixed part: worker start-up, shipping the pool to the workers). Maps over the pool
            # already ran at full size.
            _, tiny_stages, _ = run_baseline(n_tiny)
            extrapolated = 0.0
            for (over, seconds), (_, tiny_seconds) in zip(stages, tiny_stages, strict=True):
                if over == "pool":
                    extrapolated += seconds
                else:
                    slope = max(seconds - tiny_seconds, 0.0) / (n - n_tiny)
                    extrapolated += tiny_seconds + slope * (args.rows - n_tiny)
            extrapolated += measured - sum(seconds for _, seconds in stages)  # time outside the maps
            notes.append(
                f"baseline for {args.rows} rows: its map over the {args.rows}-row pool as measured; each map over "
                f"the test rows extrapolated along the line through its times on {n_tiny} and {n} test rows"
            )
        same = baseline_result[0].to_dict()["input"] == result[0].select(range(n)).to_dict()["input"]
        notes.insert(0, f"0-shot prompts identical to the baseline's on its {n} rows: {same}")
        rows_out.append((f"baseline, {n} rows", measured, n, "measured"))
        if n < args.rows:
            rows_out.append((f"baseline, {args.rows} rows", extrapolated, args.rows, "extrapolated"))

    print(f"\nprompt preparation, shot_list={shot_list}, multiple choice, {args.rows} train rows in the pool")
    print(f"{'run':<28} {'seconds':>9} {'rows/s':>10}  {'':<12} {'speed-up':>9}")
    reference = rows_out[-1][1] if args.baseline_rows > 0 else None
    for name, seconds, n, how in rows_out:
        speedup = f"{reference / seconds:9.1f}x" if reference and name.startswith("genbench") else ""
        print(f"{name:<28} {seconds:9.3f} {n / seconds:10.0f}  {how:<12} {speedup:>9}")
    if reference:
        how = rows_out[-1][3]
        print(f"\nspeed-up of genbench (best) vs the baseline ({how}) at {args.rows} rows: {reference / best:.0f}x")
    notes.append("e2e = load_task + get_prepared_datasets on a fresh task: JSONL read, formatting and prompts")
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
