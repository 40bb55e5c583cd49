"""``-q`` and ``--no-progress`` in every command: stdout carries the results only, progress goes to stderr (in the
order of the results it announces), and ``-q`` leaves out the notes."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.cli._output import display_path

PROGRESS_LINE = re.compile(r"^\[\s*(\d+)/(\d+)\] (\w+)\s+(\S+) / (\S+)$")


def _table_rows(stdout: str) -> list[tuple[str, str]]:
    """(task, check) of each row of test-task's table."""
    rows = []
    for line in stdout.splitlines():
        cells = [cell.strip() for cell in re.split(r"[│|]", line)]
        if len(cells) >= 5 and cells[3] in ("passed", "failed", "skipped", "warning"):
            rows.append((cells[1], cells[2]))
    return rows


def _test_task(*flags: str):
    return CliRunner().invoke(cli, [*flags, "test-task", "-t", "tiny"], catch_exceptions=False)


@pytest.fixture
def tiny_task(make_task, monkeypatch):
    make_task()
    monkeypatch.setenv("GENBENCH_SANDBOX", "none")  # the same run on every machine


def test_test_task_progress_goes_to_stderr_in_the_tables_order(tiny_task):
    result = _test_task()
    assert result.exit_code == 0, result.output
    rows = _table_rows(result.stdout)
    assert len(rows) == 21
    assert not any(PROGRESS_LINE.match(line) for line in result.stdout.splitlines()), result.stdout
    assert "Running the checks" not in result.stdout
    progress = [m for m in map(PROGRESS_LINE.match, result.stderr.splitlines()) if m]
    # The checks that run the task's code finish last (in a child process); their lines keep their rows' place.
    assert [(m.group(4), m.group(5)) for m in progress] == rows
    assert [int(m.group(1)) for m in progress] == list(range(1, 22))
    assert "[ 2/21] PASSED   tiny / required_files" in result.stderr


def test_test_task_progress_is_silenced_by_quiet_and_no_progress(tiny_task):
    for flags in (("-q",), ("--no-progress",)):
        result = _test_task(*flags)
        assert result.exit_code == 0, result.output
        assert not any(PROGRESS_LINE.match(line) for line in result.output.splitlines()), (flags, result.output)
        assert "Running the checks" not in result.output
        assert len(_table_rows(result.stdout)) == 21
        assert "No sandbox: turned off" in result.stderr  # a warning, not a note: printed under -q too


def test_quiet_leaves_out_the_notes_of_create_task(task_root):
    runner = CliRunner()
    loud = runner.invoke(cli, ["create-task", "-n", "Loud Task", "-a", "Ada", "--tasks-dir", str(task_root)])
    quiet = runner.invoke(cli, ["-q", "create-task", "-n", "Quiet Task", "-a", "Ada", "--tasks-dir", str(task_root)])
    assert loud.exit_code == 0 and quiet.exit_code == 0, (loud.output, quiet.output)
    assert "Creating task..." in loud.stdout and "Next steps:" in loud.stdout
    assert [line for line in quiet.stdout.splitlines() if not line.startswith("Note: ")] == [
        f"View the task at {display_path(task_root / 'quiet_task')}"
    ]
    assert (task_root / "quiet_task" / "config.jsonnet").is_file()


@pytest.mark.parametrize(
    "args",
    [
        ["data", "list"],
        ["list-tasks"],
        ["show-task", "-t", "arithmetic_length", "--shots", "0"],
        ["eval-card", "-t", "arithmetic_length"],
        ["schema"],
        ["show-task", "-i", "arithmetic_length", "--shots", "0"],  # a deprecation note
    ],
)
def test_quiet_keeps_the_results_and_drops_the_notes(args):
    runner = CliRunner()
    loud = runner.invoke(cli, args)
    quiet = runner.invoke(cli, ["-q", *args])
    assert loud.exit_code == 0 and quiet.exit_code == 0, (loud.output, quiet.output)
    assert all(line in loud.stdout.splitlines() for line in quiet.stdout.splitlines())
    assert [line for line in quiet.stderr.splitlines() if not line.startswith(("Warning", "Error"))] == []
    if args[0] == "data":
        assert "Cache: " in loud.stdout and "Cache: " not in quiet.stdout
    else:
        assert quiet.stdout == loud.stdout


def test_test_task_json_is_the_report(tiny_task):
    result = CliRunner().invoke(cli, ["test-task", "-t", "tiny", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [r["check"] for r in report["results"]][:2] == ["task_files", "required_files"]
    assert len(report["results"]) == 21
    assert "[ 2/21] PASSED   tiny / required_files" in result.stderr
