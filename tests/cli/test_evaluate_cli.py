"""``genbench-cli evaluate``: predictions files scored against a task's split."""

from __future__ import annotations

import json

import pytest

from genbench import load_task
from genbench._core.errors import PredictionError
from genbench.authoring._scaffold import create_task
from genbench.cli import cli
from genbench.cli._evaluate import read_predictions


@pytest.fixture
def task_id(task_root) -> str:
    create_task("Scored Task", tasks_dir=task_root)
    return "scored_task"


def _gold(task_id: str, split: str = "test") -> list:
    return list(load_task(task_id).get_datasets_raw()[split]["target"])


def test_gold_predictions_score_best(runner, tmp_path, task_id, write_predictions):
    predictions = write_predictions(tmp_path / "predictions.jsonl", _gold(task_id))
    result = runner.invoke(cli, ["evaluate", "-t", task_id, "--predictions", str(predictions)])
    assert result.exit_code == 0, result.output
    assert "scored_task (test, 10 examples)" in result.stdout
    assert "hf_exact_match__exact_match" in result.stdout and "1.0000" in result.stdout


def test_output_file(runner, tmp_path, task_id, write_predictions):
    targets = _gold(task_id)
    targets[0] = "wrong"
    predictions = write_predictions(tmp_path / "predictions.jsonl", targets)
    output = tmp_path / "out" / "results.json"
    result = runner.invoke(cli, ["evaluate", "-t", task_id, "-p", str(predictions), "--output-file", str(output)])
    assert result.exit_code == 0, result.output
    assert f"Wrote {output}" in result.stdout
    assert json.loads(output.read_text()) == {
        "task_id": "scored_task",
        "split": "test",
        "n": 10,
        "metrics": {"hf_exact_match__exact_match": 0.9},
    }
    assert [p.name for p in output.parent.iterdir()] == ["results.json"]  # no temporary file left


