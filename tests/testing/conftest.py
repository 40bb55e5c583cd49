"""Small tasks built in ``tmp_path`` and registered through ``GENBENCH_TASKS_PATH``, good or broken on purpose."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

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
def tasks_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A task root registered through GENBENCH_TASKS_PATH."""
    root = tmp_path / "tasks"
    root.mkdir()
    monkeypatch.setenv("GENBENCH_TASKS_PATH", str(root))
    return root


@pytest.fixture
def make_task(tasks_root: Path) -> MakeTask:
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
        task_dir = (parent or tasks_root) / task_id
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
def make_task_dict(tasks_root: Path, make_task: MakeTask) -> Callable[..., Path]:
    """``make_task_dict(task_id, subtasks=("a", "b"), config=..., init_py=...)``: a task with good subtasks."""

    def make(
        task_id: str = "tiny_dict",
        *,
        subtasks: tuple[str, ...] = ("first", "second"),
        config: dict[str, Any] | None = None,
        init_py: str = "",
        doc: str | None = DOC,
    ) -> Path:
        task_dir = tasks_root / task_id
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
