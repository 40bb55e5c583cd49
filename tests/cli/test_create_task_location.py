"""``create-task`` writes where the author works (never into an installed package), and ids come from any name."""

from __future__ import annotations

from pathlib import Path

import pytest

from genbench.authoring._scaffold import default_tasks_dir, task_id_from_name, why_no_id_from_name
from genbench.cli import cli

REPO_ROOT = Path(__file__).resolve().parents[2]


def _fake_checkout(root: Path) -> Path:
    (root / "src" / "genbench" / "tasks").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "genbench"\n', encoding="utf-8")
    return root / "src" / "genbench" / "tasks"


def test_inside_a_checkout_the_task_goes_into_its_tasks_folder(tmp_path):
    tasks = _fake_checkout(tmp_path / "genbench")
    deep = tmp_path / "genbench" / "docs" / "notes"
    deep.mkdir(parents=True)
    root, why = default_tasks_dir(deep)
    assert root == tasks.resolve()
    assert why == f"the genbench checkout at {(tmp_path / 'genbench').resolve()}"


def test_another_project_is_not_a_genbench_checkout(tmp_path, monkeypatch):
    monkeypatch.delenv("GENBENCH_TASKS_PATH", raising=False)
    (tmp_path / "src" / "genbench" / "tasks").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "genbench-plugin"\n', encoding="utf-8")
    assert default_tasks_dir(tmp_path)[0] == tmp_path.resolve()


def test_outside_a_checkout_genbench_tasks_path_then_the_working_directory(tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("GENBENCH_TASKS_PATH", f"{tmp_path / 'mine'}")
    assert default_tasks_dir(work) == ((tmp_path / "mine").resolve(), "the first folder of GENBENCH_TASKS_PATH")
    monkeypatch.delenv("GENBENCH_TASKS_PATH")
    root, why = default_tasks_dir(work)
    assert root == work.resolve() and why.startswith("the current directory")


def test_create_task_from_an_install_writes_into_the_working_directory(runner, tmp_path, monkeypatch):
    # As after `pip install genbench`: the working directory is no checkout, GENBENCH_TASKS_PATH is not set.
    monkeypatch.delenv("GENBENCH_TASKS_PATH", raising=False)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli, ["create-task", "-n", "Évaluation café", "-a", "Ada"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "evaluation_cafe" / "config.jsonnet").is_file()
    assert "Task id: evaluation_cafe" in result.stdout
    assert "Task root: . (the current directory: not a genbench checkout" in result.stdout
    assert "export GENBENCH_TASKS_PATH=" in result.stdout  # how genbench then finds it
    assert not (REPO_ROOT / "src" / "genbench" / "tasks" / "evaluation_cafe").exists()


def test_the_next_steps_printed_outside_a_task_root_work_as_printed(runner, tmp_path, monkeypatch):
    monkeypatch.delenv("GENBENCH_TASKS_PATH", raising=False)
    monkeypatch.chdir(tmp_path)
    created = runner.invoke(cli, ["create-task", "-n", "Café deux", "-a", "Ada"])
    assert created.exit_code == 0, created.output
    step = next(line for line in created.stdout.splitlines() if "3. Check the task:" in line)
    assert step.split(":", 1)[1].split() == [
        f"GENBENCH_TASKS_PATH={tmp_path}",
        "genbench-cli",
        "test-task",
        "-t",
        "cafe_deux",
    ]

    # Forgetting the variable: the error says the task folder is here and how to make this folder a task root.
    missing = runner.invoke(cli, ["show-task", "-t", "cafe_deux"])
    assert missing.exit_code != 0
    assert "A task folder cafe_deux/ is in the current directory" in missing.output
    assert f"export GENBENCH_TASKS_PATH={tmp_path}" in missing.output

    monkeypatch.setenv("GENBENCH_TASKS_PATH", str(tmp_path))  # the step as printed
    shown = runner.invoke(cli, ["show-task", "-t", "cafe_deux"])
    assert shown.exit_code == 0, shown.output
    assert "Café deux" in shown.stdout


@pytest.mark.parametrize(
    ("name", "task_id"),
    [
        ("Évaluation café", "evaluation_cafe"),
        ("Straße der Wörter", "strasse_der_worter"),
        ("Задача по арифметике", "zadacha_po_arifmetike"),
        ("Ελληνικά", "ellenika"),
        ("My Awesome Task!", "my_awesome_task"),
    ],
)
def test_ids_are_transliterated(name, task_id):
    assert task_id_from_name(name) == task_id


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("日本語タスク", "has Han characters (日本語), whose Latin spelling depends on the language"),
        ("😀 🎉", "has no letters or digits with a Latin transliteration"),
    ],
)
def test_a_name_without_a_latin_spelling_asks_for_an_id(runner, task_root, name, reason):
    assert task_id_from_name(name) == ""
    assert reason in why_no_id_from_name(name)
    result = runner.invoke(cli, ["create-task", "-n", name, "-a", "Ada", "--tasks-dir", str(task_root)])
    assert result.exit_code == 2
    assert reason in result.output and "give one with --task-id" in result.output
    assert list(task_root.iterdir()) == []
