"""Results files are tied to their per-sample logs and read strictly (issue 20): a mismatched pair, NaN, a task id
with a newline or a deep or special file is an error naming the file, never a number computed from nothing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.runs._errors import ResultsFileError
from genbench.runs._results import read_results, write_results
from tests.runs.results_pairs import results_document, write_pair


def test_results_record_the_checksum_and_row_count_of_their_log(tmp_path: Path) -> None:
    path = write_pair(tmp_path)
    document = json.loads(path.read_text())
    log = tmp_path / document["samples_file"]
    assert document["samples_sha256"] == hashlib.sha256(log.read_bytes()).hexdigest()
    assert document["samples_count"] == 4
    read_document, rows = read_results(path)
    assert read_document == document and rows is not None and len(rows) == 4


def test_a_results_file_naming_another_runs_log_is_an_error(tmp_path: Path) -> None:
    """The reproducer: a run killed between the two renames leaves the old results file next to a new log."""
    old = write_pair(tmp_path / "old", [1.0, 1.0, 1.0, 1.0])
    write_pair(tmp_path / "new", [0.0, 0.0, 0.0, 0.0])
    shutil.copy(tmp_path / "new" / "toy_task.samples.jsonl", tmp_path / "old" / "toy_task.samples.jsonl")
    for with_samples in (True, False):
        with pytest.raises(ResultsFileError) as error:
            read_results(old, with_samples=with_samples)
        message = str(error.value)
        assert "toy_task.json" in message and "toy_task.samples.jsonl" in message
        assert "not from the same run" in message and "genbench-cli run --model python:predict.py:f" in message

    result = CliRunner().invoke(cli, ["compare", str(old), str(tmp_path / "new" / "toy_task.json")])
    assert result.exit_code == 1 and "not from the same run" in result.output


def test_a_log_cut_short_or_with_a_row_dropped_is_an_error(tmp_path: Path) -> None:
    path = write_pair(tmp_path)
    log = tmp_path / "toy_task.samples.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-1]))
    with pytest.raises(ResultsFileError, match="not from the same run"):
        read_results(path)
    log.write_text("".join(lines)[:-10])
    with pytest.raises(ResultsFileError, match=r"samples.jsonl:4: not valid JSON"):
        read_results(path)


def test_nan_in_a_log_is_refused_not_compared(tmp_path: Path) -> None:
    """compare used to report a 'significant' difference computed from NaN scores."""
    a = write_pair(tmp_path / "a")
    b = write_pair(tmp_path / "b")
    log = tmp_path / "b" / "toy_task.samples.jsonl"
    log.write_text(log.read_text().replace('"exact_match": 0.0', '"exact_match": NaN'))
    document = json.loads(b.read_text())
    document.pop("samples_sha256"), document.pop("samples_count")  # as an older genbench wrote it
    b.write_text(json.dumps(document))
    with pytest.raises(ResultsFileError, match=r"samples.jsonl:2: not valid JSON: NaN is not a JSON number"):
        read_results(b)
    result = CliRunner().invoke(cli, ["compare", str(a), str(b)])
    assert result.exit_code == 1 and "NaN is not a JSON number" in result.output


def test_infinity_in_a_results_file_is_refused(tmp_path: Path) -> None:
    path = write_pair(tmp_path)
    path.write_text(path.read_text().replace('"run_seconds": 1.0', '"run_seconds": Infinity'))
    with pytest.raises(ResultsFileError, match=r"toy_task.json: not valid JSON: Infinity"):
        read_results(path)


def test_a_metric_value_must_be_a_number_list_object_or_null(tmp_path: Path) -> None:
    document = results_document()
    document["evaluations"][0]["metrics"]["exact_match"]["value"] = "0.5"
    with pytest.raises(ResultsFileError, match="value: .0.5. is not a number, a list or object of numbers"):
        write_results(document, tmp_path / "toy_task.json", None)


@pytest.mark.parametrize("task_id", ["toy_task\n", "toy_task\r", "toy\ttask", "toy_task:sub\n"])
def test_a_task_id_with_a_control_character_is_refused(tmp_path: Path, task_id: str) -> None:
    with pytest.raises(ResultsFileError, match="is not a task id"):
        write_results(results_document(task_id), tmp_path / "toy_task.json", None)
    path = write_pair(tmp_path)
    document = json.loads(path.read_text())
    document["task"]["id"] = task_id
    path.write_text(json.dumps(document))
    with pytest.raises(ResultsFileError, match="is not a task id"):
        read_results(path, with_samples=False)


def test_the_schema_itself_refuses_a_final_newline_in_a_task_id() -> None:
    from genbench.runs._results import schema_problems

    document = results_document("toy_task\n")
    assert any(problem.startswith("task.id") for problem in schema_problems(document))
    assert schema_problems(results_document("toy_task:sub")) == []


def test_deep_and_special_results_files_are_errors(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ResultsFileError, match="deep.json: nested deeper than the 200 levels allowed"):
        read_results(deep)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(ResultsFileError, match="fifo.json: is not a regular file"):
        read_results(fifo)
