"""``genbench-cli test-task`` end to end: through click's CliRunner and as a real process, on good and broken tasks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.review import run_task_tests
from genbench.review._runner import SUITE
from genbench.review.checks import DOC_TEMPLATE_MARKER

GENBENCH_CLI = Path(sys.executable).with_name("genbench-cli")


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_help_explains_the_command_with_examples():
    result = invoke("test-task", "--help")
    assert result.exit_code == 0
    for text in ("-t, --task ID", "--submission", "genbench-cli test-task -t my_awesome_task", "GENBENCH_TASKS_PATH"):
        assert text in result.output


def test_the_group_lists_the_command():
    assert "test-task" in invoke("--help").output


def test_a_good_task_passes_with_a_summary(make_task):
    make_task()
    result = invoke("test-task", "-i", "tiny")
    assert result.exit_code == 0, result.output
    assert "[ 2/21] PASSED   tiny / required_files" in result.output  # progress, one line per check
    assert "genbench test-task tiny" in result.output  # the summary table
    assert "21 checks: 17 passed, 4 skipped" in result.output
    assert "the config has no split_file" in result.output  # a skip shows its reason


def test_a_broken_task_fails_with_the_message(make_task, task_config):
    make_task(config=task_config(evaluation_metrics=[{"hf_id": "exact_match", "best_score": 2.0}]))
    result = invoke("test-task", "--id", "tiny")
    assert result.exit_code == 1
    assert "FAILED tiny / gold_scores: Gold predictions reach best_score" in result.output
    assert "hf_exact_match__exact_match is 1.0, expected best_score 2.0" in result.output
    assert "21 checks: 16 passed, 4 skipped, 1 failed" in result.output
    assert "Error: 1 of 21 checks failed for task 'tiny'; see the messages above." in result.output


def test_submission_turns_the_doc_warning_into_a_failure(make_task):
    make_task(doc=f"# Tiny\n\n{DOC_TEMPLATE_MARKER}\n\nDescribe your task here.\n")
    normal = invoke("test-task", "-i", "tiny")
    assert normal.exit_code == 0, normal.output
    assert "WARNING tiny / doc: doc.md documents the task" in normal.output
    assert "21 checks: 16 passed, 1 warning, 4 skipped" in normal.output
    submission = invoke("test-task", "-i", "tiny", "--submission")
    assert submission.exit_code == 1
    assert "FAILED tiny / doc: doc.md documents the task" in submission.output
    assert "A submitted task needs real documentation." in submission.output


def test_a_task_dict_checks_every_subtask(make_task_dict):
    make_task_dict()
    result = invoke("test-task", "-i", "tiny_dict")
    assert result.exit_code == 0, result.output
    assert "tiny_dict:second / finetuning" in result.output
    assert "52 checks: 42 passed, 10 skipped" in result.output


def test_a_stray_task_py_next_to_subtasks_fails_the_config_check(make_task_dict):
    """The loader ignores it with a GenbenchConfigWarning; the trusted config check fails on that warning."""
    task_dir = make_task_dict()
    (task_dir / "task.py").write_text("from genbench import Task\n\n\nclass Stray(Task):\n    pass\n")
    result = invoke("test-task", "-i", "tiny_dict")
    assert result.exit_code == 1
    assert "FAILED tiny_dict / config: config.jsonnet is valid" in result.output
    assert f"{task_dir / 'task.py'}: ignored: tiny_dict is a task with subtasks" in result.output
    assert "Remove this task.py, or move it into a subtask directory." in result.output
    assert "52 checks: 41 passed, 10 skipped, 1 failed" in result.output


def test_an_unknown_task_is_one_error_line(make_task):
    make_task()
    result = invoke("test-task", "-t", "tinny")
    assert result.exit_code == 1
    assert result.output.startswith("Error: Task 'tinny' does not exist")
    assert "Did you mean 'tiny'?" in result.output


def test_the_id_is_required():
    result = invoke("test-task")
    assert result.exit_code == 2
    assert "Missing option '-t' / '--task'" in result.output


def test_run_task_tests_reports_progress_events(make_task):
    make_task()
    events: list[dict] = []
    report = run_task_tests("tiny", on_event=events.append, pytest_args=["-x"])
    assert report.ok and report.exit_code == 0
    assert events[0] == {"event": "collected", "total": 21}
    assert events[1] == {
        "event": "start",
        "task_id": "tiny",
        "check": "task_files",
        "title": "Only plain files inside the task directory",
    }
    results = [event["result"] for event in events if event["event"] == "result"]
    # The checks that need no task code run first, in this process; then the child's, as it reports them.
    trusted = ["task_files", "required_files", "config", "doc", "taxonomy", "prompt_lint", "split_file", "data_loads",
               "declared_splits",
               "no_iterable_dataset", "example_types", "no_duplicates", "test_overlap", "ngram_overlap"]  # fmt: skip
    assert [result.check for result in results] == trusted + [
        "task_loads", "method_names", "gold_scores", "primary_metric", "metric_directions", "prompts", "finetuning"
    ]  # fmt: skip
    assert sorted(result.check for result in report.results) == sorted(result.check for result in results)


def test_the_suite_without_a_task_id_is_skipped(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    process = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "genbench.review._plugin", "-c", str(tmp_path / "pytest.ini"),
         "--rootdir", str(tmp_path), "-p", "no:cacheprovider", "-rs", str(SUITE)],
        capture_output=True, text=True, env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    assert process.returncode == 0, process.stdout + process.stderr
    assert "1 skipped" in process.stdout
    assert "no task to check: run `genbench-cli test-task -t ID`" in process.stdout


@pytest.mark.skipif(not GENBENCH_CLI.is_file(), reason="genbench-cli is not installed next to this Python")
def test_the_installed_command_on_a_good_and_a_broken_task(make_task, task_config):
    make_task()
    make_task("broken", rows={"train": [{"input": "a", "target": "b"}], "test": [{"input": "a", "target": "b"}]})
    good = subprocess.run([str(GENBENCH_CLI), "test-task", "-i", "tiny"], capture_output=True, text=True)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "21 checks: 17 passed, 4 skipped" in good.stdout
    broken = subprocess.run([str(GENBENCH_CLI), "test-task", "-i", "broken"], capture_output=True, text=True)
    assert broken.returncode == 1
    assert "1 test example of 1 also occurs in the train or validation split:" in broken.stdout
    assert "Error: 1 of 21 checks failed for task 'broken'" in broken.stderr


def test_a_run_that_cannot_start_reports_pytest_output(make_task):
    make_task()
    report = run_task_tests("tiny", pytest_args=["--no-such-pytest-option"])
    assert not report.ok and report.exit_code == 4
    assert report.errors[0].startswith("pytest ran no task check (exit status 4). Its output:\n")
    assert "--no-such-pytest-option" in report.errors[0]


def test_a_run_past_its_timeout_is_stopped(make_task):
    make_task()
    report = run_task_tests("tiny", timeout=0.2)
    assert not report.ok
    assert report.errors == ["The checks did not finish within 0.2 s and were stopped."]


def test_timeout_option_defaults_to_the_runners_and_is_range_checked():
    import genbench.cli._test_task as command
    from genbench.review._runner import DEFAULT_TIMEOUT

    assert command.DEFAULT_TIMEOUT == DEFAULT_TIMEOUT
    help_text = invoke("test-task", "--help").output
    assert "--timeout SECONDS" in help_text and "--no-task-code" in help_text
    result = CliRunner().invoke(cli, ["test-task", "-i", "tiny", "--timeout", "0"])
    assert result.exit_code == 2 and "Invalid value for '--timeout'" in result.output
