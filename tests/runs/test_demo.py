"""The demo job (``genbench.runs._demo.run_demo``) and its command (``genbench-cli demo``)."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import genbench
from genbench.cli import cli
from genbench.runs._demo import config_fingerprint, run_demo
from genbench.task._factory import load_task
from tests.shipped_tasks import shipped_task_ids
from tests.task_roots import TaskRoots

SAMPLE_TASK_IDS = ["arithmetic_length", "category_membership", "negation_consistency", "ner_unseen_entities"]
RECORD_KEYS = {
    "task_id",
    "name",
    "task_type",
    "genbench_version",
    "config_fingerprint",
    "preparation_strategy",
    "shots",
    "random_seed",
    "num_examples",
    "metrics",
}


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    output_dir = tmp_path_factory.mktemp("demo")
    return output_dir, run_demo(output_dir, task_ids=shipped_task_ids())


def test_run_demo_writes_one_json_per_task(demo_run):
    output_dir, results = demo_run
    task_ids = shipped_task_ids()
    assert [r.task_id for r in results] == task_ids
    assert set(SAMPLE_TASK_IDS) <= set(task_ids)
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert sorted(p.name for p in output_dir.iterdir()) == sorted(f"{t}.json" for t in task_ids)
    for result in results:
        record = json.loads(result.output_path.read_text(encoding="utf-8"))
        assert set(record) >= RECORD_KEYS
        assert record["task_id"] == result.task_id
        assert record["genbench_version"] == genbench.__version__
        assert record["random_seed"] == 42 and record["metrics"] == result.metrics
        if record["task_type"] == "reranking":  # scored from the baseline's scores: no prompts
            assert record["shots"] == [] and set(record["metrics"]) == set(record["num_examples"]) == {"finetuning"}
            reranked = record["reranking"]
            assert reranked["table"][0].split() == ["Base", "->", "Reranked"] and len(reranked["table"]) == 4
            assert reranked["metrics"]["map"] > reranked["metrics"]["base_map"]  # MiniLM beats the first stage
        else:
            assert record["shots"] == [0, 3]
            assert set(record["metrics"]) == set(record["num_examples"]) == {"0", "3"}
        assert all(n > 0 for n in record["num_examples"].values())


def test_run_demo_records_fingerprints_and_metrics(demo_run):
    output_dir, _ = demo_run
    arithmetic = json.loads((output_dir / "arithmetic_length.json").read_text())
    task = load_task("arithmetic_length")
    assert arithmetic["config_fingerprint"] == config_fingerprint(task.config)
    assert len(arithmetic["config_fingerprint"]) == 64
    assert arithmetic["num_examples"] == {"0": 180, "3": 180}
    assert arithmetic["metrics"]["3"]["hf_exact_match__exact_match"] == 0.0
    assert "shots from the 'train' split" in arithmetic["dataset_descriptions"]["3"]

    negation = json.loads((output_dir / "negation_consistency.json").read_text())
    assert list(negation["subtasks"]) == ["affirmative", "negated"]
    assert negation["num_examples"] == {"0": 200, "3": 200}
    merged = negation["metrics"]["0"]
    assert {"affirmative.hf_accuracy__accuracy", "negated.hf_f1__f1", "hf_accuracy__accuracy"} <= set(merged)
    assert merged["negation_gap__hf_accuracy__accuracy"] == pytest.approx(0.0)

    ner = json.loads((output_dir / "ner_unseen_entities.json").read_text())
    assert 0 < ner["metrics"]["0"]["hf_seqeval__overall_f1"] < 1
    assert 0 <= ner["metrics"]["0"]["hf_seqeval__PER__f1"] <= 1  # nested seqeval values are flattened
    assert not any(key.endswith("__number") for key in ner["metrics"]["0"])  # support counts are not scores


def test_run_demo_is_deterministic(demo_run, tmp_path: Path):
    output_dir, first = demo_run
    second = run_demo(tmp_path, task_ids=shipped_task_ids())
    assert [r.metrics for r in second] == [r.metrics for r in first]
    for result in second:
        assert result.output_path.read_text() == (output_dir / result.output_path.name).read_text()


def test_run_demo_selected_tasks_shots_and_seed(tmp_path: Path):
    results = run_demo(tmp_path, task_ids=["category_membership"], shot_list=[1], random_seed=7)
    assert [r.task_id for r in results] == ["category_membership"]
    record = json.loads((tmp_path / "category_membership.json").read_text())
    assert record["shots"] == [1] and record["random_seed"] == 7 and list(record["metrics"]) == ["1"]
    with pytest.raises(ValueError, match="distinct non-negative"):
        run_demo(tmp_path, shot_list=[0, 0])


def test_run_demo_on_one_subtask(tmp_path: Path):
    (result,) = run_demo(tmp_path, task_ids=["negation_consistency:negated"], shot_list=[0])
    assert result.ok and result.output_path == tmp_path / "negation_consistency.negated.json"
    record = json.loads(result.output_path.read_text())
    assert record["task_id"] == "negation_consistency:negated"
    assert record["metrics"]["0"]["hf_accuracy__accuracy"] == 0.5


def test_cli_demo_prints_the_table(tmp_path: Path):
    shipped = shipped_task_ids()
    result = CliRunner().invoke(cli, ["demo", "--output-dir", str(tmp_path), *(f"-i{t}" for t in shipped)])
    assert result.exit_code == 0, result.output
    for text in ["Task", "Shots", "Metric", "Value", "arithmetic_length", "hf_exact_match__exact_match", "0.2083"]:
        assert text in result.output
    assert "negation_gap__hf_accuracy__accuracy" in result.output
    assert f"Wrote {len(shipped)} results files to {tmp_path}" in result.output
    assert (tmp_path / "ner_unseen_entities.json").is_file()


def test_cli_demo_options(tmp_path: Path):
    result = CliRunner().invoke(
        cli, ["demo", "-o", str(tmp_path), "-i", "arithmetic_length", "-i", "ner_unseen_entities", "--shots", "2"]
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arithmetic_length.json", "ner_unseen_entities.json"]
    assert "category_membership" not in result.output
    bad = CliRunner().invoke(cli, ["demo", "-o", str(tmp_path), "--shots", "0,x"])
    assert bad.exit_code == 2 and "--shots" in bad.output


def test_cli_demo_help():
    result = CliRunner().invoke(cli, ["demo", "--help"])
    assert result.exit_code == 0
    assert "--output-dir" in result.output and "--shots" in result.output


def _write_broken_task(root: Path) -> None:
    task_dir = root / "zz_broken_task"
    task_dir.mkdir(parents=True)
    (task_dir / "config.jsonnet").write_text(
        textwrap.dedent(
            """\
            {
              name: 'Broken', description: 'A config with an unknown task type.', keywords: ['x'], authors: ['y'],
              data_source: {type: 'manual', test: 'test.jsonl'},
              task_type: 'not_a_task_type',
              evaluation_metrics: [{hf_id: 'exact_match'}],
              preparation_strategies: {prompt_based_testing: {}},
            }
            """
        )
    )
    (task_dir / "task.py").write_text("from genbench import Task\n\n\nclass BrokenTask(Task):\n    pass\n")


def test_cli_demo_skips_a_broken_task_and_says_why_at_the_end(tmp_path: Path, task_roots: TaskRoots):
    _write_broken_task(task_roots.new("extra_tasks", package_tasks="shipped"))  # next to the shipped tasks
    output_dir = tmp_path / "out"
    result = CliRunner().invoke(cli, ["demo", "--output-dir", str(output_dir), "--shots", "0"])
    assert result.exit_code == 0, result.output
    assert not [line for line in result.output.splitlines() if line.startswith("Error:")], result.output
    tail = result.output[result.output.index("Wrote ") :]  # said at the end, after the results
    assert re.search(r"Skipped \d+ broken tasks? \(it does not load\):", tail)
    assert "  zz_broken_task: ConfigError:" in tail and "task_type" in tail
    assert "Traceback" not in result.output
    # The other tasks still ran and wrote their results.
    assert {f"{t}.json" for t in SAMPLE_TASK_IDS} <= {p.name for p in output_dir.iterdir()}
    assert not (output_dir / "zz_broken_task.json").exists()


def test_cli_demo_a_broken_task_asked_for_is_an_error(tmp_path: Path, task_root: Path):
    _write_broken_task(task_root)
    result = CliRunner().invoke(cli, ["demo", "-o", str(tmp_path / "out"), "-i", "zz_broken_task", "--shots", "0"])
    assert result.exit_code == 1
    assert "Error: task 'zz_broken_task' failed: ConfigError:" in result.output
    assert "1 of 1 tasks failed (zz_broken_task)" in result.output


def test_cli_demo_debug_prints_the_traceback(tmp_path: Path, task_root: Path):
    _write_broken_task(task_root)
    result = CliRunner().invoke(cli, ["demo", "-o", str(tmp_path / "out"), "-i", "zz_broken_task", "--debug"])
    assert result.exit_code == 1
    assert "Traceback" in result.output


def test_run_demo_reports_unknown_task(tmp_path: Path):
    (result,) = run_demo(tmp_path, task_ids=["arithmetic_lenght"])
    assert not result.ok and result.output_path is None
    assert result.error.startswith("TaskNotFoundError") and "arithmetic_length" in result.error


def test_cli_demo_malformed_registry_is_one_error_line(tmp_path: Path, task_roots: TaskRoots):
    task_roots.use(tmp_path / "missing_root")
    result = CliRunner().invoke(cli, ["demo", "-o", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and "missing_root" in result.output
    assert "Traceback" not in result.output
