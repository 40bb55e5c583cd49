"""Per-sample scores of a classification test set: genbench's per-sample scoring against the library per example.

Usage::

    python benchmarks/per_sample_scoring.py [--examples 5000] [--runs 5]

A task is generated in a temporary registry (``--examples`` test statements labelled true or false, scored with
``accuracy`` and macro ``f1`` as negation_consistency is). Each example is scored alone, as a run does for its
per-sample log and its bootstrap (``genbench.runs._scoring.per_sample_scores``, in process, answers drawn with a
fixed seed). The anchor scores each example alone with scikit-learn directly (``accuracy_score`` and ``f1_score``, the
functions genbench's metrics call), which is what every example cost before genbench reused the result of a
(prediction, reference) it had already scored. Both must give the same values for every example. Results:
``benchmarks/results/per_sample_scoring.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ratio, row, summary, time_calls, versions, write_results  # noqa: E402

TASK_ID = "per_sample_bench"
CONFIG = """{
  name: 'Per-sample benchmark',
  description: 'Generated statements judged true or false.',
  keywords: ['benchmark'],
  authors: ['genbench developers'],
  data_source: { type: 'manual', test: 'data/test.jsonl' },
  has_train_set: false,
  has_validation_set: false,
  task_type: 'multiple_choice',
  field_mapping: { input: 'statement', target: 'label', target_options: 'options' },
  evaluation_metrics: [
    { hf_id: 'accuracy', best_score: 1.0 },
    { hf_id: 'f1', best_score: 1.0, compute_extra_kwargs: { average: 'macro' } },
  ],
  preparation_strategies: { prompt_based_testing: { prompt_builder: { instruction_zero_shot: 'True or false?\\n' } } },
}
"""


def write_task(registry: Path, examples: int) -> None:
    folder = registry / TASK_ID
    (folder / "data").mkdir(parents=True)
    (folder / "config.jsonnet").write_text(CONFIG, encoding="utf-8")
    (folder / "doc.md").write_text("# Per-sample benchmark\n\nGenerated statements.\n", encoding="utf-8")
    (folder / "task.py").write_text("from genbench import Task\n\n\nclass PerSampleBenchTask(Task):\n    pass\n")
    rng = random.Random(0)
    with open(folder / "data" / "test.jsonl", "w", encoding="utf-8") as handle:
        for number in range(examples):
            label = rng.randint(0, 1)
            handle.write(
                json.dumps({"statement": f"Statement {number}.", "label": label, "options": ["true", "false"]})
            )
            handle.write("\n")


def library_per_example(predictions: list[int], references: list[int]) -> list[dict[str, float]]:
    """Each example scored alone with scikit-learn directly."""
    from sklearn.metrics import accuracy_score, f1_score

    scores = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for prediction, reference in zip(predictions, references, strict=True):
            scores.append(
                {
                    "hf_accuracy__accuracy": float(accuracy_score([reference], [prediction])),
                    "hf_f1__f1": float(f1_score([reference], [prediction], average="macro")),
                }
            )
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        write_task(Path(folder), args.examples)
        os.environ["GENBENCH_TASKS_PATH"] = folder
        from genbench import load_task
        from genbench.runs._scoring import GoldSubsets, per_sample_scores

        task = load_task(TASK_ID)
        gold = task.get_datasets_raw()["test"]
        references = [int(label) for label in gold["target"]]
        rng = random.Random(1)
        predictions = [rng.randint(0, 1) for _ in references]
        subsets = GoldSubsets(task, gold)
        ours_seconds, ours = time_calls(lambda: per_sample_scores(task, predictions, subsets), args.runs)
        anchor_seconds, anchor = time_calls(lambda: library_per_example(predictions, references), args.runs)
    if [{k: s[k] for k in a} for s, a in zip(ours, anchor, strict=True)] != anchor:
        raise SystemExit("genbench's per-sample scores differ from scikit-learn's")
    figures = {"genbench": summary(ours_seconds), "scikit_learn_per_example": summary(anchor_seconds)}
    print(f"per-sample scores of {args.examples:,} examples (accuracy, macro f1), in process")
    print(row("genbench per_sample_scores", figures["genbench"]))
    print(row("scikit-learn per example (the anchor)", figures["scikit_learn_per_example"]))
    speedup = ratio(figures["scikit_learn_per_example"], figures["genbench"])
    print(f"  median ratio (anchor / genbench): {speedup:.1f}x; identical on all {args.examples:,} examples")
    if not args.no_write:
        payload: dict[str, Any] = {
            "examples": args.examples,
            "runs": args.runs,
            "figures": figures,
            "ratio": speedup,
            "versions": versions("scikit-learn", "numpy"),
        }
        print("written", write_results("per_sample_scoring", payload))


if __name__ == "__main__":
    main()
