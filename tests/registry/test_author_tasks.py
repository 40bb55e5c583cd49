"""The tasks an author adds as the guide says do not turn the suite red, and pass what every shipped task passes.

``docs/creating_a_task.md`` has an author run ``genbench-cli create-task --name "My Awesome Task"`` (or
``--name "My Awesome TaskDict" -s subtask_1 -s subtask_2``) in ``src/genbench/tasks``; an id that sorts before the
shipped ones (``aaa_task``) is as likely. Here the scaffold creates them into a task root listed next to the
package's tasks (a test must not write into the package), their ``doc.md`` written as an author would. Then:

- what the suite and the doctests of ``src/genbench`` assume of the registry still holds (sorted listings, shipped
  tasks present, no "first task"), with a half-written, broken draft in the registry as well;
- the authored tasks pass the per-task checks that ``tests/registry/test_sample_tasks.py`` and
  ``tests/registry/test_registry_tasks.py`` run on every shipped task, and the demo job.

Tests with their own tasks use ``task_root``, where the package's tasks are hidden (``tests/task_roots.py``): their ids
cannot collide with an author's.
"""

from __future__ import annotations

import doctest
import importlib
import io
import re
import shutil
from pathlib import Path

import pytest

from genbench import list_tasks, load_task
from genbench._core.vocabulary import PreparationStrategy
from genbench._registry import roots as registry_roots
from genbench.authoring._scaffold import create_task
from genbench.review._plan import run_checks
from genbench.runs._demo import run_demo
from genbench.task._task_dict import TaskDict
from tests.registry import test_sample_tasks as per_task
from tests.shipped_tasks import shipped_task_ids
from tests.task_roots import PACKAGE_TASKS_DIR, TaskRoots

GUIDE_TASKS = {"My Awesome Task": [], "My Awesome TaskDict": ["subtask_1", "subtask_2"], "Aaa Task": []}
AUTHORED_IDS = ["my_awesome_task", "my_awesome_taskdict", "aaa_task"]
DOC = (
    "# {name}\n\nThe task asks a model to add two numbers of up to three digits. It tests whether a model that saw "
    "sums of small numbers in training generalises to larger operands at test time. The data is generated: eight "
    "training and ten test examples. A perfect model scores 1.0 exact match; copying an operand scores zero.\n"
)

# Names whose use in a doctest makes it depend on the registry's contents (a new task's id must not be taken).
_REGISTRY_NAMES = re.compile(
    r"\b(list_tasks|task_records|task_listing|discover_tasks|scan_task_dirs|load_task|load_config|get_task_dir"
    r"|task_roots|get_all_tasks\w*|get_all_task_metadata|create_task|check_new_task)\("
)
SRC = PACKAGE_TASKS_DIR.parent


def _registry_doctest_modules() -> list[str]:
    """The modules of ``src/genbench`` (tasks aside) with a doctest line that reads the registry."""
    modules = []
    for path in sorted(SRC.rglob("*.py")):
        if PACKAGE_TASKS_DIR in path.parents:
            continue
        text = path.read_text(encoding="utf-8")
        examples = [line for line in text.splitlines() if line.lstrip().startswith((">>>", "..."))]
        if any(_REGISTRY_NAMES.search(line) for line in examples):
            parts = path.relative_to(SRC.parent).with_suffix("").parts
            modules.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return modules


REGISTRY_DOCTEST_MODULES = _registry_doctest_modules()


@pytest.fixture
def authored_root(task_roots: TaskRoots) -> Path:
    """The guide's tasks, created by the scaffold and documented, in a root next to the package's tasks."""
    root = task_roots.new("authored", package_tasks="shipped")
    package_dir = registry_roots.PACKAGE_TASKS_DIR  # the test's copy of the shipped tasks
    assert package_dir != PACKAGE_TASKS_DIR
    for task_id in AUTHORED_IDS:  # an author who committed these tasks ships them: they are made again here
        shutil.rmtree(package_dir / task_id, ignore_errors=True)
    for name, subtasks in GUIDE_TASKS.items():
        task_dir = create_task(name, subtask_ids=subtasks, authors=["Jane Doe"], tasks_dir=root)
        for doc in task_dir.rglob("doc.md"):
            doc.write_text(DOC.format(name=name), encoding="utf-8")
    return root


def test_the_authored_tasks_are_listed_next_to_the_shipped_ones(authored_root):
    summaries = {summary.id: summary for summary in list_tasks()}
    ids = list(summaries)
    assert ids == sorted(ids) and ids[0] == "aaa_task"  # before arithmetic_length: no test may expect that first
    assert set(shipped_task_ids()) | set(AUTHORED_IDS) <= set(ids)  # the guide's tasks may be shipped already
    assert [summaries[task_id].error for task_id in AUTHORED_IDS] == [None, None, None]
    assert summaries["my_awesome_taskdict"].subtasks == ["subtask_1", "subtask_2"]


def test_the_registry_doctests_were_found():
    expected = {"genbench._registry.listing", "genbench._registry.directories", "genbench.authoring._scaffold"}
    assert expected <= set(REGISTRY_DOCTEST_MODULES)


@pytest.mark.parametrize("module_name", REGISTRY_DOCTEST_MODULES)
def test_registry_doctests_hold_with_authored_and_draft_tasks(authored_root, module_name):
    draft = authored_root / "zz_draft"  # half-written: its config does not even parse
    draft.mkdir()
    (draft / "config.jsonnet").write_text("{ name: 'Draft', ")
    module = importlib.import_module(module_name)
    output = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)  # pytest's default doctest_optionflags
    for test in doctest.DocTestFinder().find(module, module_name):
        runner.run(test, out=output.write)
    assert runner.failures == 0, output.getvalue()


def _leaf_ids() -> list[str]:
    leaves = []
    for task_id in AUTHORED_IDS:
        task = load_task(task_id)
        leaves += [sub.task_id for sub in task.values()] if isinstance(task, TaskDict) else [task_id]
    return leaves


def test_the_authored_tasks_pass_the_checks_of_every_shipped_task(authored_root):
    """``tests/registry/test_sample_tasks.py``'s per-task tests and the checks of ``test-task --submission``."""
    leaves = _leaf_ids()
    assert leaves == ["my_awesome_task", "my_awesome_taskdict:subtask_1", "my_awesome_taskdict:subtask_2", "aaa_task"]
    for task_id in leaves:
        task = load_task(task_id)
        prompts = task.get_prepared_datasets(
            PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0, per_task.SHOTS], random_seed=42
        )
        per_task.test_config_validates(task)
        per_task.test_raw_datasets_have_expected_splits_and_columns(task)
        per_task.test_prompts_have_exactly_k_shots(task, prompts)
        per_task.test_zero_shot_prompt_shape(task, prompts)
        for field in ("target", "original_target"):
            per_task.test_gold_predictions_reach_best_score(task, prompts, field)
        if task.config.preparation_strategies.finetuning is not None:  # else that test skips
            per_task.test_finetuning_datasets(task)
        per_task.test_baseline_is_below_perfect(task, prompts)
    for task_id in AUTHORED_IDS:
        report = run_checks(task_id, submission=True)
        assert report.ok, report.format_text()
        assert {result.check: result.outcome for result in report.results}["doc"] == "passed"


def test_the_demo_runs_the_authored_tasks(authored_root, tmp_path):
    results = run_demo(tmp_path / "demo", task_ids=AUTHORED_IDS)
    assert [result.task_id for result in results] == AUTHORED_IDS
    assert all(result.ok for result in results), [result.error for result in results if not result.ok]
