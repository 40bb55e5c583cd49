"""`run` writes the merged result of a TaskDict, with joint-bootstrap intervals; `compare` compares merged results.

negation_consistency's subtasks are paired by example (statement i of `negated` negates statement i of
`affirmative`), which makes the joint bootstrap checkable: a model that always answers "true" is right on exactly one
statement of each pair, so its merged accuracy is 0.5 on every joint resample, while each subtask's accuracy varies.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.runs import is_merged_results
from genbench.runs._compare import compare_results
from genbench.runs._errors import ResultsFileError
from genbench.runs._execute import run
from genbench.runs._merged_results import SubtaskScores, file_sha256, merge_settings
from genbench.runs._results import read_results
from genbench.runs._scoring import BootstrapSettings
from genbench.task._factory import load_task

PREDICTORS = """
def says_true(requests, task, **options):
    if task == "loglikelihood":
        return [0.0 if c.strip() == "true" else -1.0 for _, c in requests]
    raise NotImplementedError

def says_false(requests, task, **options):
    if task == "loglikelihood":
        return [0.0 if c.strip() == "false" else -1.0 for _, c in requests]
    raise NotImplementedError

def first_option(requests, task, **options):
    if task == "loglikelihood":
        return [0.0 if c.strip() == requests[0][1].strip() else -1.0 for _, c in requests]
    raise NotImplementedError