def test_other_split(runner, tmp_path, task_id, write_predictions):
    predictions = write_predictions(tmp_path / "train.jsonl", _gold(task_id, "train"))
    output = tmp_path / "results.json"
    result = runner.invoke(
        cli, ["evaluate", "-t", task_id, "-p", str(predictions), "--split", "train", "--output-file", output]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(output.read_text())["n"] == 8


def test_free_form_answers_are_extracted(runner, tmp_path, task_id, write_predictions):
    # The template's stop_string is a blank line: what follows it is not scored.
    predictions = write_predictions(tmp_path / "p.jsonl", [f"{t}\n\nQ: more" for t in _gold(task_id)])
    output = tmp_path / "results.json"
    assert (
        runner.invoke(cli, ["evaluate", "-t", task_id, "-p", str(predictions), "--output-file", output]).exit_code == 0
    )
    assert json.loads(output.read_text())["metrics"]["hf_exact_match__exact_match"] == 1.0


def test_bad_json_line_names_file_and_line(runner, tmp_path, task_id, write_predictions):
    predictions = write_predictions(tmp_path / "predictions.jsonl", _gold(task_id))
    lines = predictions.read_text().splitlines()
    lines[3] = '{"target": "465",}'
    predictions.write_text("\n".join(lines) + "\n")
    output = tmp_path / "results.json"
    result = runner.invoke(cli, ["evaluate", "-t", task_id, "-p", str(predictions), "--output-file", output])
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith(f"Error: {predictions}:4: invalid JSON")
    assert "Traceback" not in result.output
    assert not output.exists()


def test_line_that_is_not_an_object(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"target": "1"}\n["2"]\n')
    with pytest.raises(PredictionError, match=r"p.jsonl:2: expected a JSON object"):
        read_predictions(path)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"target": "1", "target": "2"}', "predictions.jsonl:2: key 'target' appears twice in one object; keep one"),
        ('{"target": ' + "[" * 100_000 + "]" * 100_000 + "}", "predictions.jsonl:2: values nested too deeply"),
    ],
    ids=["duplicate-key", "deep-nesting"],
)
def test_an_ambiguous_or_unreadable_line_names_the_file_and_line(tmp_path, line, message):
    # a duplicate key was read as its last value, silently; deep nesting crashed with a bare RecursionError
    path = tmp_path / "predictions.jsonl"
    path.write_text('{"target": "0"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(PredictionError, match=message):
        read_predictions(path)


def test_blank_lines_are_skipped(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('\n{"target": "1"}\n   \n{"target": "2"}\n')
    assert read_predictions(path) == [{"target": "1"}, {"target": "2"}]


def test_wrong_number_of_predictions(runner, tmp_path, task_id, write_predictions):
    predictions = write_predictions(tmp_path / "p.jsonl", _gold(task_id)[:3])
    result = runner.invoke(cli, ["evaluate", "-t", task_id, "-p", str(predictions)])
    assert result.exit_code == 1
    assert "3 predictions for the 10 examples of the 'test' split" in result.stderr


def test_missing_target_key_is_a_prediction_error(runner, tmp_path, task_id):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"answer": "1"}\n' * 10)
    result = runner.invoke(cli, ["evaluate", "-t", task_id, "-p", str(predictions)])
    assert result.exit_code == 1 and result.stderr.startswith("Error: ")
    assert "target" in result.stderr


def test_usage_errors(runner, tmp_path, task_id, write_predictions):
    predictions = write_predictions(tmp_path / "p.jsonl", _gold(task_id))
    missing = runner.invoke(cli, ["evaluate", "-t", task_id, "-p", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "'--predictions'" in missing.stderr and "does not exist" in missing.stderr
    two = runner.invoke(cli, ["evaluate", "-t", task_id, "-p", str(predictions), "-p", str(predictions)])
    assert two.exit_code == 2
    assert runner.invoke(cli, ["evaluate", "-t", task_id]).exit_code == 2
    unknown_split = runner.invoke(cli, ["evaluate", "-t", task_id, "-p", str(predictions), "--split", "dev"])
    assert unknown_split.exit_code == 1 and "no 'dev' split; its splits are: train, test" in unknown_split.stderr


# --------------------------------------------------------------------------------------------------- TaskDict
@pytest.fixture
def dict_id(task_root) -> str:
    create_task("Scored Dict", subtask_ids=["first", "second"], tasks_dir=task_root)
    return "scored_dict"


def test_task_dict_one_file_per_subtask(runner, tmp_path, dict_id, write_predictions):
    first = write_predictions(tmp_path / "first.jsonl", _gold(f"{dict_id}:first"))
    targets = _gold(f"{dict_id}:second")
    targets[:5] = ["x"] * 5
    second = write_predictions(tmp_path / "second.jsonl", targets)
    output = tmp_path / "results.json"
    result = runner.invoke(
        cli,
        ["evaluate", "-t", dict_id, "-p", f"second={second}", "-p", f"first={first}", "--output-file", str(output)],
    )
    assert result.exit_code == 0, result.output
    saved = json.loads(output.read_text())
    assert saved["n"] == 20
    assert saved["metrics"] == {
        "first.hf_exact_match__exact_match": 1.0,
        "second.hf_exact_match__exact_match": 0.5,
        "hf_exact_match__exact_match": 0.75,
    }
    assert saved["subtasks"]["second"] == {"n": 10, "metrics": {"hf_exact_match__exact_match": 0.5}}
    assert "merged" in result.stdout


def test_task_dict_one_subtask_by_id(runner, tmp_path, dict_id, write_predictions):
    predictions = write_predictions(tmp_path / "p.jsonl", _gold(f"{dict_id}:second"))
    result = runner.invoke(cli, ["evaluate", "-t", f"{dict_id}:second", "-p", str(predictions)])
    assert result.exit_code == 0, result.output
    assert "scored_dict:second (test, 10 examples)" in result.stdout


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (["{p}"], "give one SUBTASK=FILE per subtask"),
        (["first={p}"], "no predictions file for subtask(s) second"),
        (["first={p}", "third={p}"], "has no subtask 'third'"),
        (["first={p}", "first={p}", "second={p}"], "two files for subtask 'first'"),
    ],
)
def test_task_dict_usage_errors(runner, tmp_path, dict_id, write_predictions, values, message):
    predictions = write_predictions(tmp_path / "p.jsonl", _gold(f"{dict_id}:first"))
    args = [arg for value in values for arg in ("-p", value.format(p=predictions))]
    result = runner.invoke(cli, ["evaluate", "-t", dict_id, *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "'--predictions'" in result.stderr


def test_json_prints_the_results_document_alone_on_stdout(runner, tmp_path, task_id, write_predictions):
    predictions = write_predictions(tmp_path / "predictions.jsonl", _gold(task_id))
    output = tmp_path / "results.json"
    args = ["evaluate", "-t", task_id, "-p", str(predictions), "--output-file", str(output), "--json"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document == json.loads(output.read_text())
    assert document["task_id"] == task_id and document["n"] == 10
    assert document["metrics"]["hf_exact_match__exact_match"] == 1.0
    assert f"Wrote {output}" in result.stderr


def test_predictions_piped_through_dev_stdin(tmp_path):
    # Regression: `-p /dev/stdin` (a pipe, not a regular file) was refused: "file '/dev/stdin' does not exist".
    import subprocess
    import sys
    from pathlib import Path

    lines = "".join(json.dumps({"target": target}) + "\n" for target in _gold("arithmetic_length"))
    command = [str(Path(sys.executable).parent / "genbench-cli"), "evaluate", "--task", "arithmetic_length",
               "--predictions", "/dev/stdin", "--results-dir", str(tmp_path / "results"),
               "--model", "piped"]  # fmt: skip
    process = subprocess.run(command, input=lines, capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stdout + process.stderr
    assert "hf_exact_match__exact_match" in process.stdout and "1.0000" in process.stdout
    (written,) = (tmp_path / "results").rglob("arithmetic_length.json")  # read a second time, for the results file
    assert json.loads(written.read_text(encoding="utf-8"))["evaluations"][0]["num_examples"] == len(lines.splitlines())


def test_a_directory_given_as_predictions_is_named_as_such(runner, tmp_path, task_id):
    result = runner.invoke(cli, ["evaluate", "--task", task_id, "--predictions", str(tmp_path)])
    assert result.exit_code == 2 and "is a directory, not a predictions file" in result.output
