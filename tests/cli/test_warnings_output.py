"""Config warnings are rendered for people: one line each, grouped per task, never in Python's warnings format; and
``test-task`` reports a config's errors and warnings in one run."""

from __future__ import annotations

import json
import re

from genbench._core.errors import ConfigProblem, GenbenchConfigWarning, warning_record, warning_text
from genbench.cli import cli
from genbench.config import collect_config_warnings
from tests.conftest import TASK_PY

TYPO = "preparation_strategies.prompt_based_testing.prompt_builder.input_prefx: unknown field, ignored"


def _config(*, has_train_set: object = False, prefix_key: str = "input_prefix") -> dict:
    return {
        "name": "Warned",
        "description": "A task whose config has problems on purpose.",
        "keywords": ["test"],
        "authors": ["Ada"],
        "data_source": {"type": "manual", "test": "data/test.jsonl"},
        "has_train_set": has_train_set,
        "has_validation_set": False,
        "task_type": "free_form",
        "evaluation_metrics": [{"hf_id": "exact_match", "best_score": 1.0}],
        "preparation_strategies": {"prompt_based_testing": {"prompt_builder": {prefix_key: "Q: "}}},
    }


def _write(task_root, task_id: str, config: dict) -> None:
    task_dir = task_root / task_id
    (task_dir / "data").mkdir(parents=True)
    # One key per line, so that every field has its own line number.
    text = json.dumps(config, indent=2).replace('"TRUE"', "'true'")  # the string 'true' where a bool belongs
    (task_dir / "config.jsonnet").write_text(text)
    (task_dir / "__init__.py").write_text("")
    (task_dir / "task.py").write_text(TASK_PY)
    (task_dir / "doc.md").write_text("# Warned\n")
    (task_dir / "data" / "test.jsonl").write_text('{"input": "1 + 1", "target": "2"}\n' * 3)


def test_config_warnings_are_one_line_each_grouped_per_task(runner, task_root):
    _write(task_root, "warned_a", _config(prefix_key="input_prefx"))
    _write(task_root, "warned_b", _config(prefix_key="input_prefx"))
    for task_id in ("warned_a", "warned_b"):
        result = runner.invoke(cli, ["show-task", "-t", task_id, "--shots", "0"])
        assert result.exit_code == 0, result.output
        assert "GenbenchConfigWarning" not in result.output and "warnings.warn" not in result.output
        lines = result.stderr.splitlines()
        assert lines[0] == f"Config warnings of {task_id} (1):"
        assert re.fullmatch(
            rf"  \S*{task_id}/config\.jsonnet:\d+: {re.escape(TYPO)}; did you mean `input_prefix`\?", lines[1]
        )
        assert f"{task_id}: Warned" in result.stdout


def test_show_task_prints_nothing_on_stdout_before_an_error(runner, task_root):
    _write(task_root, "half_broken", _config(has_train_set="TRUE", prefix_key="input_prefx"))
    result = runner.invoke(cli, ["show-task", "-t", "half_broken"])
    assert result.exit_code == 1
    assert result.stdout == ""
    stderr = result.stderr.splitlines()
    assert stderr[0] == "Config warnings of half_broken (1):" and TYPO in stderr[1]  # the warnings, then the error
    assert stderr[-1].startswith("Error: ") and "has_train_set: expected a valid boolean" in stderr[-1]


def test_show_task_leaves_stdout_empty_when_the_data_fails(runner, task_root):
    _write(task_root, "bad_data", _config())
    (task_root / "bad_data" / "data" / "test.jsonl").write_text("{not json\n")
    result = runner.invoke(cli, ["show-task", "-t", "bad_data"])
    assert result.exit_code == 1
    assert result.stdout == "", result.stdout


def test_test_task_reports_errors_and_warnings_together(runner, task_root):
    _write(task_root, "both_problems", _config(has_train_set="TRUE", prefix_key="input_prefx"))
    result = runner.invoke(cli, ["test-task", "-t", "both_problems", "--no-task-code"])
    assert result.exit_code == 1
    assert "has_train_set: expected a valid boolean, got the string 'true'" in result.output
    assert "and 1 warning that a submitted task may not have:" in result.output
    assert TYPO in result.output


def test_list_tasks_json_carries_the_warnings_as_data(runner, task_root):
    _write(task_root, "warned_json", _config(prefix_key="input_prefx"))
    result = runner.invoke(cli, ["list-tasks", "--json"])
    assert result.exit_code == 0, result.output
    (record,) = [r for r in json.loads(result.stdout) if r["id"] == "warned_json"]
    config = task_root / "warned_json" / "config.jsonnet"
    line = next(n for n, text in enumerate(config.read_text().splitlines(), 1) if '"input_prefx"' in text)
    assert record["warnings"] == [
        {
            "file": str(config),
            "line": line,
            "field": "preparation_strategies.prompt_based_testing.prompt_builder.input_prefx",
            "message": "unknown field, ignored",
            "fix": "did you mean `input_prefix`?",
        }
    ]

    # The table's stderr line is the same warning as text, unchanged: str() of the warning the loader gives.
    (warning,) = collect_config_warnings(task_root / "warned_json")
    assert warning_text(record["warnings"][0]) == str(warning)
    table = runner.invoke(cli, ["list-tasks"])
    lines = table.stderr.splitlines()
    assert lines[lines.index("Config warnings of warned_json (1):") + 1] == f"  {warning}"


def test_a_warning_record_renders_back_to_the_warnings_text():
    problems = [
        ConfigProblem("x", "unknown field, ignored; it belongs in `a`; move it there", 3),
        ConfigProblem("", "no fix given", None),
        ConfigProblem("y", "ends with a bare separator; ", 7),
    ]
    for problem in problems:
        warning = GenbenchConfigWarning.from_problem("/t/config.jsonnet", problem)
        assert warning_text(warning.as_record()) == str(warning)
    record = GenbenchConfigWarning.from_problem(None, problems[0]).as_record()
    assert (record["message"], record["fix"]) == ("unknown field, ignored", "it belongs in `a`; move it there")
    assert GenbenchConfigWarning.from_problem(None, problems[1]).as_record()["fix"] is None
    text_only = GenbenchConfigWarning("a stray task.py; delete it")
    assert text_only.as_record() == {
        "file": None, "line": None, "field": None, "message": "a stray task.py; delete it", "fix": None
    }  # fmt: skip
    assert warning_text(warning_record(text_only)) == str(text_only)
    assert warning_record(DeprecationWarning("old"))["message"] == "old"


def test_list_tasks_table_shows_the_warnings_per_task_on_stderr(runner, task_root):
    _write(task_root, "warned_table", _config(prefix_key="input_prefx"))
    result = runner.invoke(cli, ["list-tasks"])
    assert result.exit_code == 0, result.output
    assert "warned_table" in result.stdout and TYPO not in result.stdout
    lines = result.stderr.splitlines()
    at = lines.index("Config warnings of warned_table (1):")
    assert TYPO in lines[at + 1]
