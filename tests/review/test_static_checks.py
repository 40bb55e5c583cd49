"""Checks of files, config, doc.md and code: each on a task broken on purpose, with its exact message."""

from __future__ import annotations

import json
import warnings

import pytest

from genbench import load_task
from genbench._core.errors import GenbenchConfigWarning
from genbench.review.checks import (
    DOC_TEMPLATE_MARKER,
    TaskCheckFailure,
    TaskCheckSkipped,
    TaskCheckWarning,
    check_config,
    check_doc,
    check_method_names,
    check_required_files,
    check_subtasks,
    check_task_loads,
)

REAL_DOC_HINT = (
    "Write what the task tests (its GenBench taxonomy values), where the data comes from, its size, and baseline "
    "scores, in at least 30 words"
)


# ----------------------------------------------------------------------------------------------- required_files
def test_required_files_pass_on_a_complete_task(make_task):
    check_required_files(make_task())


def test_required_files_names_each_missing_file_and_its_purpose(make_task):
    task_dir = make_task(task_py=None, doc=None, init=False)
    with pytest.raises(TaskCheckFailure) as info:
        check_required_files(task_dir)
    assert str(info.value) == (
        f"{task_dir} lacks 3 required files:\n"
        "  - task.py: the task's class (a `Task` subclass, even an empty one)\n"
        "  - doc.md: the task's documentation\n"
        "  - __init__.py: makes the directory a Python package, so task.py can be imported\n"
        "`genbench-cli create-task` writes them all; add the missing ones to the task directory."
    )


def test_required_files_of_a_task_dict(make_task_dict):
    task_dir = make_task_dict(doc=None)
    (task_dir / "__init__.py").unlink()
    with pytest.raises(TaskCheckFailure) as info:
        check_required_files(task_dir)
    assert str(info.value) == (
        f"{task_dir} lacks 2 required files:\n"
        "  - doc.md: the documentation of the task with subtasks\n"
        "  - __init__.py: makes the directory a Python package (it may define a `TaskDict` subclass)\n"
        "`genbench-cli create-task` writes them all; add the missing ones to the task directory."
    )


def test_required_files_of_a_task_dict_without_subtasks(make_task_dict):
    task_dir = make_task_dict(subtasks=())
    with pytest.raises(TaskCheckFailure, match="a task with subtasks needs subtask directories instead"):
        check_required_files(task_dir, task_dict=True)


# ------------------------------------------------------------------------------------------------------- config
def test_config_reports_every_problem_at_once(make_task, task_config):
    task_dir = make_task(config=task_config(task_type="free_formm", has_train_set="true", colour="blue"))
    # Lenient at the door: the unknown key is a GenbenchConfigWarning, not an error (the gate fails on it once the
    # config loads, below); the rules that a bad has_train_set breaks are not reported as problems of their own.
    with pytest.raises(TaskCheckFailure) as info:
        check_config(task_dir)
    message = str(info.value)
    assert message.startswith("config.jsonnet is invalid (2 problems):\n")
    file = task_dir / "config.jsonnet"
    for line in (
        f"{file}:1: has_train_set: expected a valid boolean, got the string 'true'",
        f"{file}:1: task_type: expected 'free_form', 'multiple_choice', 'sequence_labeling' or 'reranking', got the "
        "string 'free_formm'",
    ):
        assert line in message
    assert message.endswith(
        "Fix each problem listed above; docs/config.md describes every field and its expected form "
        "(`genbench-cli schema` prints the JSON Schema for editor completion)."
    )
    # Strict at the gate: a config that loads with a GenbenchConfigWarning fails, with the warning's message.
    colour_dir = make_task("tiny_colour", config=task_config(colour="blue"))
    with pytest.raises(TaskCheckFailure) as info:
        check_config(colour_dir)
    assert str(info.value).startswith("config.jsonnet loads, but with 1 warning that a submitted task may not have:\n")
    assert f"  - {colour_dir / 'config.jsonnet'}:1: colour: unknown field, ignored; delete it" in str(info.value)


def test_config_fails_on_legacy_spellings(make_task, task_config):
    """Lenient at the door (loading warns), strict at the gate (the check fails, naming the warning)."""
    legacy = {"prompt_based_testing": {"prompt_builder": {"instruction": "Add."}}}
    task_dir = make_task(config=task_config(preparation_strategies=legacy))
    with pytest.warns(GenbenchConfigWarning, match=r"instruction: legacy spelling; write `instruction_zero_shot`"):
        load_task("tiny")
    with pytest.raises(TaskCheckFailure, match=r"instruction: legacy spelling; write `instruction_zero_shot`"):
        check_config(task_dir)


