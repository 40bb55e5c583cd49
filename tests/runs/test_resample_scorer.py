"""The bootstrap's resamples are scored from answers prepared once where that gives what preparing each resample
gives: the same values for free-form and multiple-choice tasks, and the task's own code wherever it has some."""

from __future__ import annotations

import random
from typing import Any

import pytest

from genbench import load_task
from genbench.runs._scoring import GoldSubsets, quiet_evaluate, resample_scorer


def _answers(task_id: str, rng: random.Random) -> tuple[Any, Any, list[Any]]:
    task = load_task(task_id)
    gold = task.get_datasets_raw()["test"]
    if task_id == "arithmetic_length":  # free-form: right, wrong or no number at all
        targets = [rng.choice([str(t), "7", "no idea", f"{t}\nQ: 1 + 1"]) for t in gold["target"]]
    elif task_id == "ner_unseen_entities":
        targets = [rng.choice(["B-PER, O", "O", ")", ""]) for _ in gold["target"]]
    else:  # multiple choice: an option index, an option text, out of range, or none of the options
        targets = [rng.choice([0, 1, "true", "false", 5, "maybe"]) for _ in gold["target"]]
    return task, gold, targets


@pytest.mark.parametrize(
    "task_id", ["arithmetic_length", "negation_consistency:affirmative", "category_membership", "ner_unseen_entities"]
)
def test_resamples_score_as_preparing_each_resample_does(task_id: str) -> None:
    rng = random.Random(5)
    task, gold, targets = _answers(task_id, rng)
    subsets = GoldSubsets(task, gold)
    scorer = resample_scorer(task, targets, subsets)
    for _ in range(5):
        rows = [rng.randrange(len(targets)) for _ in range(len(targets))]  # with repeats, as the bootstrap draws
        expected = quiet_evaluate(task, [targets[i] for i in rows], subsets.select(rows))
        assert repr(dict(scorer(rows))) == repr(dict(expected))


def test_a_task_that_scores_its_own_way_is_scored_by_its_code_on_every_resample() -> None:
    task, gold, targets = _answers("category_membership", random.Random(1))
    calls = []
    base = type(task)

    class OwnScoring(base):  # type: ignore[misc, valid-type]
        def evaluate_predictions(self, *, predictions=None, gold=None):
            calls.append(len(predictions))
            return {"own": float(len(predictions))}

    task.__class__ = OwnScoring
    scorer = resample_scorer(task, targets, GoldSubsets(task, gold))
    assert dict(scorer([0, 0, 1])) == {"own": 3.0} and calls == [3]
