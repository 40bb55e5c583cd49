"""The task registry: discovery, ids, task classes, TaskDicts, extra task roots."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from genbench import Task, TaskDict, list_tasks, load_config, load_task
from genbench._core.errors import ConfigError, TaskDefinitionError, TaskNotFoundError
from genbench._registry.directories import discover_tasks, get_task_dir
from tests.tiny_tasks import CONFIG, TASK_PY, write_task


def make_task(root: Path, task_id: str, task_py: str | None = TASK_PY, config: dict | None = None) -> Path:
    return write_task(root / task_id, task_py, config)


def test_extra_root_task_is_discovered_and_loaded(task_root):
    make_task(task_root, "tiny")
    assert discover_tasks()["tiny"] == (task_root / "tiny").resolve()
    task = load_task("tiny")
    assert type(task).__name__ == "TinyTask" and isinstance(task, Task)
    assert task.task_id == "tiny" and task.task_dir == (task_root / "tiny").resolve()
    assert load_config("tiny").name == "Tiny"


def test_several_roots_separated_by_pathsep(tmp_path, task_roots):
    first, second = tmp_path / "a", tmp_path / "b"
    make_task(first, "task_a")
    make_task(second, "task_b")
    task_roots.use(first, second)
    assert set(discover_tasks()) == {"task_a", "task_b"}


def test_duplicate_id_across_roots_names_both_places(tmp_path, task_roots):
    first, second = tmp_path / "a", tmp_path / "b"
    make_task(first, "same")
    make_task(second, "same")
    task_roots.use(first, second)
    with pytest.raises(TaskDefinitionError) as info:
        discover_tasks()
    assert str(first / "same") in str(info.value) and str(second / "same") in str(info.value)


def test_invalid_id_is_refused(task_root):
    make_task(task_root, "Bad-Id")
    with pytest.raises(TaskDefinitionError, match="invalid id 'Bad-Id'"):
        discover_tasks()


def test_unknown_task_suggests_close_matches(task_root):
    make_task(task_root, "tiny_task")
    with pytest.raises(TaskNotFoundError) as info:
        load_task("tiny_tsk")
    assert "'tiny_tsk' does not exist" in str(info.value) and "Did you mean 'tiny_task'" in str(info.value)
    assert isinstance(info.value, KeyError)


def test_no_task_class_is_a_clear_error(task_root):
    make_task(task_root, "empty", task_py="from genbench import Task\n")
    with pytest.raises(TaskDefinitionError, match=r"task.py defines no `Task` subclass"):
        load_task("empty")


def test_several_task_classes_is_a_clear_error(task_root):
    source = "from genbench import Task\n\nclass A(Task):\n    pass\n\nclass B(Task):\n    pass\n"
    make_task(task_root, "twice", task_py=source)
    with pytest.raises(TaskDefinitionError, match=r"several `Task` subclasses \(A, B\)"):
        load_task("twice")


def test_helper_base_class_in_task_py_is_not_ambiguous(task_root):
    source = "from genbench import Task\n\nclass Base(Task):\n    pass\n\nclass Leaf(Base):\n    pass\n"
    make_task(task_root, "based", task_py=source)
    assert type(load_task("based")).__name__ == "Leaf"


def test_imported_task_classes_are_ignored(task_root):
    make_task(
        task_root,
        "importer",
        task_py="from genbench import Task\nfrom genbench.task import Task as T2\n\nclass Mine(T2):\n    pass\n",
    )
    assert type(load_task("importer")).__name__ == "Mine"


def test_invalid_config_fails_loudly_with_its_file(task_root):
    bad = dict(CONFIG, task_type="nope")
    task_dir = make_task(task_root, "broken", config=bad)
    make_task(task_root, "fine")
    with pytest.raises(ConfigError) as info:
        load_task("broken")
    assert str(task_dir / "config.jsonnet") in str(info.value) and "task_type" in str(info.value)
    listed = {summary.id: summary for summary in list_tasks()}  # listed with its error, next to the others
    assert listed["broken"].error.startswith("ConfigError: ") and "task_type" in listed["broken"].error
    assert listed["fine"].error is None
    with pytest.raises(ConfigError):
        list_tasks(strict=True)


def make_task_dict(root: Path, order: list[str] | None, init_py: str = "") -> Path:
    parent = root / "family"
    parent.mkdir()
    (parent / "__init__.py").write_text(init_py)
    config = {"name": "Family", "description": "Two subtasks.", "keywords": ["k"], "authors": ["A"]}
    if order is not None:
        config["subtasks_order"] = order
    (parent / "config.jsonnet").write_text(json.dumps(config))
    for sub in ("zeta", "alpha"):
        make_task(parent, sub)
    return parent


def test_task_dict_without_order_loads_sorted(task_root):
    make_task_dict(task_root, None)
    task_dict = load_task("family")
    assert isinstance(task_dict, TaskDict) and type(task_dict) is TaskDict
    assert list(task_dict) == ["alpha", "zeta"]
    assert task_dict["alpha"].task_id == "family:alpha" and task_dict.alpha.subtask_id == "alpha"


def test_task_dict_follows_subtasks_order_and_its_subclass(task_root):
    init_py = "from genbench import TaskDict\n\n\nclass FamilyDict(TaskDict):\n    pass\n"
    make_task_dict(task_root, ["zeta", "alpha"], init_py)
    task_dict = load_task("family")
    assert type(task_dict).__name__ == "FamilyDict" and list(task_dict) == ["zeta", "alpha"]
    assert task_dict.name == "Family" and task_dict.task_id == "family"
    assert task_dict.config.subtasks_order == ["zeta", "alpha"]


def test_subtasks_order_naming_a_missing_subtask_is_an_error(task_root):
    make_task_dict(task_root, ["alpha", "zeta", "omega"])
    with pytest.raises(TaskDefinitionError, match="subtasks_order lists omega"):
        load_task("family")


def test_subtask_left_out_of_subtasks_order_is_an_error(task_root):
    make_task_dict(task_root, ["alpha"])
    with pytest.raises(TaskDefinitionError, match="zeta missing from subtasks_order"):
        load_task("family")


def test_load_single_subtask_by_colon_id(task_root):
    make_task_dict(task_root, None)
    task = load_task("family:zeta")
    assert isinstance(task, Task) and task.task_id == "family:zeta"
    assert get_task_dir("family", "zeta") == (task_root / "family" / "zeta").resolve()
    with pytest.raises(TaskNotFoundError, match="subtasks are: alpha, zeta"):
        load_task("family:omega")


def test_list_tasks_reads_configs_without_importing_task_code(task_root):
    make_task(task_root, "exploding", task_py="raise RuntimeError('task.py must not be imported by list_tasks')\n")
    make_task_dict(task_root, None)
    summaries = {s.id: s for s in list_tasks()}
    assert summaries["exploding"].name == "Tiny" and summaries["exploding"].task_type == "free_form"
    assert summaries["family"].subtasks == ["alpha", "zeta"] and summaries["family"].task_type is None
    with pytest.raises(RuntimeError, match="must not be imported"):
        load_task("exploding")


def test_import_genbench_loads_no_heavy_library():
    code = textwrap.dedent(
        """
        import sys
        import genbench, genbench._core.vocabulary, genbench._core.errors
        from genbench import TaskConfig, load_task, list_tasks, Task, TaskDict
        list_tasks()
        heavy = [m for m in ("datasets", "evaluate", "torch", "sentence_transformers", "elasticsearch", "sklearn",
                             "scipy", "transformers", "pyarrow") if m in sys.modules]
        print(",".join(heavy))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# The original framework's genbench.loading names, and the module that defines each now.
ORIGINAL_LOADING_NAMES = {
    "load_config": "genbench._registry.task_configs:load_config",
    "load_task": "genbench.task._factory:load_task",
    "_load_task_class": "genbench.task._classes:load_task_class",
    "_load_task_dict": "genbench.task._classes:load_task_dict",
}


@pytest.mark.parametrize(("name", "home"), sorted(ORIGINAL_LOADING_NAMES.items()))
def test_the_original_loading_path_keeps_its_names(name, home):
    import importlib

    import genbench.loading

    module, _, attribute = home.partition(":")
    assert getattr(genbench.loading, name) is getattr(importlib.import_module(module), attribute)


def test_the_registry_modules_stay_small():
    """The split by concept that keeps each module of the registry and the task factory under 300 lines."""
    import genbench.task._classes as classes
    import genbench.task._factory as factory
    from genbench._registry import directories, listing, roots, task_modules

    for module in (factory, classes, directories, listing, roots, task_modules):
        assert len(Path(module.__file__).read_text(encoding="utf-8").splitlines()) < 300, module.__name__
