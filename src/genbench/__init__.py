"""genbench: generalisation benchmarks for NLP models.

The public API is imported lazily, so ``import genbench`` loads no heavy library (datasets, evaluate, torch).

>>> import genbench
>>> sorted(n for n in genbench.__all__ if n[0].isupper())
['Task', 'TaskConfig', 'TaskDict']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Task": "genbench.task",
    "TaskDict": "genbench.task_dict",
    "TaskConfig": "genbench.config.schema",
    "load_task": "genbench.loading",
    "load_config": "genbench.loading",
    "list_tasks": "genbench.listing",
}

__all__ = ["Task", "TaskConfig", "TaskDict", "list_tasks", "load_config", "load_task"]

if TYPE_CHECKING:
    from genbench.config.schema import TaskConfig
    from genbench.listing import list_tasks
    from genbench.loading import load_config, load_task
    from genbench.task import Task
    from genbench.task_dict import TaskDict


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'genbench' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
