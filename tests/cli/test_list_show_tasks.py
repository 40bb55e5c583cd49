"""``genbench-cli list-tasks`` and ``show-task``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from genbench.authoring._scaffold import create_task
from genbench.cli import cli
from genbench.cli._list_tasks import declared_splits, task_listing
from genbench.config._schema import TaskConfig

BASE = {
    "name": "T",
    "description": "d",
    "keywords": ["k"],
    "authors": ["a"],
    "task_type": "free_form",
    "evaluation_metrics": [{"hf_id": "exact_match"}],
    "preparation_strategies": {"prompt_based_testing": {}},
}


# --------------------------------------------------------------------------------------------------- list-tasks
def test_list_tasks_table(runner):
    result = runner.invoke(cli, ["list-tasks"])
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line for line in result.stdout.splitlines() if line.count("│") >= 4}
    assert "train, validation, test" in rows["arithmetic_length"] and "free_form" in rows["arithmetic_length"]
    assert "TaskDict (2 subtasks)" in rows["negation_consistency"]
    assert "split file (split.jsonnet)" in rows["category_membership"]
    assert "sequence_labeling" in rows["ner_unseen_entities"]


def test_list_tasks_json(runner, task_roots):
    task_root = task_roots.new(package_tasks="shipped")  # listed next to the shipped tasks
    create_task("Listed Dict", subtask_ids=["b", "a"], tasks_dir=task_root)
    result = runner.invoke(cli, ["list-tasks", "--json"])
    assert result.exit_code == 0, result.output
    records = {record["id"]: record for record in json.loads(result.stdout)}
    assert records["arithmetic_length"]["type"] == "free_form"
    assert records["arithmetic_length"]["splits"] == ["train", "validation", "test"]
    assert records["category_membership"]["splits"] is None
    assert records["category_membership"]["split_file"] == "split.jsonnet"
    assert records["listed_dict"]["type"] == "task_dict"
    assert records["listed_dict"]["subtasks"] == ["b", "a"]
    assert records["listed_dict"]["splits"] == ["train", "test"]
    assert records["listed_dict"]["path"] == str((task_root / "listed_dict").resolve())
    assert list(records) == sorted(records)


def test_list_tasks_imports_no_task_code_and_no_datasets(task_root):
    task_dir = create_task("Loud", tasks_dir=task_root)
    # Importing this task.py would fail: list-tasks must not import it.
    (task_dir / "task.py").write_text("raise RuntimeError('task.py was imported')\n")
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from genbench.cli import cli\n"
        "result = CliRunner().invoke(cli, ['list-tasks', '--json'])\n"
        "assert result.exit_code == 0, result.output\n"
        "assert 'loud' in result.output\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('datasets', 'evaluate', 'torch', 'pyarrow'))\n"
        "print(','.join(heavy))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ""


def test_list_tasks_lists_a_broken_task_with_its_error_next_to_the_others(runner, task_roots):
    task_root = task_roots.new(package_tasks="shipped")
    task_dir = create_task("Broken", tasks_dir=task_root)
    (task_dir / "config.jsonnet").write_text("{ name: 'x', nme: 1 ")  # a Jsonnet syntax error
    create_task("Fine", tasks_dir=task_root)

    table = runner.invoke(cli, ["list-tasks"])
    assert table.exit_code == 0, table.output
    rows = {line.split("│")[1].strip(): line for line in table.stdout.splitlines() if line.count("│") >= 4}
    assert {"arithmetic_length", "fine", "broken"} <= set(rows)
    assert "BROKEN" in rows["broken"] and "ConfigError" in rows["broken"] and "BROKEN" not in rows["fine"]
    assert "broken" in table.stderr.split("tasks are broken: ")[1].rstrip(".\n").split(", ")

    listing = runner.invoke(cli, ["list-tasks", "--json"])
    assert listing.exit_code == 0
    records = {record["id"]: record for record in json.loads(listing.stdout)}
    assert records["broken"]["error"].startswith("ConfigError: ") and "config.jsonnet" in records["broken"]["error"]
    assert records["broken"]["type"] is None and records["fine"]["error"] is None

    strict = runner.invoke(cli, ["list-tasks", "--json", "--strict"])
    assert strict.exit_code == 1
    assert {record["id"] for record in json.loads(strict.stdout)} >= {"broken", "fine"}


def test_list_tasks_lists_a_directory_with_an_invalid_id(runner, task_root):
    create_task("Fine", tasks_dir=task_root)
    bad = task_root / "Bad-Name"
    bad.mkdir()
    (bad / "config.jsonnet").write_text("{}")
    records = {record["id"]: record for record in json.loads(runner.invoke(cli, ["list-tasks", "--json"]).stdout)}
    assert "invalid id 'Bad-Name'" in records["Bad-Name"]["error"] and records["fine"]["error"] is None


@pytest.mark.parametrize(
    ("extra", "splits"),
    [
        ({"data_source": {"type": "manual", "test": "t.jsonl"}}, ["test"]),
        (
            {"data_source": {"type": "manual", "test": "t", "train": "tr"}, "has_train_set": True},
            ["train", "test"],
        ),
        ({"data_source": {"type": "hf", "hf_id": "x", "git_commit_sha": "abc"}}, ["test"]),
        (
            {
                "data_source": {"type": "hf", "hf_id": "x", "git_commit_sha": "abc"},
                "has_train_set": True,
                "has_validation_set": True,
            },
            ["train", "validation", "test"],
        ),
        ({"data_source": {"type": "hf", "hf_id": "x", "git_commit_sha": "abc"}, "split_file": "s.jsonnet"}, None),
    ],
)
def test_declared_splits(extra, splits):
    config = TaskConfig.from_jsonnet(jsonnet_str=json.dumps({**BASE, **extra}))
    assert declared_splits(config) == splits


def test_task_listing_is_what_json_prints(runner):
    assert json.loads(runner.invoke(cli, ["list-tasks", "--json"]).stdout) == task_listing()


# --------------------------------------------------------------------------------------------------- show-task
def test_show_task_prints_summary_and_prompts(runner):
    result = runner.invoke(cli, ["show-task", "-t", "arithmetic_length", "--shots", "0,2"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("arithmetic_length: Arithmetic Length Generalisation")
    assert "exact_match (best_score 1.0)" in out
    assert "finetuning (maximum_likelihood), prompt_based_testing" in out
    assert "train 300, validation 60, test 180" in out
    assert "--- 0-shot prompt (test example 0) ---" in out and "--- 2-shot prompt (test example 0) ---" in out
    zero_shot = "Add the two numbers. Answer with the sum only.\n\nQ: 612 + 6\nA: \n--- target ---\n618\n"
    assert zero_shot in out
    assert "shots from the 'train' split" in out


def test_show_task_of_a_created_task(runner, task_root):
    create_task("Shown Task", tasks_dir=task_root)
    result = runner.invoke(cli, ["show-task", "-t", "shown_task", "--shots", "0,1"])
    assert result.exit_code == 0, result.output
    assert "Add two numbers together.\n\nQ: 300 + 80\nA: \n--- target ---\n380" in result.stdout
    assert "manual: train data/train.jsonl, test data/test.jsonl" in result.stdout
    assert "--- 1-shot prompt (test example 0) ---" in result.stdout


def test_show_task_zero_shots_only(runner):
    result = runner.invoke(cli, ["show-task", "-t", "arithmetic_length", "--shots", "0"])
    assert result.exit_code == 0, result.output
    assert "0-shot prompt" in result.stdout and "3-shot prompt" not in result.stdout


def test_show_task_dict_shows_every_subtask(runner):
    result = runner.invoke(cli, ["show-task", "-t", "negation_consistency", "--shots", "1"])
    assert result.exit_code == 0, result.output
    assert "TaskDict with 2 subtasks: affirmative, negated" in result.stdout
    assert "== Subtask negation_consistency:affirmative" in result.stdout
    assert "== Subtask negation_consistency:negated" in result.stdout
    assert result.stdout.count("--- 1-shot prompt") == 2


def test_show_one_subtask(runner):
    result = runner.invoke(cli, ["show-task", "-t", "negation_consistency:negated", "--shots", "0"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("negation_consistency:negated: ")
    assert "Subtask" not in result.stdout


def test_show_task_imports_no_heavy_library():
    # show-task must start fast: importing datasets alone takes longer than its whole run may (benchmarks/registry.py)
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from genbench.cli import cli\n"
        "for args in (['arithmetic_length'], ['category_membership', '--shots', '2'], ['negation_consistency'],\n"
        "             ['ner_unseen_entities', '--shots', '1']):\n"
        "    result = CliRunner().invoke(cli, ['show-task', '-i', *args])\n"
        "    assert result.exit_code == 0, result.output\n"
        "    assert '--- target ---' in result.output, result.output\n"
        "heavy = ('datasets', 'evaluate', 'pandas', 'torch', 'sentence_transformers', 'transformers')\n"
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules} & set(heavy))))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ""


def test_show_task_of_a_task_formatting_its_own_examples(runner):
    # passage_reranking_shift's task.py overrides format_example: shown through the task's own methods
    result = runner.invoke(cli, ["show-task", "-t", "passage_reranking_shift"])
    assert result.exit_code == 0, result.output
    assert "Splits       train 3, test 4" in result.stdout
    assert (
        "--- test example 0 (the task has no prompt-based testing) ---\nwhy does the moon have phases\n"
        in result.stdout
    )


def test_show_task_errors(runner):
    missing = runner.invoke(cli, ["show-task", "-t", "arithmetic_lenght"])
    assert missing.exit_code == 1
    assert "does not exist" in missing.stderr and "Did you mean " in missing.stderr
    assert "'arithmetic_length'" in missing.stderr.split("Did you mean ")[1]  # among the close matches
    assert runner.invoke(cli, ["show-task", "-t", "arithmetic_length", "--shots", "-1"]).exit_code == 2
    assert runner.invoke(cli, ["show-task"]).exit_code == 2


def test_show_task_too_many_shots_is_one_error_line(runner, task_root):
    create_task("Few Shots", tasks_dir=task_root)
    result = runner.invoke(cli, ["show-task", "-t", "few_shots", "--shots", "50"])
    assert result.exit_code == 1
    assert len([line for line in result.stderr.splitlines() if line.startswith("Error:")]) == 1
    assert "Traceback" not in result.output
