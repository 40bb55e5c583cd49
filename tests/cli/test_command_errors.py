"""Raw exceptions of commands that became genbench errors with one clear message (issue 13, item 12).

Each case was reproduced first: NaN reranking scores gave ``ValueError: scores contain NaN``, a non-UTF-8
predictions file a ``UnicodeDecodeError``, ``contamination index --text_field`` on nested lists an
``ArrowNotImplementedError``, an output folder under a file or in an unwritable place a ``NotADirectoryError`` /
``FileNotFoundError`` (and for ``demo``, the same error once per task).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from click.testing import CliRunner

from genbench import load_task
from genbench._core.errors import GenBenchError, MetricError, OutputError, PredictionError
from genbench._core.files import prepare_output_dir, write_text_atomic
from genbench.cli import cli
from genbench.contamination import build_index
from genbench.contamination._errors import ContaminationError
from genbench.reranking import RerankingSamples, binary_classification_metrics, ranking_metrics


def _assert_one_error_line(result, *fragments: str) -> None:
    assert result.exit_code == 1, result.output
    error_lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(error_lines) == 1, result.output
    for fragment in fragments:
        assert fragment in error_lines[0], error_lines[0]
    for raw in ("ValueError", "UnicodeDecodeError", "ArrowNotImplementedError", "FileNotFoundError", "Traceback"):
        assert raw not in result.output


# --- NaN reranking scores -------------------------------------------------------------------------------------


def _reranking_predictions(path: Path, nan_at: int) -> Path:
    gold = load_task("passage_reranking_shift").get_datasets_raw()["test"]
    lines = []
    for number, options in enumerate(gold["target_options"]):
        scores = [0.5] * len(options)
        if number == nan_at:
            scores[0] = float("nan")
        lines.append(json.dumps({"target": scores}))  # json writes NaN, and json.loads reads it back
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_evaluate_nan_reranking_scores_is_a_prediction_error_naming_file_and_prediction(tmp_path):
    predictions = _reranking_predictions(tmp_path / "scores.jsonl", nan_at=1)
    result = CliRunner().invoke(cli, ["evaluate", "-t", "passage_reranking_shift", "-p", str(predictions)])
    _assert_one_error_line(result, "scores.jsonl", "predictions[1]['target'] contains NaN")


def test_task_evaluate_predictions_refuses_nan_scores():
    task = load_task("passage_reranking_shift")
    gold = task.get_datasets_raw()["test"]
    predictions = [{"target": [float("nan")] * len(options)} for options in gold["target_options"]]
    with pytest.raises(PredictionError, match=r"predictions\[0\]\['target'\] contains NaN"):
        task.evaluate_predictions(predictions=predictions, gold=gold)


@pytest.mark.parametrize(
    "compute",
    [
        lambda: ranking_metrics([[0.1, float("nan")]], [[1, 0]]),
        lambda: binary_classification_metrics([0.2, float("nan"), 0.9], [0, 1, 1]),
        lambda: RerankingSamples([{"query": "q", "positive": ["a"], "negative": ["b", "c"]}]).compute_metrics(
            np.array([0.3, np.nan, 0.1])
        ),
    ],
    ids=["ranking_metrics", "binary_classification", "reranking_samples"],
)
def test_library_nan_scores_are_a_metric_error_that_is_still_a_value_error(compute):
    with pytest.raises(MetricError, match=r"scores contain NaN \(1 of 3 scores|scores contain NaN \(1 of 2") as info:
        compute()
    assert isinstance(info.value, ValueError)  # callers written against the original keep working


# --- non-UTF-8 predictions --------------------------------------------------------------------------------------


def test_evaluate_latin1_predictions_names_file_and_line(tmp_path):
    predictions = tmp_path / "latin1.jsonl"
    predictions.write_bytes(b'{"target": "1"}\n{"target": "caf\xe9"}\n')
    result = CliRunner().invoke(cli, ["evaluate", "-t", "arithmetic_length", "-p", str(predictions)])
    _assert_one_error_line(result, "latin1.jsonl:2: not UTF-8 text", "save the file as UTF-8")


def test_evaluate_utf16_predictions_is_a_prediction_error(tmp_path):
    from genbench.cli._evaluate import read_predictions

    predictions = tmp_path / "utf16.jsonl"
    predictions.write_bytes('{"target": "1"}\n'.encode("utf-16"))
    with pytest.raises(PredictionError, match=r"utf16.jsonl:1: not UTF-8 text"):
        read_predictions(predictions)


def test_predictions_with_a_utf8_byte_order_mark_still_load(tmp_path):
    from genbench.cli._evaluate import read_predictions

    predictions = tmp_path / "bom.jsonl"
    predictions.write_bytes('{"target": "café"}\n'.encode("utf-8-sig"))
    assert read_predictions(predictions) == [{"target": "café"}]


# --- contamination index --text_field on nested values -------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "kind"),
    [([["a", "b"], ["c"]], "list<item: list<item: string>>"), ({"text": "a"}, "struct<text: string>")],
    ids=["nested-lists", "objects"],
)
def test_index_text_field_of_nested_values_is_a_contamination_error(tmp_path, value, kind):
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"t": value}) + "\n", encoding="utf-8")
    args = ["contamination", "index", "--dataset", str(train), "--text_field", "t", "--index_dir", str(tmp_path)]
    result = CliRunner().invoke(cli, [*args, "--no-progress"])
    _assert_one_error_line(result, "The field 't'", kind, "--text-field takes a field of texts")
    with pytest.raises(ContaminationError, match="nested lists and objects cannot be indexed"):
        build_index(str(train), text_field="t", index_dir=tmp_path / "api")


def test_index_text_field_of_lists_of_texts_still_works(tmp_path):
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"t": ["a b", "c"]}) + "\n" + json.dumps({"t": ["d"]}) + "\n", encoding="utf-8")
    (manifest,) = build_index(str(train), text_field="t", index_dir=tmp_path / "idx")
    assert manifest["counts"]["units"] == 2 and manifest["counts"]["tokens"] == 4


# --- unwritable output folders -----------------------------------------------------------------------------------


@pytest.fixture
def a_file(tmp_path) -> Path:
    path = tmp_path / "a_file.txt"
    path.write_text("not a folder", encoding="utf-8")
    return path


def test_search_output_dir_under_a_file_fails_before_searching(tmp_path, a_file):
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"messages": [{"role": "user", "content": "what is 2 + 2"}]}) + "\n", "utf-8")
    test = tmp_path / "test.jsonl"
    test.write_text(json.dumps({"q": "what is 2 + 2"}) + "\n", "utf-8")
    index_dir = tmp_path / "idx"
    build_index(str(train), index_dir=index_dir)
    args = ["contamination", "search", "--train_dataset_names", str(train), "--dataset", str(test), "--field", "q"]
    with mock.patch("genbench.contamination.search") as search:
        result = CliRunner().invoke(
            cli, [*args, "--index_dir", str(index_dir), "--output_dir", str(a_file / "out"), "--no-progress"]
        )
    _assert_one_error_line(result, "Cannot write to the output folder", "a_file.txt/out", "is a file")
    search.assert_not_called()


def test_index_dir_under_a_file_is_an_output_error(tmp_path, a_file):
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"messages": [{"role": "user", "content": "hi there"}]}) + "\n", "utf-8")
    with pytest.raises(OutputError, match="a_file.txt/idx"):
        build_index(str(train), index_dir=a_file / "idx")


def test_demo_output_dir_under_a_file_is_one_error_not_one_per_task(a_file):
    result = CliRunner().invoke(cli, ["demo", "-t", "arithmetic_length", "--shots", "0", "-o", str(a_file / "out")])
    _assert_one_error_line(result, "Cannot write to the output folder")
    assert "failed" not in result.output


@pytest.mark.parametrize("command", [["schema"], ["evaluate", "-t", "arithmetic_length", "-p", "x.jsonl"]])
def test_output_file_under_a_file_is_an_output_error(command, a_file):
    result = CliRunner().invoke(cli, [*command, "--output-file", str(a_file / "sub" / "out.json")])
    _assert_one_error_line(result, "Cannot write to the output folder", "a_file.txt/sub")


def test_missing_location_is_an_output_error_not_file_not_found(tmp_path):
    with (
        mock.patch.object(Path, "mkdir", side_effect=FileNotFoundError(2, "No such file or directory")),
        pytest.raises(OutputError, match="No such file or directory") as info,
    ):
        prepare_output_dir(tmp_path / "gone" / "out")
    assert isinstance(info.value, OSError) and isinstance(info.value, GenBenchError)
    assert "Errno" not in str(info.value)


def test_read_only_folder_is_an_output_error(tmp_path):
    with mock.patch.object(os, "access", return_value=False), pytest.raises(OutputError, match="Permission denied"):
        prepare_output_dir(tmp_path)
    with (
        mock.patch("tempfile.mkstemp", side_effect=PermissionError(13, "Permission denied")),
        pytest.raises(OutputError, match="Cannot write to the output file .*out.json: Permission denied"),
    ):
        write_text_atomic(tmp_path / "out.json", "{}")
