"""Fuzzed predictions for every task type: scoring succeeds or raises a GenBenchError, nothing else.

Predictions are drawn per task type (plausible targets mixed with wrong types, NaN and infinities, nested lists,
huge and unicode strings, missing keys, the wrong count) and scored two ways: ``Task.evaluate_predictions`` on the
objects, and ``evaluate_file`` (the ``evaluate`` command's reader) on a file of their bytes, sometimes in another
encoding or cut short.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from genbench import load_task
from genbench.cli._evaluate import evaluate_file

from .harness import FUZZ, dumps, encoded, genbench_error_or_success, json_values, texts

# One shipped task of each type (negation_consistency's subtasks are free form with a custom evaluation).
TASKS = {
    "free_form": "arithmetic_length",
    "multiple_choice": "category_membership",
    "sequence_labeling": "ner_unseen_entities",
    "reranking": "passage_reranking_shift",
    "subtask": "negation_consistency:negated",
}


GOLD_ROWS = 4  # a few gold rows: the cases are about the shapes of predictions, not their number


@functools.cache
def _task_and_gold(task_id: str) -> tuple[Any, Any]:
    task = load_task(task_id)
    test = task.get_datasets_raw()["test"]
    return task, test.select(range(min(GOLD_ROWS, test.num_rows)))


def _plausible_target(kind: str, gold_row: dict) -> st.SearchStrategy:
    numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(2**65), 2**65)
    if kind == "multiple_choice":
        options = gold_row.get("target_options") or ["x"]
        return st.integers(-2, len(options) + 1) | st.sampled_from(list(options)) | texts
    if kind == "sequence_labeling":
        labels = st.sampled_from(["O", "B-PER", "I-PER", "B-LOC", "B-ORG", "I-ORG", "X"]) | texts
        width = len(gold_row["target"])
        return st.lists(labels, min_size=max(width - 1, 0), max_size=width + 1) | labels
    if kind == "reranking":
        width = len(gold_row["target_options"])
        return st.lists(numbers, min_size=max(width - 1, 0), max_size=width + 1)
    return texts | st.integers()


@st.composite
def predictions_for(draw: st.DrawFn, kind: str, gold: Any) -> list[Any]:
    rows = [dict(row) for row in gold]
    count = draw(st.sampled_from([len(rows), len(rows), len(rows), len(rows) - 1, len(rows) + 1, 0]))
    result: list[Any] = []
    for number in range(count):
        row = rows[number % len(rows)]
        shape = draw(st.sampled_from(["plausible"] * 6 + ["any", "missing", "extra", "not_a_mapping"]))
        if shape == "plausible":
            result.append({"target": draw(_plausible_target(kind, row))})
        elif shape == "any":
            result.append({"target": draw(json_values)})
        elif shape == "missing":
            result.append({"prediction": draw(json_values)})
        elif shape == "extra":
            result.append({"target": draw(_plausible_target(kind, row)), draw(texts): draw(json_values)})
        else:
            result.append(draw(json_values))
    return result


@pytest.mark.parametrize("kind", list(TASKS))
@FUZZ
@given(data=st.data())
def test_scoring_fuzzed_predictions(kind: str, data: st.DataObject):
    task, gold = _task_and_gold(TASKS[kind])
    predictions = data.draw(predictions_for(kind, gold), label="predictions")
    genbench_error_or_success(
        f"predictions[{kind}]", lambda: task.evaluate_predictions(predictions=predictions, gold=gold)
    )


@pytest.mark.parametrize("kind", ["free_form", "multiple_choice", "reranking"])
@FUZZ
@given(data=st.data())
def test_scoring_fuzzed_prediction_files(kind: str, data: st.DataObject):
    task, gold = _task_and_gold(TASKS[kind])
    predictions = data.draw(predictions_for(kind, gold), label="predictions")
    lines = [dumps(p) if data.draw(st.integers(0, 9)) else data.draw(texts) for p in predictions]
    content = data.draw(encoded("\n".join(lines) + "\n"), label="file bytes")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "predictions.jsonl"
        path.write_bytes(content)
        genbench_error_or_success(f"prediction files[{kind}]", lambda: evaluate_file(task, path))
