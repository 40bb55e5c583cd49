"""The original GenBench framework's own test suites, run unchanged against this package.

Both editions of the original repository (GenBench/genbench_cbt and GenBench/genbench_cbt_2023) ship
``tests/test_task_config.py`` and ``tests/test_task_impl.py`` (the framework's tests) and ``tests/test_task.py``
(the submission validator their CI ran once per task, TaskDicts subtask by subtask, with ``--task-id``). Point
``GENBENCH_ORIGINAL_REPOS`` at local checkouts (``os.pathsep``-separated) to run them:

    GENBENCH_ORIGINAL_REPOS=/tmp/orig/genbench_cbt:/tmp/orig/genbench_cbt_2023 \\
        .venv/bin/python -m pytest tests/compat -q

Each suite runs in a child ``pytest`` inside the checkout, importing genbench from this environment (the checkout's
own ``src/`` is not on the path). Without the variable these tests skip, saying so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ORIGINAL_REPOS_ENV = "GENBENCH_ORIGINAL_REPOS"
# Task types the original framework knows; a reranking task is this package's own.
ORIGINAL_TASK_TYPES = {"free_form", "multiple_choice", "sequence_labeling"}
FRAMEWORK_SUITES = ["tests/test_task_config.py", "tests/test_task_impl.py"]
VALIDATOR = "tests/test_task.py"

REPOS = [Path(entry) for entry in os.environ.get(ORIGINAL_REPOS_ENV, "").split(os.pathsep) if entry.strip()]
SKIP_REASON = (
    f"{ORIGINAL_REPOS_ENV} is not set: give local checkouts of the original GenBench repositories "
    f"(e.g. {ORIGINAL_REPOS_ENV}=/tmp/orig/genbench_cbt{os.pathsep}/tmp/orig/genbench_cbt_2023) to run their suites"
)


def registry_task_ids() -> list[str]:
    """The shipped tasks of a type the original knows, a TaskDict as its subtasks (``id:sub``)."""
    from genbench._registry.listing import task_records
    from genbench.loading import load_config
    from tests.shipped_tasks import shipped_task_ids

    shipped = set(shipped_task_ids())
    ids = []
    for record in task_records():
        if record["id"] not in shipped or record["error"] is not None:
            continue
        if not record["subtasks"]:  # the listing gives a task's type; a subtask's is in its own config
            ids += [record["id"]] if record["type"] in ORIGINAL_TASK_TYPES else []
            continue
        for task_id in (f"{record['id']}:{s}" for s in record["subtasks"]):
            if load_config(task_id).task_type.value in ORIGINAL_TASK_TYPES:
                ids.append(task_id)
    return ids


def _repo_params() -> list:
    if not REPOS:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_REASON), id="unset")]
    return [pytest.param(repo, id=repo.name) for repo in REPOS]


def run_original_pytest(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pytest ARGS`` in the original checkout, with this environment's genbench and no network."""
    env = {k: v for k, v in os.environ.items() if k not in ("GENBENCH_TASKS_PATH", "PYTHONPATH")}
    env.update({"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(repo), *args]
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=900)


def _check(run: subprocess.CompletedProcess[str]) -> None:
    tail = "\n".join((run.stdout + run.stderr).splitlines()[-40:])
    assert run.returncode == 0, f"the original suite failed (exit {run.returncode}):\n{tail}"
    assert " passed" in run.stdout, tail  # something ran


@pytest.mark.parametrize("repo", _repo_params())
def test_original_framework_suites_pass(repo: Path):
    missing = [suite for suite in FRAMEWORK_SUITES if not (repo / suite).is_file()]
    assert not missing, f"{repo} is not a checkout of the original repository: {', '.join(missing)} missing"
    _check(run_original_pytest(repo, *FRAMEWORK_SUITES))


def test_registry_has_tasks_for_the_original_validator():
    ids = registry_task_ids()
    assert {"arithmetic_length", "negation_consistency:affirmative", "ner_unseen_entities"} <= set(ids)
    assert "negation_consistency" not in ids and "passage_reranking_shift" not in ids


@pytest.mark.parametrize("task_id", registry_task_ids())
@pytest.mark.parametrize("repo", _repo_params())
def test_original_validator_passes_registry_task(repo: Path, task_id: str):
    run = run_original_pytest(repo, VALIDATOR, "--task-id", task_id)
    _check(run)
    assert " failed" not in run.stdout