"""
FAST = BootstrapSettings(resamples=200, statistic_resamples=30)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list]:
    root = tmp_path_factory.mktemp("taskdict")
    (root / "predictors.py").write_text(PREDICTORS)
    out = {}
    for name in ("says_true", "says_false"):
        out[name] = run(
            f"python:{root / 'predictors.py'}:{name}", "negation_consistency", output_dir=root / "out", limit=16,
            shots=[0, 1], bootstrap=FAST,
        )  # fmt: skip
    out["other_task"] = run(
        f"python:{root / 'predictors.py'}:first_option", "category_membership", output_dir=root / "out", limit=16,
        bootstrap=FAST,
    )  # fmt: skip
    return out


def test_run_writes_the_merged_result_next_to_the_subtasks(runs: dict[str, list]) -> None:
    affirmative, negated, merged = runs["says_true"]
    assert [r.task_id for r in runs["says_true"]] == [
        "negation_consistency:affirmative", "negation_consistency:negated", "negation_consistency",
    ]  # fmt: skip
    assert merged.results_path.parent == affirmative.results_path.parent == negated.results_path.parent
    document, samples = read_results(merged.results_path)  # valid against the schema
    assert samples is None and is_merged_results(document) and not is_merged_results(affirmative.document)
    assert document["task"]["subtasks"] == ["negation_consistency:affirmative", "negation_consistency:negated"]
    assert document["task"]["task_type"] is None
    assert document["merged_from"] == [
        {"task_id": r.task_id, "results_file": r.results_path.name, "sha256": file_sha256(r.results_path)}
        for r in (affirmative, negated)
    ]
    task_dict = load_task("negation_consistency")
    for evaluation in document["evaluations"]:
        shots = evaluation["shots"]
        per_subtask = {}
        for sid, subtask_run in (("affirmative", affirmative), ("negated", negated)):
            (entry,) = [e for e in subtask_run.document["evaluations"] if e["shots"] == shots]
            per_subtask[sid] = {key: metric["value"] for key, metric in entry["metrics"].items()}
        expected = task_dict.merge_evaluation_results(per_subtask)
        assert {k: e["value"] for k, e in evaluation["metrics"].items()} == dict(expected)
        assert "negation_gap__hf_accuracy__accuracy" in evaluation["metrics"]
        assert evaluation["bootstrap_pairing"] == "paired"
        assert evaluation["primary_metric"] == "hf_accuracy__accuracy"
    assert [e["shots"] for e in document["evaluations"]] == [0, 1]


def test_merged_intervals_come_from_a_joint_bootstrap(runs: dict[str, list]) -> None:
    affirmative, negated, merged = runs["says_true"]
    accuracy = merged.document["evaluations"][0]["metrics"]["hf_accuracy__accuracy"]
    # each statement pair has one "true" answer right: 0.5 on every joint resample
    assert accuracy["value"] == 0.5 and accuracy["ci"] == [0.5, 0.5] and accuracy["ci_method"] == "bootstrap_merged"
    # combining the subtasks' interval ends would give a wide interval
    low_a, high_a = affirmative.document["evaluations"][0]["metrics"]["hf_accuracy__accuracy"]["ci"]
    low_n, high_n = negated.document["evaluations"][0]["metrics"]["hf_accuracy__accuracy"]["ci"]
    assert (high_a + high_n) / 2 - (low_a + low_n) / 2 > 0.2
    gap = merged.document["evaluations"][0]["metrics"]["negation_gap__hf_accuracy__accuracy"]
    assert gap["ci"][0] < gap["value"] < gap["ci"][1]
    # macro F1 is not a mean of per-sample values: it is recomputed on each resample, so its interval is not a point
    f1 = merged.document["evaluations"][0]["metrics"]["negation_gap__hf_f1__f1"]
    assert f1["ci_method"] == "bootstrap_merged" and f1["ci"][0] < f1["ci"][1]


def test_unpaired_subtasks_are_resampled_independently() -> None:
    def mean_merge(results):
        return {"acc": (results["a"]["acc"] + results["b"]["acc"]) / 2}

    values = {"a": [1.0, 0.0] * 10, "b": [0.0, 1.0] * 10}
    paired = {s: SubtaskScores({"acc": 0.5}, {"acc": v}, list(range(20))) for s, v in values.items()}
    unpaired = {
        s: SubtaskScores({"acc": 0.5}, {"acc": v}, list(range(i, 20 + i))) for i, (s, v) in enumerate(values.items())
    }
    entries, pairing = merge_settings(mean_merge, paired, resamples=300, seed=3, confidence=0.95)
    assert pairing == "paired" and entries["acc"]["ci"] == [0.5, 0.5]
    entries, pairing = merge_settings(mean_merge, unpaired, resamples=300, seed=3, confidence=0.95)
    assert pairing == "independent" and entries["acc"]["ci"][0] < 0.5 < entries["acc"]["ci"][1]
    # the interval is the percentiles of the merge re-applied to independent resamples, drawn as documented
    draws = [np.asarray(values[s])[np.random.default_rng(3 + j).integers(0, 20, (300, 20))].mean(axis=1)
             for j, s in enumerate(values)]  # fmt: skip
    expected = np.quantile((draws[0] + draws[1]) / 2, [0.025, 0.975])
    assert entries["acc"]["ci"] == pytest.approx(list(expected))


def test_compare_compares_merged_results(runs: dict[str, list]) -> None:
    a, b = runs["says_true"][-1].results_path, runs["says_false"][-1].results_path
    rows = {(c.shots, c.metric): c for c in compare_results(a, b, resamples=200, permutations=300)}
    gap = rows[(0, "negation_gap__hf_accuracy__accuracy")]
    reported_a = runs["says_true"][-1].document["evaluations"][0]["metrics"]["negation_gap__hf_accuracy__accuracy"]
    reported_b = runs["says_false"][-1].document["evaluations"][0]["metrics"]["negation_gap__hf_accuracy__accuracy"]
    assert gap.a == pytest.approx(reported_a["value"]) and gap.b == pytest.approx(reported_b["value"])
    assert gap.difference == pytest.approx(gap.a - gap.b) and gap.low <= gap.difference <= gap.high
    assert gap.n == 32 and gap.note == ""
    assert rows[(0, "hf_f1__f1")].note  # macro F1 merged from per-sample means is not the reported metric
    result = CliRunner().invoke(cli, ["compare", str(a), str(b), "--permutations", "100", "--json"])
    assert result.exit_code == 0, result.output
    assert "negation_gap__hf_accuracy__accuracy" in {row["metric"] for row in json.loads(result.output)}


def test_compare_refuses_a_merged_result_whose_subtask_file_changed(runs: dict[str, list], tmp_path: Path) -> None:
    merged = runs["says_true"][-1]
    for path in merged.results_path.parent.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    subtask = tmp_path / "negation_consistency.negated.json"
    subtask.write_text(json.dumps(json.loads(subtask.read_text()), indent=1))
    with pytest.raises(ResultsFileError, match="negation_consistency.negated.json, which changed since"):
        compare_results(tmp_path / "negation_consistency.json", runs["says_false"][-1].results_path)
    with pytest.raises(ResultsFileError, match="different tasks.*two merged results"):
        compare_results(runs["says_false"][-1].results_path, runs["says_false"][0].results_path)


def test_compare_of_two_different_tasks_says_so(runs: dict[str, list]) -> None:
    a, b = runs["says_true"][0].results_path, runs["other_task"][0].results_path
    with pytest.raises(ResultsFileError, match="different tasks") as error:
        compare_results(a, b)
    assert "'negation_consistency:affirmative'" in str(error.value) and "'category_membership'" in str(error.value)
    assert "versions" not in str(error.value)
    result = CliRunner().invoke(cli, ["compare", str(a), str(b)])
    assert result.exit_code == 1 and "different tasks" in result.output


def test_evaluate_writes_the_merged_result_of_predictions_files(tmp_path: Path) -> None:
    task_dict = load_task("negation_consistency")
    files = {}
    for sid in ("affirmative", "negated"):
        rows = len(task_dict[sid].get_datasets_raw()["test"])
        files[sid] = tmp_path / f"{sid}.jsonl"
        files[sid].write_text("".join(json.dumps({"target": 0}) + "\n" for _ in range(rows)))  # always "true"
    args = ["evaluate", "-i", "negation_consistency", "--results-dir", str(tmp_path / "r")]
    args += [item for sid, path in files.items() for item in ("-p", f"{sid}={path}")]
    result = CliRunner().invoke(cli, [*args, "--model", "always-true"])
    assert result.exit_code == 0, result.output
    (merged_path,) = (tmp_path / "r").rglob("negation_consistency.json")
    document, _ = read_results(merged_path)
    assert is_merged_results(document) and len(document["merged_from"]) == 2
    accuracy = document["evaluations"][0]["metrics"]["hf_accuracy__accuracy"]
    assert accuracy["value"] == 0.5 and accuracy["ci"] == [0.5, 0.5]  # paired statements: one of each pair right
    assert f"Wrote {merged_path} (merged)" in result.output

    # without --model each subtask's model is its file's name: no single model, no merged file
    unnamed = ["evaluate", "-i", "negation_consistency", "--results-dir", str(tmp_path / "unnamed"), *args[5:]]
    result = CliRunner().invoke(cli, unnamed)
    assert result.exit_code == 0, result.output
    assert "No merged results file for negation_consistency" in result.output
    assert not list((tmp_path / "unnamed").rglob("negation_consistency.json"))
