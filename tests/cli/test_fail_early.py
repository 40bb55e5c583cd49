"""Argument and task-type checks come before any model or task data is loaded."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import genbench.contamination
import genbench.reranking._task_evaluation as task_evaluation
from genbench.cli import cli


class _NoLoading:
    """Stands in for a model class: constructing it means weights would be loaded."""

    def __init__(self, *args, **kwargs):
        raise AssertionError("a model was loaded")


@pytest.mark.parametrize("args", [["--bi-encoder"], ["-m", "/models/some-cross-encoder"]])
def test_rerank_refuses_a_task_of_another_type_before_loading_the_model(monkeypatch, args):
    monkeypatch.setattr(task_evaluation, "BiEncoderScorer", _NoLoading)
    monkeypatch.setattr(task_evaluation, "load_cross_encoder", _NoLoading)
    result = CliRunner().invoke(cli, ["rerank", "-t", "category_membership", *args])
    assert result.exit_code == 1, result.output
    assert "Error: Task 'category_membership' (multiple_choice) is not a reranking task" in result.output
    assert "a model was loaded" not in result.output


def test_searching_a_missing_index_loads_no_task(monkeypatch, tmp_path):
    def no_tasks(*args, **kwargs):
        raise AssertionError("every task was loaded")

    monkeypatch.setattr(genbench.contamination, "task_test_sets", no_tasks)
    args = ["contamination", "search", "--train_dataset_names", "nope.jsonl", "--index-dir", str(tmp_path / "idx")]
    result = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output
    assert "every task was loaded" not in result.output
    assert "nope.jsonl" in result.output


def test_run_refuses_an_unknown_task_before_loading_the_model(monkeypatch, tmp_path):
    import genbench.runs._execute as execute

    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(execute, "load_runner", no_model)
    result = CliRunner().invoke(
        cli, ["run", "-m", "hf:gpt2", "-t", "arithmetic_length,zz_no_such", "-o", str(tmp_path)]
    )
    assert result.exit_code == 1, result.output
    assert "Task 'zz_no_such' does not exist" in result.output
    assert "the model was loaded" not in result.output
