"""`evaluate --results-dir` and the demo write the same results format as model runs."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import genbench.runs._offline as offline
from genbench import load_task
from genbench.cli import cli
from genbench.runs._demo import run_demo
from genbench.runs._results import read_results
from genbench.runs._scoring import BootstrapSettings
from tests.conftest import MakeTask

FAST = BootstrapSettings(resamples=100, statistic_resamples=20)


def test_evaluate_writes_a_results_file_with_prompts_when_shots_are_given(tmp_path: Path) -> None:
    gold = load_task("arithmetic_length").get_datasets_raw()["test"]
    predictions = tmp_path / "predictions.jsonl"
    answers = [t if i % 2 else "wrong" for i, t in enumerate(gold["target"])]
    predictions.write_text("".join(json.dumps({"target": a}) + "\n" for a in answers))
    args = ["evaluate", "-i", "arithmetic_length", "-p", str(predictions), "--results-dir", str(tmp_path / "r")]
    result = CliRunner().invoke(cli, [*args, "--model", "my-llm", "--shots", "0"])
    assert result.exit_code == 0, result.output
    (path,) = (tmp_path / "r").rglob("arithmetic_length.json")
    document, samples = read_results(path)
    assert document["model"] == {"spec": "predictions:my-llm", "kind": "predictions", "revision": None}
    evaluation = document["evaluations"][0]
    assert evaluation["shots"] == 0 and evaluation["prompt_builder_sha256"]
    expected = sum(1 for i in range(len(answers)) if i % 2) / len(answers)
    assert evaluation["metrics"]["hf_exact_match__exact_match"]["value"] == expected
    assert samples is not None and all(gold[s["_genbench_idx"]]["input"] in s["prompt"] for s in samples)
    assert [s["raw_output"] for s in samples] == answers


def test_evaluate_results_for_each_subtask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # fewer recomputations of the corpus-level F1 keep the test fast
    monkeypatch.setattr(offline, "BootstrapSettings", functools.partial(BootstrapSettings, statistic_resamples=10))
    task = load_task("negation_consistency")
    args = ["evaluate", "-i", "negation_consistency", "--results-dir", str(tmp_path / "r")]
    for subtask_id in task:
        rows = task[subtask_id].get_datasets_raw()["test"]
        (tmp_path / f"{subtask_id}.jsonl").write_text("".join('{"target": 0}\n' for _ in range(len(rows))))
        args += ["-p", f"{subtask_id}={tmp_path / f'{subtask_id}.jsonl'}"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in (tmp_path / "r").rglob("*.json"))
    assert written == [f"negation_consistency.{sid}.json" for sid in sorted(task)]
    document, _ = read_results(next((tmp_path / "r").rglob("*.json")))
    assert document["bootstrap"]["statistic_resamples"] == 10
    assert document["evaluations"][0]["metrics"]["hf_f1__f1"]["ci_method"] == "bootstrap_statistic"


def test_demo_writes_baseline_results_in_the_run_format(tmp_path: Path) -> None:
    results = run_demo(
        tmp_path / "demo", task_ids=["category_membership"], shot_list=[0, 1], results_dir=tmp_path / "r"
    )
    assert results[0].ok
    (path,) = (tmp_path / "r").rglob("category_membership.json")
    document, samples = read_results(path)
    assert document["model"]["spec"] == "baseline:majority_option"
    assert [e["shots"] for e in document["evaluations"]] == [0, 1]
    # the same numbers as the demo's own results file
    for evaluation in document["evaluations"]:
        demo_value = results[0].metrics[str(evaluation["shots"])]["hf_accuracy__accuracy"]
        assert evaluation["metrics"]["hf_accuracy__accuracy"]["value"] == demo_value


def test_demo_writes_the_merged_result_of_a_task_with_subtasks(tmp_path: Path) -> None:
    results = run_demo(tmp_path / "demo", task_ids=["negation_consistency"], shot_list=[0], results_dir=tmp_path / "r")
    assert results[0].ok, results[0].error
    (merged,) = (tmp_path / "r").rglob("negation_consistency.json")
    document, _ = read_results(merged)
    assert document["task"]["subtasks"] == ["negation_consistency:affirmative", "negation_consistency:negated"]
    assert {entry["task_id"] for entry in document["merged_from"]} == set(document["task"]["subtasks"])
    metrics = document["evaluations"][0]["metrics"]
    assert metrics["hf_accuracy__accuracy"]["ci_method"] == "bootstrap_merged"
    # the demo's own merged numbers (the TaskDict's merge_evaluation_results) are the results file's
    assert metrics["hf_accuracy__accuracy"]["value"] == pytest.approx(results[0].metrics["0"]["hf_accuracy__accuracy"])
    assert any(key.startswith("negation_gap") for key in metrics)


def test_the_logged_prediction_is_what_was_scored_without_prompt_based_testing(
    make_task: MakeTask, task_config: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    # Without prompt-based testing no stop string applies: "3\n\nmore" is scored whole (wrong), and the per-sample
    # log must say so (it once logged "3", cut at the default prompt builder's "\n\n", next to a score of 0).
    config = task_config(preparation_strategies={"finetuning": {"objective": "maximum_likelihood"}})
    make_task("tiny", config=config)
    task = load_task("tiny")
    gold = task.get_datasets_raw()["test"]
    answers = [f"{t}\n\nmore" if i % 2 else t for i, t in enumerate(gold["target"])]
    run = offline.predictions_run(
        task, [{"target": a} for a in answers], gold, model="m", output_dir=tmp_path / "r", bootstrap=FAST
    )
    assert run.samples is not None
    assert [s["prediction"] for s in run.samples] == answers
    assert [s["metrics"]["hf_exact_match__exact_match"] for s in run.samples] == [float(i % 2 == 0) for i in range(10)]
    assert run.document["evaluations"][0]["metrics"]["hf_exact_match__exact_match"]["value"] == 0.5
