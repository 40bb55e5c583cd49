"""Damaged leaderboard inputs are errors naming the file (issue 20), never silently skipped, hung on or crashed by."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench._leaderboard.collect import LeaderboardError, collect
from genbench.cli import cli
from genbench.runs._errors import ResultsFileError
from tests.runs.results_pairs import results_document, write_pair


@pytest.fixture
def results(tmp_path: Path) -> Path:
    folder = tmp_path / "results" / "model"
    write_pair(folder)
    return tmp_path / "results"


def test_a_good_results_folder_collects(results: Path) -> None:
    board = collect([results])
    assert list(board.tasks) == ["toy_task"] and board.skipped == []


def test_a_damaged_results_file_is_an_error_not_a_skip(results: Path, tmp_path: Path) -> None:
    damaged = results / "model" / "other_task.json"
    damaged.write_text('{"schema_version": 1, "task": ')
    with pytest.raises(LeaderboardError, match=r"other_task.json: not valid JSON"):
        collect([results])
    result = CliRunner().invoke(cli, ["leaderboard", str(results), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1 and "other_task.json" in result.output and "Skipped" not in result.output


def test_a_json_file_that_is_no_results_file_is_still_skipped(results: Path) -> None:
    (results / "summary.json").write_text('{"tasks": 2}')
    assert [path.name for path in collect([results]).skipped] == ["summary.json"]


def test_a_deeply_nested_json_file_is_an_error_not_a_recursion_error(results: Path) -> None:
    (results / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(LeaderboardError, match=r"deep.json: nested deeper than"):
        collect([results])


def test_a_fifo_named_json_is_refused_without_opening_it(results: Path) -> None:
    os.mkfifo(results / "pipe.json")  # opening it for reading would block until a writer comes: the test would hang
    with pytest.raises(LeaderboardError, match=r"pipe.json: not a regular file"):
        collect([results])


def test_a_results_file_beside_another_runs_log_is_an_error(results: Path, tmp_path: Path) -> None:
    other = write_pair(tmp_path / "other", [0.0, 0.0, 0.0, 0.0])
    shutil.copy(other.with_name("toy_task.samples.jsonl"), results / "model" / "toy_task.samples.jsonl")
    with pytest.raises(ResultsFileError, match="not from the same run"):
        collect([results])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1" + "0" * 400, r"toy_task\.json: not valid JSON: the integer 1000000000\.\.\. \(401 digits\) is beyond"),
        ('0.1, "value": 0.99', r"toy_task\.json: not valid JSON: the key 'value' appears twice in one object"),
    ],
)
def test_a_metric_value_no_float_can_hold_or_given_twice_is_an_error_naming_the_file(
    results: Path, tmp_path: Path, value: str, message: str
) -> None:
    path = results / "model" / "toy_task.json"
    text = path.read_text()
    assert '"value": 0.5' in text
    path.write_text(text.replace('"value": 0.5', f'"value": {value}', 1))
    with pytest.raises(LeaderboardError, match=message):
        collect([results])
    result = CliRunner().invoke(cli, ["leaderboard", str(results), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1 and re.search(message, result.output), result.output
    assert "OverflowError" not in result.output


def _identified(accuracy: float, created: str) -> dict:
    from genbench.runs._results import run_identity

    document = results_document("toy_task", accuracy=accuracy)
    document["created"] = created
    document["run_identity"] = run_identity(
        document["model"], "toy_task", "0" * 64, shots=[0], seed=42, limit=None, generation=None
    )
    return document


def test_two_files_of_one_run_with_different_metrics_are_a_warning_naming_both(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from genbench.runs._results import write_results

    old = write_results(_identified(0.1, "2026-01-01T00:00:00+00:00"), tmp_path / "r" / "a" / "toy_task.json", None)
    new = write_results(_identified(0.99, "2026-01-02T00:00:00+00:00"), tmp_path / "r" / "b" / "toy_task.json", None)
    with caplog.at_level("WARNING", logger="genbench._leaderboard.collect"):
        board = collect([tmp_path / "r"])
    ((cell),) = board.cells.values()
    assert cell.evaluations[0]["metrics"]["exact_match"]["value"] == 0.99  # the newer, as before; now said
    assert f"{old} and {new} are results of the same run (run identity " in caplog.text
    assert "the leaderboard shows the newer" in caplog.text
    caplog.clear()
    write_results(_identified(0.99, "2026-01-03T00:00:00+00:00"), tmp_path / "r" / "a" / "toy_task.json", None)
    with caplog.at_level("WARNING", logger="genbench._leaderboard.collect"):
        collect([tmp_path / "r"])  # two copies of one result: nothing to warn about
    assert "same run" not in caplog.text
