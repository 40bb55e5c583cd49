"""Results files carry the task's taxonomy and primary_metric, for the leaderboard to group and rank by."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from genbench import load_task
from genbench.cli import cli
from genbench.runs._execute import task_metadata
from genbench.runs._results import read_results, schema_problems


def test_a_results_file_records_taxonomy_and_primary_metric(tmp_path: Path) -> None:
    gold = load_task("arithmetic_length").get_datasets_raw()["test"]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"target": t}) + "\n" for t in gold["target"]))
    args = ["evaluate", "-i", "arithmetic_length", "-p", str(predictions), "--results-dir", str(tmp_path / "r")]
    result = CliRunner().invoke(cli, [*args, "--model", "gold"])
    assert result.exit_code == 0, result.output
    (path,) = (tmp_path / "r").rglob("arithmetic_length.json")
    document, _ = read_results(path)  # validated against results.schema.json
    assert document["task"]["taxonomy"] == {
        "motivation": ["intrinsic"],
        "generalisation_type": ["compositional"],
        "shift_type": ["covariate"],
        "shift_source": ["fully_generated_data"],
        "shift_locus": ["train-test"],
    }
    assert document["task"]["primary_metric"] == "hf_exact_match__exact_match"
    assert document["task"]["primary_metric"] in document["evaluations"][0]["metrics"]


def test_a_task_without_them_records_neither(make_task, task_config) -> None:
    config = task_config()
    del config["taxonomy"]
    make_task(config=config)
    assert task_metadata("tiny", load_task("tiny").config) == {}


def test_a_subtask_records_the_taxonomy_of_its_task_with_subtasks() -> None:
    negated = load_task("negation_consistency:negated")
    assert negated.config.taxonomy is None  # declared once, by the task with subtasks
    record = task_metadata(negated.task_id, negated.config)
    assert record["taxonomy"]["generalisation_type"] == ["compositional"] and "primary_metric" not in record


def test_the_schema_refuses_a_malformed_taxonomy_or_primary_metric() -> None:
    base = {"id": "t", "name": "T", "task_type": "free_form", "fingerprint": {}}
    problems = schema_problems({"task": {**base, "taxonomy": {"shift": ["x"]}}})
    assert "task.taxonomy.shift: unknown field (not in the results schema)" in problems
    problems = schema_problems({"task": {**base, "taxonomy": {"shift_locus": "train-test"}, "primary_metric": ""}})
    assert "task.taxonomy.shift_locus: Input should be a valid list" in problems
    assert "task.primary_metric: String should have at least 1 character" in problems


def test_a_results_file_records_the_declared_metric_directions() -> None:
    task = load_task("negation_consistency")
    record = task_metadata(task.task_id, task.config)
    assert record["metric_directions"] == {"negation_gap__*": "zero"}
    base = {"id": "t", "name": "T", "task_type": "free_form", "fingerprint": {}}
    assert not [p for p in schema_problems({"task": {**base, **record}}) if p.startswith("task.metric_directions")]
    problems = schema_problems({"task": {**base, "metric_directions": {"hf_wer__wer": "down"}}})
    assert "task.metric_directions.hf_wer__wer: Input should be 'higher', 'lower' or 'zero'" in problems
