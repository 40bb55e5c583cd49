"""Loading what tasks written for the original framework do: imports by package name, original constructors and
TaskDict subclasses, stray task.py files, the original's helper modules, and ids that cannot escape a task."""

from __future__ import annotations

import json
import sys
import textwrap
import warnings

import pytest
from click.testing import CliRunner

from genbench import Task, TaskDict, load_task
from genbench._core.errors import GenbenchConfigWarning, InvalidTaskIdError, TaskNotFoundError, warning_text
from genbench.cli import cli
from tests.tiny_tasks import CONFIG, write_task

DICT_CONFIG = {"name": "Family", "description": "Two subtasks.", "keywords": ["k"], "authors": ["A"]}


# ------------------------------------------------------------------------------------ genbench.tasks.<id> imports
BASE_TASK_PY = textwrap.dedent(
    """
    from genbench import Task


    class SharedBase(Task):
        def shout(self):
            return self.task_id.upper()
    """
)


def test_task_in_an_extra_root_imports_its_sibling_module_by_package_name(task_root):
    task_dir = write_task(
        task_root / "shouting",
        task_py=(
            "from genbench.tasks.shouting._base_task import SharedBase\n\n\nclass Shouting(SharedBase):\n    pass\n"
        ),
    )
    (task_dir / "_base_task.py").write_text(BASE_TASK_PY)
    task = load_task("shouting")
    assert type(task).__name__ == "Shouting" and task.shout() == "SHOUTING"
    assert type(task).__module__ == "genbench.tasks.shouting.task"
    assert task.task_dir == task_dir.resolve()
    assert [row["target"] for row in task.get_datasets_raw()["test"]] == ["2", "4"]


def test_subtasks_import_their_parents_module_by_package_name(task_root):
    family = task_root / "family"
    family.mkdir()
    (family / "__init__.py").touch()
    (family / "config.jsonnet").write_text(json.dumps(DICT_CONFIG))
    (family / "_base_task.py").write_text(BASE_TASK_PY)
    for sub in ("one", "two"):
        write_task(
            family / sub,
            task_py=(
                f"from genbench.tasks.family._base_task import SharedBase\n\n\nclass T{sub}(SharedBase):\n    pass\n"
            ),
        )
    task_dict = load_task("family")
    assert [task.shout() for task in task_dict.values()] == ["FAMILY:ONE", "FAMILY:TWO"]


def test_a_task_id_moving_to_another_root_loads_the_new_code(tmp_path, task_roots):
    for name, label in (("first", "A"), ("second", "B")):
        write_task(
            tmp_path / name / "moving",
            task_py=f"from genbench import Task\n\n\nclass Moving{label}(Task):\n    pass\n",
        )
    task_roots.use(tmp_path / "first")
    assert type(load_task("moving")).__name__ == "MovingA"
    task_roots.use(tmp_path / "second")
    assert type(load_task("moving")).__name__ == "MovingB"


# --------------------------------------------------------------------------- constructors of the original framework
def test_task_class_with_the_original_constructor_loads(task_root):
    task_py = textwrap.dedent(
        """
        from genbench import Task


        class OriginalStyle(Task):
            def __init__(self, config, root_task_id, subtask_id=None):
                super().__init__(config, root_task_id, subtask_id)
                self.extra = "set in __init__"
        """
    )
    task_dir = write_task(task_root / "original_style", task_py=task_py)
    task = load_task("original_style")
    assert task.extra == "set in __init__" and task.task_id == "original_style"
    assert task.task_dir == task_dir.resolve()
    assert len(task.get_datasets_raw()["test"]) == 2


def test_subtask_class_with_a_required_subtask_id_loads(task_root):
    family = task_root / "family"
    family.mkdir()
    (family / "config.jsonnet").write_text(json.dumps(DICT_CONFIG))
    task_py = textwrap.dedent(
        """
        from genbench import Task


        class Required(Task):
            def __init__(self, config, root_task_id, subtask_id):
                super().__init__(config, root_task_id, subtask_id)
        """
    )
    write_task(family / "only", task_py=task_py)
    assert load_task("family:only").task_id == "family:only"


