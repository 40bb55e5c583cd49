"""Per-sample scoring reuses genbench's own metrics' results for a (prediction, reference, options) already scored:
the same values as computing each example, one computation per distinct pair, and nothing shared by mistake."""

from __future__ import annotations

import random
from typing import Any

import pytest

import genbench.metrics._configured_metrics as configured
from genbench.metrics._configured_metrics import compute_metric_by_id, one_example_scores_reused

CASES = [
    ("accuracy", {}, [0, 1, 2]),
    ("f1", {"average": "macro"}, [0, 1]),
    ("f1", {}, [0, 1]),
    ("exact_match", {"ignore_case": True}, ["Paris", "paris", "Rome"]),
    ("seqeval", {}, [["B-PER", "O"], ["O", "O"], ["B-LOC", "I-LOC"]]),
]


@pytest.mark.parametrize(("metric", "options", "values"), CASES)
def test_reused_scores_equal_scores_computed_each_time(metric: str, options: dict[str, Any], values: list) -> None:
    rng = random.Random(0)
    pairs = [(rng.choice(values), rng.choice(values)) for _ in range(60)]
    alone = [compute_metric_by_id(metric, [p], [r], kwargs=options) for p, r in pairs]
    with one_example_scores_reused():
        reused = [compute_metric_by_id(metric, [p], [r], kwargs=options) for p, r in pairs]
    assert repr(reused) == repr(alone)


def test_each_distinct_pair_is_computed_once_and_results_are_not_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple] = []
    real = configured.get_builtin_metric("accuracy")
    assert real is not None

    def counted(predictions, references, **kwargs):
        calls.append((tuple(predictions), tuple(references)))
        return real(predictions, references, **kwargs)

    counted.__module__ = real.__module__  # one of genbench's own metrics
    monkeypatch.setattr(configured, "get_builtin_metric", lambda name: counted)
    with one_example_scores_reused():
        first = compute_metric_by_id("accuracy", [1], [1])
        first["accuracy"] = -1.0  # a caller changing its result changes no later one
        results = [compute_metric_by_id("accuracy", [p], [r]) for p, r in [(1, 1), (0, 1), (1, 1), (0, 1)]]
        compute_metric_by_id("accuracy", [1, 0], [1, 1])  # several examples: always computed
        compute_metric_by_id("accuracy", [1, 0], [1, 1])
    assert [r["accuracy"] for r in results] == [1.0, 0.0, 1.0, 0.0]
    assert calls == [((1,), (1,)), ((0,), (1,)), ((1, 0), (1, 1)), ((1, 0), (1, 1))]
    compute_metric_by_id("accuracy", [1], [1])  # outside the block: computed again
    assert len(calls) == 5


def test_a_third_party_metric_is_always_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def plugin(predictions, references, **kwargs):
        calls.append(1)
        return {"score": float(predictions == references)}

    plugin.__module__ = "someone_elses_metrics"
    monkeypatch.setattr(configured, "get_builtin_metric", lambda name: plugin)
    monkeypatch.setattr(configured, "metric_options", lambda metric: [])
    with one_example_scores_reused():
        for _ in range(3):
            compute_metric_by_id("accuracy", [1], [1])
    assert len(calls) == 3
