"""A tiny free-form task written into a temporary task root: the fixture shared by the registry tests."""

from __future__ import annotations

import json
from pathlib import Path

CONFIG = {
    "name": "Tiny",
    "description": "A tiny task.",
    "keywords": ["test"],
    "authors": ["Tester"],
    "data_source": {"type": "manual", "test": "test.jsonl"},
    "task_type": "free_form",
    "evaluation_metrics": [{"hf_id": "exact_match", "best_score": 1.0}],
    "preparation_strategies": {"prompt_based_testing": {"prompt_builder": {}}},
}
TASK_PY = "from genbench import Task\n\n\nclass TinyTask(Task):\n    pass\n"


def write_task(task_dir: Path, task_py: str | None = TASK_PY, config: dict | None = None) -> Path:
    """Write a task directory (``__init__.py``, ``config.jsonnet``, two test examples and ``task_py``)."""
    task_dir.mkdir(parents=True)
    (task_dir / "__init__.py").touch()
    (task_dir / "config.jsonnet").write_text(json.dumps(config or CONFIG))
    (task_dir / "test.jsonl").write_text('{"input": "1 + 1", "target": "2"}\n{"input": "2 + 2", "target": "4"}\n')
    if task_py is not None:
        (task_dir / "task.py").write_text(task_py)
    return task_dir