def test_config_is_skipped_without_the_file(make_task):
    task_dir = make_task()
    (task_dir / "config.jsonnet").unlink()
    with pytest.raises(TaskCheckSkipped, match=r"^there is no config.jsonnet \(see the required_files check\)$"):
        check_config(task_dir, task_dict=False)


def test_task_dict_config_is_checked_with_its_own_schema(make_task_dict):
    task_dir = make_task_dict(config={"name": "D", "subtasks_order": ["first", "second"], "task_type": "free_form"})
    with pytest.raises(TaskCheckFailure, match=r"task_type: a task field in the config of a task with subtasks"):
        check_config(task_dir)


def test_task_dict_config_fails_on_the_loaders_stray_task_py_warning_without_importing_it(make_task_dict):
    """The loader's own warning (not the config's) fails the trusted check too, with the loader's text."""
    task_dir = make_task_dict()
    (task_dir / "task.py").write_text("raise SystemExit('the trusted config check imported task.py')\n")
    with pytest.warns(GenbenchConfigWarning) as loading:
        assert list(load_task("tiny_dict")) == ["first", "second"]
    (loader_warning,) = [str(w.message) for w in loading if "task.py" in str(w.message)]
    assert loader_warning.startswith(f"{task_dir / 'task.py'}: ignored: tiny_dict is a task with subtasks")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the check reports; it emits nothing of its own
        with pytest.raises(TaskCheckFailure, match="loads, but with 1 warning") as info:
            check_config(task_dir, task_dict=True)
    assert loader_warning in str(info.value)


# ---------------------------------------------------------------------------------------------------------- doc
TEMPLATE_DOC = f"# My task\n\n{DOC_TEMPLATE_MARKER}\n\n" + "Explain your task here. " * 20


def test_doc_template_is_a_warning_in_a_normal_run(make_task):
    task_dir = make_task(doc=TEMPLATE_DOC)
    with pytest.warns(TaskCheckWarning) as record:
        check_doc(task_dir)
    assert str(record[0].message) == (
        f"doc.md still contains the task template text (the line `{DOC_TEMPLATE_MARKER}`). {REAL_DOC_HINT}, and "
        "delete the template marker line. (A warning for now; `genbench-cli test-task --submission` and the "
        "pull-request review fail on it.)"
    )


def test_doc_template_fails_a_submission(make_task):
    task_dir = make_task(doc=TEMPLATE_DOC)
    with pytest.raises(TaskCheckFailure) as info:
        check_doc(task_dir, submission=True)
    assert str(info.value) == (
        f"doc.md still contains the task template text (the line `{DOC_TEMPLATE_MARKER}`). {REAL_DOC_HINT}, and "
        "delete the template marker line. A submitted task needs real documentation."
    )


def test_doc_nearly_empty_fails_a_submission(make_task):
    task_dir = make_task(doc="# Tiny\n\n<!-- comments do not count as words at all, however many there are -->\nTodo")
    with pytest.raises(TaskCheckFailure) as info:
        check_doc(task_dir, submission=True)
    assert str(info.value) == f"doc.md has only 2 words. {REAL_DOC_HINT}. A submitted task needs real documentation."


def test_real_doc_passes_without_warning(make_task):
    task_dir = make_task()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_doc(task_dir, submission=True)


def test_doc_is_skipped_without_the_file(make_task):
    with pytest.raises(TaskCheckSkipped, match=r"^there is no doc.md \(see the required_files check\)$"):
        check_doc(make_task(doc=None))


# ----------------------------------------------------------------------------------------------------- subtasks
def test_subtasks_pass_on_a_good_task_dict(make_task_dict):
    check_subtasks(make_task_dict())


def test_subtasks_order_must_match_the_directories(make_task_dict):
    task_dir = make_task_dict(config={"name": "D", "subtasks_order": ["first", "third"]})
    with pytest.raises(TaskCheckFailure) as info:
        check_subtasks(task_dir)
    assert str(info.value) == (
        "The subtasks are inconsistent:\n"
        f"  - {task_dir / 'config.jsonnet'}: subtasks_order lists third, which is not a subtask directory (found: "
        "first, second). List every subtask directory exactly once in subtasks_order, or remove subtasks_order to "
        "order the subtasks alphabetically"
    )


