"""Answers are read against what the task allows: labels from the task, options, the answer regex (issue 18).

A model's junk must never become a metric key (seqeval turned any emitted string into an entity type:
``hf_seqeval__)__precision``); an out-of-set label, an answer that is none of the options and an answer the regex
does not find are scored as wrong and counted in their own rate.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from genbench.runs._execute import run
from genbench.runs._results import read_results
from genbench.runs._scoring import BootstrapSettings, out_of_set_entry
from genbench.task._factory import load_task

PREDICTORS = """
def junk_tags(requests, task, **options):
    if task == "generate":
        return ["B-PER, hen then then, ), I-LOC, b-org, O" for _ in requests]
    raise NotImplementedError

def words(requests, task, **options):
    # every other answer is the prompt's first choice, the others are no option at all
    if task == "generate":
        first = [next(line[2:] for line in prompt.splitlines() if line.startswith("- ")) for prompt in requests]
        return [word if i % 2 else "no idea at all" for i, word in enumerate(first)]
    raise NotImplementedError

def numbers_or_not(requests, task, **options):
    if task == "generate":
        return ["618" if i % 3 else "I cannot say" for i, _ in enumerate(requests)]
    raise NotImplementedError
"""
FAST = BootstrapSettings(resamples=100, statistic_resamples=20)
TASK_LABELS = {"O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"}
SEQEVAL_KEY = re.compile(
    r"^hf_seqeval__((PER|LOC|ORG)__(precision|recall|f1)|overall_(precision|recall|f1|accuracy))$"
)


@pytest.fixture(scope="module")
def predictors(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("label-predictors") / "predictors.py"
    path.write_text(PREDICTORS)
    return path


def _run(predictors: Path, name: str, task: str, out: Path, limit: int = 12) -> tuple[dict, list[dict]]:
    (task_run,) = run(
        f"python:{predictors}:{name}", task, output_dir=out, limit=limit, bootstrap=FAST, use_cache=False
    )  # fmt: skip
    document, samples = read_results(task_run.results_path)
    return document, samples or []


def test_junk_labels_make_no_metric_keys_and_are_counted(predictors: Path, tmp_path: Path) -> None:
    document, samples = _run(predictors, "junk_tags", "ner_unseen_entities", tmp_path)
    metrics = document["evaluations"][0]["metrics"]
    junk = [key for key in metrics if key != "out_of_set_label_rate" and not SEQEVAL_KEY.match(key)]
    assert junk == [], junk
    for sample in samples:
        sample_junk = [k for k in sample["metrics"] if k != "out_of_set_label_rate" and not SEQEVAL_KEY.match(k)]
        assert sample_junk == [], sample_junk

    # the rate, recounted from the per-sample log: emitted labels (within the gold length) outside the task's set
    out_of_set = positions = 0
    for sample in samples:
        gold = sample["target"]
        emitted = [label.strip() for label in sample["raw_output"].split(",")][: len(gold)]
        out_of_set += sum(label not in TASK_LABELS for label in emitted)
        positions += len(gold)
        assert sample["prediction"] == [label if label in TASK_LABELS else "O" for label in emitted] + ["O"] * (
            len(gold) - len(emitted)
        )
    rate = metrics["out_of_set_label_rate"]
    assert out_of_set > 0 and rate["value"] == pytest.approx(out_of_set / positions)
    assert rate["ci"][0] <= rate["value"] <= rate["ci"][1] and rate["ci_method"] == "bootstrap_statistic"


def test_the_task_api_scores_an_out_of_set_label_as_outside(tmp_path: Path) -> None:
    task = load_task("ner_unseen_entities")
    assert task.label_set() == TASK_LABELS
    gold = task.get_datasets_raw()["test"].select(range(8))
    entity_free = [["O" if label.startswith(("B-", "I-")) else label for label in row] for row in gold["target"]]
    junked = [["B-hen then" if label.startswith(("B-", "I-")) else label for label in row] for row in gold["target"]]
    as_outside = task.evaluate_predictions(predictions=[{"target": row} for row in entity_free], gold=gold)
    as_junk = task.evaluate_predictions(predictions=[{"target": row} for row in junked], gold=gold)
    assert dict(as_junk) == dict(as_outside)
    assert all(SEQEVAL_KEY.match(key) for key in as_junk)
    # a valid label of the task is still scored as itself, even where this example's gold never uses it
    one = gold.select([0])
    swapped = [{"target": ["B-ORG" if label == "O" else label for label in one[0]["target"]]}]
    assert task.evaluate_predictions(predictions=swapped, gold=one)["hf_seqeval__overall_precision"] < 1.0


def test_an_answer_that_is_no_option_is_wrong_and_counted(predictors: Path, tmp_path: Path) -> None:
    document, samples = _run(predictors, "words", "category_membership", tmp_path)
    evaluation = document["evaluations"][0]
    assert evaluation["multiple_choice_method"] == "generation"
    unmatched = [s for s in samples if s["raw_output"] == "no idea at all"]
    assert unmatched and all(s["metrics"]["hf_accuracy__accuracy"] == 0.0 for s in unmatched)
    assert all(s["metrics"]["out_of_set_answer_rate"] == 1.0 for s in unmatched)
    assert all(s["metrics"]["out_of_set_answer_rate"] == 0.0 for s in samples if s not in unmatched)
    rate = evaluation["metrics"]["out_of_set_answer_rate"]
    assert rate["value"] == pytest.approx(len(unmatched) / len(samples)) and rate["ci_method"] == "bootstrap_mean"


def test_a_free_form_answer_the_regex_does_not_find_is_counted(predictors: Path, tmp_path: Path) -> None:
    document, samples = _run(predictors, "numbers_or_not", "arithmetic_length", tmp_path)
    rate = document["evaluations"][0]["metrics"]["unmatched_answer_rate"]
    unmatched = [s for s in samples if s["raw_output"] == "I cannot say"]
    assert rate["value"] == pytest.approx(len(unmatched) / len(samples)) and 0 < rate["value"] < 1
    assert all(s["prediction"] == "" and s["metrics"]["hf_exact_match__exact_match"] == 0.0 for s in unmatched)


def test_the_out_of_set_rate_is_a_ratio_of_sums() -> None:
    entry, values = out_of_set_entry([2, 0, 1], [4, 2, 4], FAST)
    assert entry["value"] == pytest.approx(3 / 10) and values == [0.5, 0.0, 0.25]
    assert entry["ci_method"] == "bootstrap_statistic" and entry["ci"][0] <= entry["ci"][1]
    assert out_of_set_entry([], [], FAST)[0] == {"value": None, "ci": None, "ci_method": None}


def test_without_its_data_the_task_reads_labels_against_the_given_gold(monkeypatch: pytest.MonkeyPatch) -> None:
    from genbench._core.errors import DataLoadError

    task = load_task("ner_unseen_entities")
    gold = task.get_datasets_raw()["test"].select(range(4))
    fresh = load_task("ner_unseen_entities")

    def unavailable() -> None:
        raise DataLoadError("data/test.jsonl: not downloaded")

    monkeypatch.setattr(fresh, "get_datasets_raw", unavailable)
    junk = [{"target": [")" for _ in row]} for row in gold["target"]]
    result = fresh.evaluate_predictions(predictions=junk, gold=gold)
    assert all(SEQEVAL_KEY.match(key) for key in result)
    with pytest.raises(DataLoadError):
        fresh.label_set()