def test_task_dict_subclass_written_against_the_original(task_root):
    family = task_root / "family"
    family.mkdir()
    init_py = textwrap.dedent(
        """
        from collections import OrderedDict

        from genbench import TaskDict


        class Averaging(TaskDict):
            def merge_evaluation_results(self, results):
                self._check_values_type()
                merged = OrderedDict()
                merged["name"] = self._config["name"]
                merged["mean"] = sum(r["score"] for r in results.values()) / len(results)
                return merged
        """
    )
    (family / "__init__.py").write_text(init_py)
    (family / "config.jsonnet").write_text(json.dumps({**DICT_CONFIG, "subtasks_order": ["b", "a"]}))
    write_task(family / "a")
    write_task(family / "b")
    task_dict = load_task("family")
    assert type(task_dict).__name__ == "Averaging" and list(task_dict) == ["b", "a"]
    assert task_dict.merge_evaluation_results({"a": {"score": 1.0}, "b": {"score": 0.5}}) == {
        "name": "Family",
        "mean": 0.75,
    }


# --------------------------------------------------------------------------------------------- stray task.py
@pytest.mark.parametrize(
    ("config", "reason"),
    [({**DICT_CONFIG, "subtasks_order": ["a"]}, "subtasks_order"), (DICT_CONFIG, "has no task fields")],
)
def test_stray_task_py_next_to_subtasks_is_ignored_with_a_warning(task_root, config, reason):
    family = write_task(task_root / "family", config=config)  # a task.py, but the config is a TaskDict's
    write_task(family / "a")
    with pytest.warns(GenbenchConfigWarning, match=rf"task\.py: ignored: .*{reason}") as caught:
        task_dict = load_task("family")
    assert isinstance(task_dict, TaskDict) and list(task_dict) == ["a"]
    assert str(family / "task.py") in str(caught[0].message)


def test_task_with_task_fields_and_a_data_subdirectory_stays_a_task(task_root):
    task_dir = write_task(task_root / "plain")
    write_task(task_dir / "looks_like_a_subtask")
    with warnings.catch_warnings():
        warnings.simplefilter("error", GenbenchConfigWarning)
        assert isinstance(load_task("plain"), Task)


# ----------------------------------------------------------------------------------------------- ids and paths
@pytest.mark.parametrize(
    "task_id",
    [
        "negation_consistency:../../tasks/arithmetic_length",
        "negation_consistency:..",
        "../negation_consistency",
        "x:../../elsewhere",
        "Arithmetic_Length",
        "negation_consistency:",
        "a:b:c",
        "",
    ],
)
def test_malformed_ids_are_refused_before_any_path_is_built(task_id):
    before = set(sys.modules)
    with pytest.raises(InvalidTaskIdError, match="Invalid task id") as info:
        load_task(task_id)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TaskNotFoundError)
    assert not {m for m in set(sys.modules) - before if m.startswith("genbench.tasks.")}


def test_show_task_refuses_a_subtask_path(tmp_path):
    outside = tmp_path / "elsewhere"
    write_task(outside, task_py="raise SystemExit('imported from outside every task root')\n")
    result = CliRunner().invoke(cli, ["show-task", "-t", "x:../../elsewhere"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: Invalid task id 'x:../../elsewhere'")


def test_a_symlinked_subtask_is_not_a_subtask(task_root, tmp_path):
    family = task_root / "family"
    family.mkdir()
    (family / "config.jsonnet").write_text(json.dumps(DICT_CONFIG))
    write_task(family / "real")
    write_task(tmp_path / "outside", task_py="raise SystemExit('imported through a symlink')\n")
    (family / "evil").symlink_to(tmp_path / "outside", target_is_directory=True)
    with pytest.raises(TaskNotFoundError, match="no subtask 'evil'; its subtasks are: real"):
        load_task("family:evil")
    assert list(load_task("family")) == ["real"]


def test_show_task_of_a_broken_task_is_one_clear_error(task_root):
    write_task(task_root / "broken", config={**CONFIG, "task_type": "not_a_type"})
    result = CliRunner().invoke(cli, ["show-task", "-t", "broken"])
    assert result.exit_code == 1
    (line,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert str(task_root / "broken" / "config.jsonnet") in line and "Traceback" not in result.output


def test_listing_records_the_stray_task_py_warning(task_root):
    family = write_task(task_root / "family", config={**DICT_CONFIG, "subtasks_order": ["a"]})
    write_task(family / "a")
    from genbench._registry.listing import task_records

    (record,) = [r for r in task_records() if r["id"] == "family"]
    assert record["type"] == "task_dict" and record["subtasks"] == ["a"] and record["error"] is None
    assert any("task.py: ignored" in warning_text(warning) for warning in record["warnings"])
