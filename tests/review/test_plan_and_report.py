"""Which checks run, how prerequisites turn cascades into skips, and the report."""

from __future__ import annotations

import json

import pytest

from genbench._core.errors import TaskNotFoundError
from genbench.review import TASK_CHECKS, TASK_DICT_CHECKS, CheckResult, TaskTestReport, plan_checks, run_checks
from genbench.review.checks import DOC_TEMPLATE_MARKER

TASK_CHECK_NAMES = [check.name for check in TASK_CHECKS]


def outcomes(report: TaskTestReport) -> dict[str, str]:
    return {f"{r.task_id}/{r.check}": r.outcome for r in report.results}


def test_a_task_runs_every_task_check_in_order(make_task):
    make_task()
    assert [case.id for case in plan_checks("tiny")] == [f"tiny/{name}" for name in TASK_CHECK_NAMES]


def test_a_task_dict_runs_its_checks_then_each_subtasks(make_task_dict):
    make_task_dict(subtasks=("second", "first"))
    ids = [case.id for case in plan_checks("tiny_dict")]
    assert ids == (
        [f"tiny_dict/{check.name}" for check in TASK_DICT_CHECKS]
        + [f"tiny_dict:first/{name}" for name in TASK_CHECK_NAMES]
        + [f"tiny_dict:second/{name}" for name in TASK_CHECK_NAMES]
    )


def test_one_subtask_can_be_checked_alone(make_task_dict):
    make_task_dict()
    assert [case.id for case in plan_checks("tiny_dict:second")][:2] == [
        "tiny_dict:second/task_files",
        "tiny_dict:second/required_files",
    ]


def test_an_unknown_task_is_refused_with_suggestions(make_task):
    make_task()
    with pytest.raises(TaskNotFoundError, match="Did you mean 'tiny'"):
        plan_checks("tinny")


def test_a_good_task_passes_every_check(make_task):
    make_task()
    report = run_checks("tiny", submission=True)
    assert report.ok, report.format_text()
    assert report.counts() == {"passed": 17, "warning": 0, "skipped": 4, "failed": 0}
    # the tiny task's inputs ("1 + 2") are shorter than 8 tokens: the 8-gram overlap check cannot run, and says so
    skipped = {result.check: result.message for result in report.results if result.outcome == "skipped"}
    assert "every test input has fewer than 8 tokens" in skipped["ngram_overlap"]


def test_a_broken_data_source_fails_once_and_skips_what_depends_on_it(make_task, task_config):
    make_task(config=task_config(data_source={"type": "manual", "train": "train.jsonl", "test": "missing.jsonl"}))
    report = run_checks("tiny")
    result = outcomes(report)
    assert result["tiny/data_loads"] == "failed"
    assert [r.check for r in report.failures] == ["data_loads"]
    skipped = {r.check: r.message for r in report.results if r.outcome == "skipped"}
    assert skipped["example_types"] == "the task's data could not be loaded (see the data_loads check)"
    assert skipped["gold_scores"] == "the task's data could not be loaded (see the data_loads check)"


def test_bad_examples_skip_scoring_and_prompts(make_task, task_config):
    make_task(rows={"train": [{"input": "a", "target": "b"}], "test": [{"input": 1, "target": "b"}]})
    report = run_checks("tiny")
    assert [r.check for r in report.failures] == ["example_types"]
    skipped = {r.check: r.message for r in report.results if r.outcome == "skipped"}
    assert skipped["prompts"] == "examples do not match the task type (see the example_types check)"


def test_an_unloadable_task_dict_skips_its_merge(make_task_dict):
    make_task_dict(init_py="raise RuntimeError('boom')\n")
    report = run_checks("tiny_dict")
    assert outcomes(report)["tiny_dict/task_loads"] == "failed"
    assert "RuntimeError: boom (at __init__.py:1)" in report.failures[0].message
    assert outcomes(report)["tiny_dict/merge"] == "skipped"
    # Importing a subtask imports its parent package first, so the subtasks cannot load either.
    assert outcomes(report)["tiny_dict:first/task_loads"] == "failed"


def test_the_doc_template_warns_then_fails_a_submission(make_task):
    make_task(doc=f"# Tiny\n{DOC_TEMPLATE_MARKER}\n" + "Describe the task. " * 10)
    normal = run_checks("tiny")
    assert normal.ok and outcomes(normal)["tiny/doc"] == "warning"
    assert "template" in normal.warnings[0].warnings[0]
    submission = run_checks("tiny", submission=True)
    assert not submission.ok and [r.check for r in submission.failures] == ["doc"]


def test_an_unexpected_error_in_task_code_is_a_failure_with_details(make_task):
    make_task(
        task_py="from genbench import Task\n\n\nclass TinyTask(Task):\n"
        "    def get_prepared_datasets(self, preparation_strategy, shot_list=None, random_seed=42):\n"
        "        raise ZeroDivisionError('oops')\n"
    )
    report = run_checks("tiny")
    finetuning = next(r for r in report.results if r.check == "finetuning")
    assert finetuning.outcome == "failed"
    assert finetuning.message == "Preparing finetuning datasets failed: ZeroDivisionError: oops (at task.py:6)"


def test_results_are_streamed(make_task):
    make_task()
    seen: list[str] = []
    run_checks("tiny", on_result=lambda result: seen.append(result.check))
    assert seen == TASK_CHECK_NAMES


def test_report_summary_text_and_json_round_trip():
    report = TaskTestReport(
        "t",
        results=[
            CheckResult("t", "config", "config.jsonnet is valid", "passed"),
            CheckResult("t", "doc", "doc.md documents the task", "warning", warnings=["doc.md has only 2 words."]),
            CheckResult("t", "split_file", "The split file is valid", "skipped", message="no split_file"),
            CheckResult("t", "example_types", "Examples match the task type", "failed", message="bad\nexample"),
        ],
    )
    assert not report.ok
    assert report.summary_line() == "4 checks: 1 passed, 1 warning, 1 skipped, 1 failed"
    text = report.format_text()
    assert "  FAILED   t / example_types: Examples match the task type" in text
    assert "FAILED t / example_types:\n    bad\n    example" in text
    assert "WARNING t / doc:\n    doc.md has only 2 words." in text
    assert TaskTestReport.from_dict(json.loads(report.to_json())) == report


def test_an_empty_report_is_not_ok():
    assert not TaskTestReport("t").ok
    assert TaskTestReport("t").summary_line() == "0 checks: none ran"
