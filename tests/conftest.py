"""Test-wide setup: no network, Hugging Face and genbench caches in a temporary directory, no extra task root.

Fixtures for tests that write their own tasks: ``task_roots`` and ``task_root`` (see ``tests/task_roots.py``), and
``make_task``/``make_task_dict``/``task_config`` to write small tasks, good or broken on purpose, into ``task_root``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_TMP = tempfile.mkdtemp(prefix="genbench-tests-")
os.environ.update(
    {
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HOME": os.path.join(_TMP, "hf_home"),
        "HF_DATASETS_CACHE": os.path.join(_TMP, "hf_datasets"),
        "GENBENCH_CACHE": os.path.join(_TMP, "genbench_cache"),
    }
)
os.environ.pop("GENBENCH_TASKS_PATH", None)

from tests.heavy_imports import pytest_make_collect_report  # noqa: E402, F401 - a hook (see the module)
from tests.skip_summary import pytest_terminal_summary  # noqa: E402, F401 - the one-line skip summary
from tests.task_roots import PACKAGE_TASKS_DIR, TaskRoots, registered_task_roots  # noqa: E402 - after the env is set


# ------------------------------------------------------------------------------------------------- task roots
@pytest.fixture(autouse=True)
def _registry_put_back() -> Iterator[None]:
    """After every test: no extra task root left set, the package's own tasks registered again."""
    yield
    from genbench._registry import roots

    assert "GENBENCH_TASKS_PATH" not in os.environ, "a test left GENBENCH_TASKS_PATH set"
    assert roots.PACKAGE_TASKS_DIR == PACKAGE_TASKS_DIR, "a test left the package's tasks hidden"


@pytest.fixture
def task_roots(tmp_path: Path) -> Iterator[TaskRoots]:
    """The task roots of this test: ``task_roots.use(*roots, package_tasks=...)``, ``task_roots.new(name, ...)``.

    ``package_tasks`` is ``"hidden"`` by default (the registry holds what the test writes), ``"shipped"`` (a copy of
    the shipped tasks next to the test's) or ``"all"`` (an author's drafts too): see ``tests/task_roots.py``.
    """
    with registered_task_roots(tmp_dir=tmp_path) as registry:
        yield registry


@pytest.fixture
def task_root(task_roots: TaskRoots) -> Path:
    """A fresh, empty directory (``tmp_path / "tasks"``): the only task root, the package's own tasks hidden."""
    return task_roots.new()


# ------------------------------------------------------------------------------------------- tasks to write
DOC = (
    "# Tiny addition\n\nThis task asks a model to add two small integers written in words and digits. It tests "
    "whether the model generalises from the training sums to unseen test sums. The data is generated, with "
    "twenty examples per split, and a perfect model scores 1.0 exact match.\n"
)

FREE_FORM_ROWS = {
    "train": [{"input": f"{a} + 1", "target": str(a + 1)} for a in range(10)],
    "test": [{"input": f"{a} + 2", "target": str(a + 2)} for a in range(10)],
}


def _config(**overrides: Any) -> dict[str, Any]:
    """A valid free-form config with a train and a test split; keys are replaced by ``overrides``."""
    base: dict[str, Any] = {
        "name": "Tiny",
        "description": "A tiny task.",
        "keywords": ["test"],
        "authors": ["Tester"],
        "data_source": {"type": "manual", "train": "train.jsonl", "test": "test.jsonl"},
        "has_train_set": True,
        "task_type": "free_form",
        "evaluation_metrics": [{"hf_id": "exact_match", "best_score": 1.0}],
        "preparation_strategies": {
            "finetuning": {"objective": "maximum_likelihood"},
            "prompt_based_testing": {"prompt_builder": {}},
        },
        "taxonomy": {
            "motivation": "practical",
            "generalisation_type": "compositional",
            "shift_type": "covariate",
            "shift_source": "fully_generated_data",
            "shift_locus": "train-test",
        },
    }
    base.update(overrides)
    return base


TASK_PY = "from genbench import Task\n\n\nclass TinyTask(Task):\n    pass\n"


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


MakeTask = Callable[..., Path]


@pytest.fixture
def task_config() -> Callable[..., dict[str, Any]]:
    """``task_config(**overrides)``: a valid free-form config (train and test split) with keys replaced."""
    return _config


@pytest.fixture
def make_task(task_root: Path) -> MakeTask:
    """``make_task(task_id, config=..., rows=..., task_py=..., doc=..., files=...)``: write a task directory.

    ``rows`` maps data file stems to rows (``{"train": [...], "test": [...]}`` writes ``train.jsonl`` and
    ``test.jsonl``); ``task_py``/``doc`` None leaves the file out; ``files`` adds other files; ``parent`` puts the
    task inside another directory (a subtask).
    """

    def make(
        task_id: str = "tiny",
        *,
        config: dict[str, Any] | None = None,
        rows: dict[str, list[dict[str, Any]]] | None = None,
        task_py: str | None = TASK_PY,
        doc: str | None = DOC,
        init: bool = True,
        files: dict[str, str] | None = None,
        parent: Path | None = None,
    ) -> Path:
        task_dir = (parent or task_root) / task_id
        task_dir.mkdir(parents=True)
        (task_dir / "config.jsonnet").write_text(json.dumps(config or _config()), encoding="utf-8")
        for stem, split_rows in (FREE_FORM_ROWS if rows is None else rows).items():
            write_jsonl(task_dir / f"{stem}.jsonl", split_rows)
        if task_py is not None:
            (task_dir / "task.py").write_text(task_py, encoding="utf-8")
        if doc is not None:
            (task_dir / "doc.md").write_text(doc, encoding="utf-8")
        if init:
            (task_dir / "__init__.py").touch()
        for name, text in (files or {}).items():
            (task_dir / name).write_text(text, encoding="utf-8")
        return task_dir

    return make


@pytest.fixture
def make_task_dict(task_root: Path, make_task: MakeTask) -> Callable[..., Path]:
    """``make_task_dict(task_id, subtasks=("a", "b"), config=..., init_py=...)``: a task with good subtasks."""

    def make(
        task_id: str = "tiny_dict",
        *,
        subtasks: tuple[str, ...] = ("first", "second"),
        config: dict[str, Any] | None = None,
        init_py: str = "",
        doc: str | None = DOC,
    ) -> Path:
        task_dir = task_root / task_id
        task_dir.mkdir()
        (task_dir / "config.jsonnet").write_text(
            json.dumps(config or {"name": "Tiny dict", "subtasks_order": list(subtasks)}), encoding="utf-8"
        )
        (task_dir / "__init__.py").write_text(init_py, encoding="utf-8")
        if doc is not None:
            (task_dir / "doc.md").write_text(doc, encoding="utf-8")
        for subtask in subtasks:
            make_task(subtask, parent=task_dir)
        return task_dir

    return make