def test_subtask_without_task_py(make_task_dict):
    task_dir = make_task_dict()
    (task_dir / "second" / "task.py").unlink()
    with pytest.raises(TaskCheckFailure) as info:
        check_subtasks(task_dir)
    assert str(info.value) == (
        "The subtasks are inconsistent:\n"
        "  - subtask directory 'second' has no task.py: every subtask is a task of its own (config.jsonnet, task.py, "
        "doc.md, __init__.py); subtasks cannot have subtasks"
    )


# --------------------------------------------------------------------------------------------------- task_loads
def test_task_loads_returns_the_task(make_task):
    make_task()
    assert type(check_task_loads("tiny")).__name__ == "TinyTask"


def test_task_loads_reports_an_import_error_with_its_line(make_task):
    make_task(task_py="from genbench import Task\nimport no_such_module_here\n")
    with pytest.raises(TaskCheckFailure) as info:
        check_task_loads("tiny")
    assert str(info.value) == (
        "Task 'tiny' cannot be loaded: ModuleNotFoundError: No module named 'no_such_module_here' (at task.py:2). "
        "Fix the error in the task's code."
    )


def test_task_loads_reports_a_missing_task_class(make_task):
    task_dir = make_task(task_py="x = 1\n")
    with pytest.raises(TaskCheckFailure) as info:
        check_task_loads("tiny")
    assert str(info.value) == (
        f"Task 'tiny' cannot be loaded: {task_dir / 'task.py'} defines no `Task` subclass: add e.g. "
        "`class MyTask(Task): pass` after `from genbench import Task`. Fix the task directory as the message says."
    )


def test_task_loads_points_at_an_invalid_config(make_task, task_config):
    make_task(config=task_config(task_type="nope"))
    with pytest.raises(TaskCheckFailure) as info:
        check_task_loads("tiny")
    assert str(info.value) == (
        "Task 'tiny' cannot be loaded because tiny/config.jsonnet is invalid (see the config checks)."
    )


def test_task_loads_without_task_py(make_task):
    make_task(task_py=None)
    with pytest.raises(TaskCheckFailure) as info:
        check_task_loads("tiny")
    assert str(info.value) == "Task 'tiny' cannot be loaded: it has no task.py (see the required_files check)."


# ------------------------------------------------------------------------------------------------- method_names
MISSPELT_TASK_PY = """from genbench import Task


class Base(Task):
    def evaluate_prediction(self, *, predictions=None, gold=None):
        return {}


class TinyTask(Base):
    def get_dataset_raw(self):
        return {}

    @staticmethod
    def format_examples(example):
        return example

    def _magic_combo(self, examples):  # a helper: no Task method is close to it
        return examples

    def _format_example(self, example):  # a private helper, not an override
        return example

    def get_datasets_raw_split(self, split):  # extends a Task method's name
        return self.get_datasets_raw()[split]

    def format_example(self, example):  # a real override
        return example
"""


def test_misspelt_overrides_are_named_with_the_likely_method(make_task):
    make_task(task_py=MISSPELT_TASK_PY)
    with pytest.raises(TaskCheckFailure) as info:
        check_method_names(load_task("tiny"))
    assert str(info.value) == (
        "task.py:10: TinyTask.get_dataset_raw is not a Task method, so genbench never calls it: did you mean "
        "`get_datasets_raw`?\n"
        "task.py:13: TinyTask.format_examples is not a Task method, so genbench never calls it: did you mean "
        "`format_example`?\n"
        "task.py:5: Base.evaluate_prediction is not a Task method, so genbench never calls it: did you mean "
        "`evaluate_predictions`?\n"
        "Rename the method to override the Task method (or, for a helper, choose a name that is not so close to one)."
    )


def test_correct_overrides_and_helpers_pass(make_task):
    make_task(
        task_py="from genbench import Task\n\n\nclass TinyTask(Task):\n"
        "    def get_datasets_raw(self):\n        return super().get_datasets_raw()\n\n"
        "    def tokenize(self, text):\n        return text.split()\n"
    )
    check_method_names(load_task("tiny"))


def test_config_problems_keep_their_line_and_field(make_task, task_config):
    bad = task_config(evaluation_metrics=[{"hf_id": "exact_match", "best_score": "1.0"}])
    task_dir = make_task(config=bad)
    (task_dir / "config.jsonnet").write_text(json.dumps(bad, indent=2))
    with pytest.raises(TaskCheckFailure) as info:
        check_config(task_dir)
    assert f"{task_dir / 'config.jsonnet'}:20: evaluation_metrics.0.best_score: expected a valid number" in str(
        info.value
    )
