"""Issue 31: the review reads no data outside the task directory. A submitted config that points a split at an
absolute path, a ``file://`` URI, a ``..`` path or a local ``hf_id`` folder outside the task fails ``data_loads``,
and nothing of the outside file (its content, or whether it exists) reaches the report, with and without the
checks that run the task's code. Loading a task of one's own stays lenient."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench._core.errors import DataLoadError
from genbench.cli import cli
from genbench.config._schema import DataSourceConfig
from genbench.data import load_data_source
from genbench.data._confinement import confined_data_paths
from genbench.review import run_task_tests
from genbench.review._sandbox import SandboxStatus, sandbox_status

SECRET = "TOPSECRET-A"
# Duplicated rows: the duplicates check quotes a duplicate's input into its message.
SECRET_ROWS = [{"input": SECRET, "target": "x"}] * 3 + [{"input": f"{SECRET}-{i}", "target": "y"} for i in range(3)]
NO_SANDBOX = SandboxStatus("none", reason="turned off (GENBENCH_SANDBOX=none)")
# Mentions format_example: the task's code shapes its data, so the data checks run in the child.
SHAPING_TASK_PY = (
    "from genbench import Task\n\n\nclass TinyTask(Task):\n"
    "    def format_example(self, example):\n        return super().format_example(example)\n"
)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory outside every task, holding the secret as JSONL (and as a folder an ``hf_id`` could name)."""
    secret_dir = tmp_path / "outside"
    (secret_dir / "dataset").mkdir(parents=True)
    text = "".join(json.dumps(row) + "\n" for row in SECRET_ROWS)
    (secret_dir / "secret.jsonl").write_text(text, encoding="utf-8")
    (secret_dir / "dataset" / "test.jsonl").write_text(text, encoding="utf-8")
    (secret_dir / "not_json.txt").write_text(f"{SECRET} is not JSON\n", encoding="utf-8")
    return secret_dir


def _data_sources(outside: Path, task_dir: Path) -> dict[str, dict[str, object]]:
    back = os.path.relpath(outside / "secret.jsonl", task_dir)
    return {
        "absolute": {"type": "manual", "train": "train.jsonl", "test": str(outside / "secret.jsonl")},
        "file uri": {"type": "manual", "train": "train.jsonl", "test": (outside / "secret.jsonl").as_uri()},
        "file uri, localhost": {
            "type": "manual",
            "train": "train.jsonl",
            "test": f"file://localhost{outside}/secret.jsonl",
        },
        "dot-dot": {"type": "manual", "train": "train.jsonl", "test": back},
        "dot-dot inside first": {"type": "manual", "train": "train.jsonl", "test": f"data/../{back}"},
        "hf absolute folder": {"type": "hf", "hf_id": str(outside / "dataset")},
        "hf dot-dot folder": {"type": "hf", "hf_id": os.path.relpath(outside / "dataset", task_dir)},
    }


KINDS = list(_data_sources(Path("/o"), Path("/t/tasks/tiny")))


def _every_text(report) -> str:
    texts = [report.output, *report.errors]
    for result in report.results:
        texts += [result.message, result.details, *result.warnings]
    return "\n".join(texts)


def _write(make_task, task_config, task_root: Path, outside: Path, kind: str, task_py: str | None = None) -> Path:
    data_source = _data_sources(outside, task_root / "tiny")[kind]
    config = task_config(data_source=data_source)
    if data_source["type"] == "hf":
        config.update(has_train_set=False, preparation_strategies={"prompt_based_testing": {"prompt_builder": {}}})
    return make_task(config=config, **({} if task_py is None else {"task_py": task_py}))


@pytest.mark.parametrize("kind", KINDS)
def test_the_trusted_checks_read_no_data_outside_the_task(make_task, task_config, task_root, outside, kind):
    _write(make_task, task_config, task_root, outside, kind)
    report = run_task_tests("tiny", submission=True, run_task_code=False)
    data_loads = next(result for result in report.results if result.check == "data_loads")
    assert data_loads.outcome == "failed"
    assert "lies outside the task directory" in data_loads.message
    assert "it was not read" in data_loads.message
    assert SECRET not in _every_text(report)
    assert not report.ok


