"""A long task id never becomes an ``OSError: File name too long`` (issue 31): an id longer than a folder name can be
is refused before any path is built, and a results file of a long valid id gets a bounded file name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench._core.errors import InvalidTaskIdError
from genbench._leaderboard.collect import collect
from genbench._registry.directories import get_task_dir
from genbench.cli import cli
from genbench.runs._errors import ResultsFileError
from genbench.runs._results import read_results, read_results_document, results_path, run_identity, save_results
from tests.runs.results_pairs import results_document, samples, write_pair

LONG = "a" * 5000


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--model", "python:predictor.py:f", "-o", "out", "-t", LONG],
        ["evaluate", "-p", "predictions.json", "-t", LONG],
        ["eval-card", "-t", LONG],
        ["test-task", "-t", LONG],
        ["run", "--model", "python:predictor.py:f", "-o", "out", "-t", f"category_membership:{LONG}"],
    ],
    ids=["run", "evaluate", "eval-card", "test-task", "subtask"],
)
def test_a_task_id_longer_than_a_folder_name_is_one_clear_error(args: list[str], tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "predictions.json").write_text("{}")
    result = CliRunner().invoke(cli, args)
    assert result.exit_code != 0
    assert "Invalid task id 'aaaaaaaaaa" in result.output and "(5000 characters)" in result.output, result.output
    assert "OSError" not in result.output and "File name too long" not in result.output
    assert len(result.output) < 500  # the id is not printed in full


def test_the_limit_is_checked_before_any_path_is_built() -> None:
    with pytest.raises(InvalidTaskIdError, match=r"at most 255 characters"):
        get_task_dir("b" * 256)


def _document(task_id: str) -> dict:
    document = results_document(task_id, accuracy=0.5)
    document["run_identity"] = run_identity(
        document["model"], task_id, "0" * 64, shots=[0], seed=42, limit=None, generation=None
    )
    return document


def test_a_long_valid_task_id_gets_a_bounded_results_file_name(tmp_path: Path) -> None:
    task_id = "t" * 255 + ":" + "s" * 255  # the longest id a task can have: two folder names
    document = _document(task_id)
    saved = save_results(document, tmp_path / "results", samples([1.0, 0.0]))
    assert saved.path == results_path(tmp_path / "results", document["run_identity"])
    assert len(saved.path.name) < 255 and saved.path.name.startswith("t" * 100)
    read, rows = read_results(saved.path)
    assert read["task"]["id"] == task_id and rows is not None and len(rows) == 2
    other = save_results(_document("t" * 255 + ":" + "s" * 254 + "x"), tmp_path / "results", None)
    assert other.path != saved.path  # ids that share the kept prefix still get files of their own


def test_a_results_file_with_an_overlong_task_id_names_the_file(tmp_path: Path) -> None:
    path = write_pair(tmp_path / "results" / "m")
    document = json.loads(path.read_text())
    document["task"]["id"] = LONG
    path.write_text(json.dumps(document))
    with pytest.raises(ResultsFileError, match=r"toy_task\.json: task\.id 'aaaa.*\.\.\. \(5000 characters\) is not a"):
        read_results_document(path)
    with pytest.raises(ResultsFileError, match=r"toy_task\.json: task\.id"):
        collect([tmp_path / "results"])
