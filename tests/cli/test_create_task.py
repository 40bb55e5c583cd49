"""``genbench-cli create-task`` and ``genbench.authoring._scaffold``: a created task works as it is, refusals create
nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from genbench import Task, TaskDict, load_task
from genbench._core.errors import TaskDefinitionError
from genbench._core.vocabulary import PreparationStrategy
from genbench.authoring._scaffold import class_name_from_id, create_task, task_id_from_name, validate_task_id
from genbench.cli import cli
from genbench.config._documents import load_task_config, load_task_dict_config
from genbench.metrics import best_score_reached
from genbench.metrics._extraction import extract_free_form_answer
from genbench.review._plan import run_checks

REPO_ROOT = Path(__file__).resolve().parents[2]
DOC_MARKER = "<!-- genbench: replace this template text -->"
TASK_FILES = {"__init__.py", "config.jsonnet", "task.py", "doc.md", "data"}


def _create(runner, root: Path, *args: str, **kwargs):
    return runner.invoke(cli, ["create-task", *args, "--tasks-dir", str(root)], **kwargs)


# --------------------------------------------------------------------------------------------------- success
def test_create_task_end_to_end(runner, task_root):
    result = _create(runner, task_root, "--name", "My Awesome Task", "--authors", "Jane Doe, John Smith")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for expected in (
        "Creating task...",
        "Task name: My Awesome Task",
        "Task id: my_awesome_task",
        "Task class name: MyAwesomeTaskTask",
        "Task created successfully.",
    ):
        assert expected in lines
    assert any(line.startswith("View the task at ") and line.endswith("my_awesome_task") for line in lines)
    assert "genbench-cli test-task -t my_awesome_task" in result.stdout

    task_dir = task_root / "my_awesome_task"
    assert {p.name for p in task_dir.iterdir()} == TASK_FILES
    assert {p.name for p in (task_dir / "data").iterdir()} == {"train.jsonl", "test.jsonl"}
    assert [p.name for p in task_root.iterdir()] == ["my_awesome_task"]  # no staging directory left behind

    config = load_task_config(jsonnet_path=task_dir / "config.jsonnet")
    assert config.name == "My Awesome Task"
    assert config.authors == ["Jane Doe", "John Smith"]
    assert config.data_source.type == "manual" and config.data_source.test == "data/test.jsonl"
    assert DOC_MARKER in (task_dir / "doc.md").read_text()

    task = load_task("my_awesome_task")
    assert isinstance(task, Task) and type(task).__name__ == "MyAwesomeTaskTask"
    assert task.task_dir == task_dir.resolve()


def test_created_task_prompts_and_gold_scores(runner, task_root):
    assert _create(runner, task_root, "-n", "Sums", "-a", "Ada").exit_code == 0
    task = load_task("sums")
    raw = task.get_datasets_raw()
    assert len(raw["train"]) >= 4 and len(raw["test"]) >= 10
    assert not set(raw["test"]["input"]) & set(raw["train"]["input"])  # no test input in train
    for split in raw.values():
        assert len(set(split["input"])) == len(split)  # no duplicates within a split

    prompts = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0, 1, 3])
    builder = task.config.prompt_builder
    assert prompts[0][0]["input"] == builder.instruction_zero_shot + "Q: 300 + 80\nA: "
    assert prompts[0][0]["target"] == "380"
    for k in (1, 3):
        assert prompts[k][0]["input"].count("Q: ") == k + 1
        assert prompts[k][0]["input"].endswith("Q: 300 + 80\nA: ")

    gold = raw["test"]
    result = task.evaluate_predictions(predictions=[{"target": t} for t in list(gold["target"])], gold=gold)
    assert best_score_reached(result, task.config.evaluation_metrics) == []
    assert result["hf_exact_match__exact_match"] == 1.0


def test_created_task_passes_the_validation_suite(runner, task_root):
    assert _create(runner, task_root, "-n", "Fresh Task", "-a", "Ada").exit_code == 0
    report = run_checks("fresh_task")
    outcomes = {r.check: r.outcome for r in report.results}
    assert report.ok, report.format_text()
    assert set(outcomes.values()) <= {"passed", "skipped", "warning"}
    assert outcomes["doc"] == "warning"  # the template text is still in doc.md
    for check in ("config", "declared_splits", "example_types", "no_duplicates", "test_overlap", "gold_scores"):
        assert outcomes[check] == "passed", check
    assert outcomes["prompts"] == "passed"

    submission = run_checks("fresh_task", submission=True)
    assert not submission.ok and [r.check for r in submission.failures] == ["doc"]


@pytest.mark.parametrize("subtasks", [[], ["-s", "one", "-s", "two"]], ids=["task", "task_dict"])
def test_created_task_passes_test_task_command(runner, task_root, subtasks):
    assert _create(runner, task_root, "-n", "Checked Task", "-a", "Ada", *subtasks).exit_code == 0
    result = runner.invoke(cli, ["test-task", "-t", "checked_task"])
    assert result.exit_code == 0, result.output


def test_create_task_with_subtasks(runner, task_root):
    result = _create(
        runner, task_root, "-n", "My Awesome TaskDict", "-s", "zeta", "--subtask-ids", "alpha", "-a", "Ada"
    )
    assert result.exit_code == 0, result.output
    assert "Task id: my_awesome_taskdict" in result.stdout
    assert "Subtask id: my_awesome_taskdict:zeta (class MyAwesomeTaskdictZetaTask)" in result.stdout

    task_dir = task_root / "my_awesome_taskdict"
    assert {p.name for p in task_dir.iterdir()} == {"__init__.py", "config.jsonnet", "doc.md", "zeta", "alpha"}
    for subtask in ("zeta", "alpha"):
        assert {p.name for p in (task_dir / subtask).iterdir()} == TASK_FILES
    parent_config = load_task_dict_config(jsonnet_path=task_dir / "config.jsonnet")
    assert parent_config.subtasks_order == ["zeta", "alpha"]
    assert parent_config.authors == ["Ada"]
    assert DOC_MARKER in (task_dir / "doc.md").read_text()
    assert "class MyAwesomeTaskdictTaskDict(TaskDict)" in (task_dir / "__init__.py").read_text()  # commented out

    task_dict = load_task("my_awesome_taskdict")
    assert type(task_dict) is TaskDict  # the subclass in __init__.py is commented out
    assert list(task_dict) == ["zeta", "alpha"]  # subtasks_order, not sorted order
    assert task_dict["alpha"].task_id == "my_awesome_taskdict:alpha"
    assert type(task_dict["alpha"]).__name__ == "MyAwesomeTaskdictAlphaTask"
    assert task_dict["zeta"].config.name == "My Awesome TaskDict: zeta"
    prompts = task_dict["zeta"].get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[3])
    assert prompts[3][0]["input"].count("Q: ") == 4

    report = run_checks("my_awesome_taskdict")
    assert report.ok, report.format_text()


def test_commented_task_dict_subclass_works_when_uncommented(task_root):
    task_dir = create_task("Merged", subtask_ids=["a", "b"], tasks_dir=task_root)
    init = task_dir / "__init__.py"
    lines = init.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# from collections.abc"))
    init.write_text("\n".join(lines[:start] + [line[2:] for line in lines[start:]]) + "\n")
    task_dict = load_task("merged")
    assert type(task_dict).__name__ == "MergedTaskDict"
    merged = task_dict.merge_evaluation_results({"a": {"m": 1.0}, "b": {"m": 0.5}})
    assert merged["m"] == 0.75


def test_the_suggested_output_regex_drops_the_model_s_leading_space(task_root):
    # Regression: the template's suggestion kept the space a model writes after "A:", so " Tokyo" scored 0.
    task_dir = create_task("Capitals", tasks_dir=task_root)
    config_path = task_dir / "config.jsonnet"
    config_path.write_text(
        config_path.read_text().replace("// free_form_output_regex:", "free_form_output_regex:"), encoding="utf-8"
    )
    config = load_task_config(jsonnet_path=config_path)
    assert config.free_form_output_regex
    answers = [" Tokyo", " Tokyo.\nQ: next", "  New York! ", "42"]
    extracted = [extract_free_form_answer(a, "\n\n", config.free_form_output_regex) for a in answers]
    assert extracted == ["Tokyo", "Tokyo", "New York", "42"]


def test_unusual_name_round_trips_into_the_config(task_root):
    name = "Zoë's {{ odd }} task \\ with 'quotes' and \"doubles\""
    task_dir = create_task(name, task_id="odd_task", authors=["Ó'Brien", "{{ x }}"], tasks_dir=task_root)
    config = load_task_config(jsonnet_path=task_dir / "config.jsonnet")
    assert config.name == name
    assert config.authors == ["Ó'Brien", "{{ x }}"]
    assert (task_dir / "doc.md").read_text().startswith(f"# {name} (`odd_task`)")


def test_default_tasks_dir_is_never_the_installed_package(tmp_path, monkeypatch):
    # Outside a checkout, with no GENBENCH_TASKS_PATH: the working directory, not the package's tasks/.
    package_tasks = tmp_path / "site-packages" / "genbench" / "tasks"
    package_tasks.mkdir(parents=True)
    monkeypatch.setattr("genbench._registry.roots.PACKAGE_TASKS_DIR", package_tasks)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    path = create_task("Default Place")
    assert path == work.resolve() / "default_place" and (path / "task.py").is_file()
    assert list(package_tasks.iterdir()) == []


def test_tasks_dir_outside_the_registry_gets_a_hint(runner, tmp_path):
    elsewhere = tmp_path / "not" / "a" / "root"
    result = _create(runner, elsewhere, "-n", "Elsewhere", "-a", "Ada")
    assert result.exit_code == 0, result.output
    assert (elsewhere / "elsewhere" / "config.jsonnet").is_file()
    assert f"export GENBENCH_TASKS_PATH={elsewhere.resolve()}" in result.stdout


def test_rendered_python_is_ruff_clean(task_root):
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (it comes with the lint extra)")
    create_task("Lint Me", tasks_dir=task_root)
    create_task("Lint Dict", subtask_ids=["one", "two"], tasks_dir=task_root)
    config = str(REPO_ROOT / "pyproject.toml")
    for command in (["check"], ["format", "--check"]):
        result = subprocess.run([ruff, *command, "--config", config, str(task_root)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


# --------------------------------------------------------------------------------------------------- authors
def test_authors_not_asked_when_stdin_is_not_a_terminal(runner, task_root):
    result = _create(runner, task_root, "-n", "No Prompt", input="Should Not Be Read\n")
    assert result.exit_code == 0, result.output
    assert "Task authors" not in result.output
    assert "Anonymous" in result.stderr
    config = load_task_config(jsonnet_path=task_root / "no_prompt" / "config.jsonnet")
    assert config.authors == ["Anonymous"]


def test_authors_asked_on_a_terminal(runner, task_root, monkeypatch):
    monkeypatch.setattr("genbench.cli._create_task._stdin_is_interactive", lambda: True)
    result = _create(runner, task_root, "-n", "Prompted", input="Ada Lovelace, Alan Turing\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Task authors (e.g John Doe). Split with ',': ")
    config = load_task_config(jsonnet_path=task_root / "prompted" / "config.jsonnet")
    assert config.authors == ["Ada Lovelace", "Alan Turing"]


def test_authors_option_skips_the_prompt_on_a_terminal(runner, task_root, monkeypatch):
    monkeypatch.setattr("genbench.cli._create_task._stdin_is_interactive", lambda: True)
    result = _create(runner, task_root, "-n", "Given", "-a", "Grace Hopper")
    assert result.exit_code == 0, result.output
    assert "Task authors" not in result.output


# --------------------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("args", "param"),
    [
        (["-n", "X", "--task-id", "Bad-Id"], "'--task-id'"),
        (["-n", "X", "-i", "_hidden"], "'--task-id'"),  # -i: the original's spelling, hidden
        (["-n", "X", "-s", "Sub"], "'-s' / '--subtask-ids'"),
        (["-n", "X", "-s", "a", "-s", "b", "-s", "a"], "'-s' / '--subtask-ids'"),
        (["-n", "!!!"], "'-n' / '--name'"),
        (["-n", "  "], "'-n' / '--name'"),
    ],
)
def test_usage_errors_exit_2_and_name_the_parameter(runner, task_root, args, param):
    result = _create(runner, task_root, *args, "-a", "Ada")
    assert result.exit_code == 2, result.output
    assert param in result.output
    assert list(task_root.iterdir()) == []


def test_duplicate_subtask_message(runner, task_root):
    result = _create(runner, task_root, "-n", "X", "-s", "a", "-s", "a", "-a", "Ada")
    assert "duplicate subtask id: a" in result.output


def test_existing_registry_id_is_refused(runner, task_roots):
    task_root = task_roots.new(package_tasks="shipped")  # arithmetic_length is a shipped task
    result = _create(runner, task_root, "-n", "Arithmetic", "-i", "arithmetic_length", "-a", "Ada")
    assert result.exit_code == 1
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(error_lines) == 1 and "'arithmetic_length' already exists" in error_lines[0]
    assert "Traceback" not in result.output and "Creating task..." not in result.output
    assert list(task_root.iterdir()) == []


def test_existing_id_is_refused_before_asking_for_authors(runner, task_roots, monkeypatch):
    task_root = task_roots.new(package_tasks="shipped")
    monkeypatch.setattr("genbench.cli._create_task._stdin_is_interactive", lambda: True)
    result = _create(runner, task_root, "-n", "Arithmetic", "-i", "arithmetic_length", input="Ada\n")
    assert result.exit_code == 1 and "Task authors" not in result.output


def test_debug_shows_the_traceback_of_a_refusal(runner, task_root):
    create_task("Taken", tasks_dir=task_root)
    result = runner.invoke(cli, ["--debug", "create-task", "-n", "X", "-i", "taken", "-a", "Ada"])
    assert result.exit_code == 1
    assert "Traceback" in result.stderr and "TaskDefinitionError" in result.stderr


def test_existing_id_in_another_root_is_refused(runner, task_root, tmp_path):
    assert _create(runner, task_root, "-n", "Taken", "-a", "Ada").exit_code == 0
    other = tmp_path / "other"
    result = _create(runner, other, "-n", "Taken", "-a", "Ada")
    assert result.exit_code == 1 and "already exists" in result.stderr
    assert not other.exists()


def test_existing_directory_is_refused(runner, task_root):
    (task_root / "occupied").mkdir()
    (task_root / "occupied" / "notes.txt").write_text("mine")
    result = _create(runner, task_root, "-n", "Occupied", "-a", "Ada")
    assert result.exit_code == 1 and "already exists" in result.stderr
    assert [p.name for p in (task_root / "occupied").iterdir()] == ["notes.txt"]


def test_library_refusals(task_root):
    with pytest.raises(TaskDefinitionError, match="Duplicate subtask id: a"):
        create_task("X", subtask_ids=["a", "a"], tasks_dir=task_root)
    with pytest.raises(TaskDefinitionError, match="Invalid subtask id 'A b'"):
        create_task("X", subtask_ids=["A b"], tasks_dir=task_root)
    with pytest.raises(TaskDefinitionError, match="Invalid task id 'x-y'"):
        create_task("X", task_id="x-y", tasks_dir=task_root)
    with pytest.raises(TaskDefinitionError, match="Invalid author"):
        create_task("X", authors=["Doe, Jane"], tasks_dir=task_root)
    with pytest.raises(TaskDefinitionError, match="line break"):
        create_task("Two\nlines", tasks_dir=task_root)
    assert list(task_root.iterdir()) == []


def test_rendering_failure_leaves_nothing_behind(task_root, monkeypatch):
    import genbench.authoring._scaffold as scaffold

    original = scaffold.render_template
    calls = []

    def fail_on_second_subtask(template, values, output_dir):
        calls.append(template)
        rendered = original(template, values, output_dir)
        if len(calls) == 3:
            raise OSError("disk full")
        return rendered

    monkeypatch.setattr(scaffold, "render_template", fail_on_second_subtask)
    with pytest.raises(OSError, match="disk full"):
        create_task("Half Done", subtask_ids=["a", "b"], tasks_dir=task_root)
    assert calls == ["task_with_subtasks", "task", "task"]
    assert list(task_root.iterdir()) == []  # neither the task nor the staging directory


def test_rendering_failure_removes_a_tasks_dir_it_created(tmp_path, monkeypatch):
    import genbench.authoring._scaffold as scaffold

    def broken(template, values, output_dir):
        (Path(output_dir) / "partial").mkdir()
        raise RuntimeError("template error")

    monkeypatch.setattr(scaffold, "render_template", broken)
    new_root = tmp_path / "new_root"
    with pytest.raises(RuntimeError):
        create_task("Broken", tasks_dir=new_root)
    assert not new_root.exists()


def test_rendering_failure_through_the_cli_is_one_error_line(runner, task_root, monkeypatch):
    import genbench.authoring._scaffold as scaffold

    monkeypatch.setattr(scaffold, "render_template", lambda *args: (_ for _ in ()).throw(OSError("disk full")))
    result = _create(runner, task_root, "-n", "Broken", "-a", "Ada")
    assert result.exit_code == 1
    assert "Error: OSError: disk full" in result.stderr and "Traceback" not in result.output
    assert list(task_root.iterdir()) == []


# --------------------------------------------------------------------------------------------------- naming
@pytest.mark.parametrize(
    ("name", "task_id"),
    [
        ("My Awesome Task", "my_awesome_task"),
        ("  CoLA -- length split (v2) ", "cola_length_split_v2"),
        ("Task #1: négation", "task_1_negation"),  # transliterated, not dropped
        ("___", ""),
    ],
)
def test_task_id_from_name(name, task_id):
    assert task_id_from_name(name) == task_id


@pytest.mark.parametrize(
    ("task_id", "class_name"),
    [("my_awesome_task", "MyAwesomeTaskTask"), ("addition", "AdditionTask"), ("2023_wic", "Task2023WicTask")],
)
def test_class_name_from_id(task_id, class_name):
    assert class_name_from_id(task_id) == class_name
    assert class_name.isidentifier()


@pytest.mark.parametrize("bad", ["", "A", "a-b", "a b", "_a", "a.b", "é"])
def test_invalid_ids(bad):
    with pytest.raises(TaskDefinitionError, match="Invalid task id"):
        validate_task_id(bad)
