"""Fuzzed JSONL data for every task type, and the task directories the fuzz tests write.

Each case writes a task directory into a fresh task root and runs what a user runs: ``load_task``, the raw splits,
the prompt datasets (0 and 1 shot) when the task supports prompting, the finetuning datasets, and the scoring of the
test split's own targets. The property: that succeeds or raises a GenBenchError, nothing else.

Data: valid rows with values replaced, fields dropped or added, lines that are not objects, blank lines, huge
strings, files cut short, with NUL or stray bytes, in other encodings. Configs and split files:
:mod:`.test_fuzz_configs`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from genbench import load_task
from genbench._core.vocabulary import PreparationStrategy
from tests.task_roots import registered_task_roots

from .harness import FUZZ, dumps, encoded, genbench_error_or_success, mutated, texts

TASK_PY = "from genbench import Task\n\n\nclass FuzzTask(Task):\n    pass\n"

_PROMPTING = {"prompt_builder": {"instruction_zero_shot": "Answer.\n", "stop_string": "\n"}}
BASE_CONFIG = {
    "name": "Fuzz",
    "description": "A task for the fuzz tests.",
    "keywords": ["fuzz"],
    "authors": ["genbench tests"],
    "data_source": {"type": "manual", "train": "train.jsonl", "test": "test.jsonl"},
    "has_train_set": True,
    "preparation_strategies": {"finetuning": {"objective": "maximum_likelihood"}, "prompt_based_testing": _PROMPTING},
}
TYPES: dict[str, dict[str, Any]] = {
    "free_form": {
        "config": {"task_type": "free_form", "evaluation_metrics": [{"hf_id": "exact_match", "best_score": 1.0}]},
        "rows": [{"input": f"{i} + {i}", "target": str(2 * i)} for i in range(4)],
    },
    "multiple_choice": {
        "config": {"task_type": "multiple_choice", "evaluation_metrics": [{"hf_id": "accuracy", "best_score": 1.0}]},
        "rows": [{"input": f"pick {i}", "target": i % 3, "target_options": ["a", "b", "c"]} for i in range(4)],
    },
    "sequence_labeling": {
        "config": {"task_type": "sequence_labeling", "evaluation_metrics": [{"hf_id": "seqeval", "best_score": 1.0}]},
        "rows": [{"input": ["Ann", "met", "Bo"], "target": ["B-PER", "O", "B-PER"]} for _ in range(4)],
    },
    "reranking": {
        "config": {
            "task_type": "reranking",
            "evaluation_metrics": [{"type": "cross_encoder_reranking", "at_k": 2, "best_score": 1.0}],
            "preparation_strategies": {"finetuning": {"objective": "maximum_likelihood"}},
        },
        "rows": [
            {"input": f"q{i}", "target": [f"d{i}"], "target_options": ["d0", "d1", "d2", "d3"]} for i in range(4)
        ],
    },
}
_numbers = itertools.count()


def config_of(kind: str) -> dict[str, Any]:
    return {**BASE_CONFIG, **TYPES[kind]["config"]}


@contextmanager
def fuzz_task() -> Iterator[tuple[Path, str]]:
    """A new task id and its directory in a fresh task root, the registry's only one (per hypothesis example:
    a function-scoped fixture would be shared by the examples)."""
    with registered_task_roots() as roots:
        task_id = f"fuzz_task_{next(_numbers)}"
        task_dir = roots.new() / task_id
        task_dir.mkdir()
        (task_dir / "__init__.py").touch()
        (task_dir / "task.py").write_text(TASK_PY, encoding="utf-8")
        yield task_dir, task_id


def write_rows(path: Path, rows: list[Any]) -> None:
    path.write_text("".join(dumps(row) + "\n" for row in rows), encoding="utf-8")


def run_task(task_id: str) -> None:
    """What a user does with a task: load it, read its splits, build prompts, score the test targets."""
    task = load_task(task_id)
    splits = task.get_datasets_raw()
    if task.config.preparation_strategies.prompt_based_testing is not None:
        task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0, 1])
    if task.config.preparation_strategies.finetuning is not None:
        task.get_prepared_datasets(PreparationStrategy.FINETUNING)
    if "test" in splits:
        test = splits["test"]
        targets = test["target"]
        if (
            getattr(task.config.task_type, "value", task.config.task_type) == "reranking"
        ):  # scores:: 1 for the relevant candidates
            targets = [
                [float(option in (target or ())) for option in options or ()]
                for target, options in zip(targets, test["target_options"], strict=True)
            ]
        task.evaluate_predictions(predictions=[{"target": target} for target in targets], gold=test)


@pytest.mark.parametrize("kind", list(TYPES))
def test_the_base_tasks_are_valid(kind: str):
    """The fuzzed cases start from tasks that load and score: a mutation is what makes a case fail."""
    with fuzz_task() as (task_dir, task_id):
        (task_dir / "config.jsonnet").write_text(dumps(config_of(kind)), encoding="utf-8")
        write_rows(task_dir / "train.jsonl", TYPES[kind]["rows"])
        write_rows(task_dir / "test.jsonl", TYPES[kind]["rows"])
        assert genbench_error_or_success("base tasks", lambda: run_task(task_id)) == "ok"


@st.composite
def jsonl_bytes(draw: st.DrawFn, rows: list[dict[str, Any]]) -> bytes:
    lines = []
    # Most rows unchanged, so that a case gets past loading and reaches prompting and scoring with its odd rows.
    for row in [draw(mutated(row, max_mutations=draw(st.sampled_from([0, 0, 0, 1, 2])))) for row in rows]:
        shape = draw(st.sampled_from(["json"] * 8 + ["text", "huge", "blank"]))
        if shape == "json":
            lines.append(dumps(row))
        elif shape == "text":
            lines.append(draw(texts))
        elif shape == "huge":
            huge = draw(st.sampled_from(["x", "é", "😀", "\0"])) * 50_000
            lines.append(dumps({**row, "input": huge} if isinstance(row, dict) else huge))
        else:
            lines.append("")
    return draw(encoded("\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))))


@pytest.mark.parametrize("kind", list(TYPES))
@FUZZ
@given(data=st.data())
def test_fuzzed_data(kind: str, data: st.DataObject):
    rows = TYPES[kind]["rows"]
    train = data.draw(jsonl_bytes(rows), label="train.jsonl")
    test = data.draw(jsonl_bytes(rows), label="test.jsonl")
    with fuzz_task() as (task_dir, task_id):
        (task_dir / "config.jsonnet").write_text(dumps(config_of(kind)), encoding="utf-8")
        (task_dir / "train.jsonl").write_bytes(train)
        (task_dir / "test.jsonl").write_bytes(test)
        genbench_error_or_success(f"data[{kind}]", lambda: run_task(task_id))