@pytest.mark.parametrize("kind", ["absolute", "file uri", "dot-dot", "hf absolute folder"])
@pytest.mark.parametrize("task_py", [None, SHAPING_TASK_PY], ids=["trusted data checks", "data checks in the child"])
def test_the_checks_that_run_task_code_read_no_data_outside_the_task(
    make_task, task_config, task_root, outside, kind, task_py
):
    # Without a sandbox (where the outside file is visible to the child): the confinement, not the sandbox, holds.
    _write(make_task, task_config, task_root, outside, kind, task_py)
    report = run_task_tests("tiny", submission=True, sandbox=NO_SANDBOX)
    assert SECRET not in _every_text(report)
    failed = {result.check for result in report.results if result.outcome == "failed"}
    assert "data_loads" in failed


def test_a_missing_and_a_non_json_outside_file_give_the_same_message(make_task, task_config, task_root, outside):
    messages = []
    for name in ("not_json.txt", "does_not_exist.jsonl"):
        config = task_config(data_source={"type": "manual", "train": "train.jsonl", "test": str(outside / name)})
        task_dir = make_task(f"tiny_{name.split('.')[0]}", config=config)
        (task_dir / "task.py").write_text("from genbench import Task\n\n\nclass T(Task):\n    pass\n")
        report = run_task_tests(task_dir.name, submission=True, run_task_code=False)
        message = next(result.message for result in report.results if result.check == "data_loads")
        messages.append(message.replace(name, "NAME"))
        assert SECRET not in _every_text(report)
    assert messages[0] == messages[1]


def test_test_task_no_task_code_prints_nothing_of_the_outside_file(make_task, task_config, task_root, outside):
    _write(make_task, task_config, task_root, outside, "absolute")
    result = CliRunner().invoke(cli, ["test-task", "-t", "tiny", "--submission", "--no-task-code"])
    assert result.exit_code == 1
    assert "lies outside the task directory" in result.output
    assert SECRET not in result.output


@pytest.mark.skipif(not sandbox_status().available, reason="no sandbox on this machine")
def test_test_task_in_the_sandbox_prints_nothing_of_the_outside_file(make_task, task_config, task_root, outside):
    _write(make_task, task_config, task_root, outside, "absolute", SHAPING_TASK_PY)
    result = CliRunner().invoke(cli, ["test-task", "-t", "tiny", "--submission", "--require-sandbox", "--debug"])
    assert result.exit_code == 1
    assert "sandbox: bwrap" in result.output.splitlines()
    assert SECRET not in result.output


# -- loading stays lenient -----------------------------------------------------------------------------------------
def test_loading_outside_the_review_still_reads_an_absolute_path_and_a_file_uri(tmp_path, outside):
    task_dir = tmp_path / "own_task"
    task_dir.mkdir()
    for uri in (str(outside / "secret.jsonl"), (outside / "secret.jsonl").as_uri()):
        splits = load_data_source(DataSourceConfig(type="manual", test=uri), task_dir)
        assert splits["test"][0]["input"] == SECRET


def test_confined_loading_refuses_before_opening(tmp_path):
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    with confined_data_paths(), pytest.raises(DataLoadError) as info:
        load_data_source(DataSourceConfig(type="manual", test="/nonexistent/x.jsonl"), task_dir)
    assert str(info.value).startswith("data_source.test: data path '/nonexistent/x.jsonl' lies outside the task")
    with confined_data_paths():  # inside the task: read as always
        (task_dir / "test.jsonl").write_text('{"input": "a", "target": "b"}\n', encoding="utf-8")
        assert load_data_source(DataSourceConfig(type="manual", test="test.jsonl"), task_dir)["test"].num_rows == 1
