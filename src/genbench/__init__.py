"""genbench: generalisation benchmarks for NLP models.

The public API is imported lazily, so ``import genbench`` loads no heavy library (datasets, evaluate, torch).

>>> import genbench
>>> sorted(n for n in genbench.__all__ if n[0].isupper())
['Task', 'TaskConfig', 'TaskDict']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench.compat import aliases as _compat_aliases
from genbench.core.lazy import lazy_exports
from genbench.core.version import VERSION

__version__ = VERSION

_EXPORTS = {
    "Task": "genbench.task.task",
    "TaskDict": "genbench.task.task_dict",
    "TaskConfig": "genbench.config.schema",
    "load_task": "genbench.task.factory",
    "load_config": "genbench.registry.task_configs",
    "list_tasks": "genbench.registry.listing",
    "evaluate": "genbench.runs.evaluation",
}

__all__ = ["Task", "TaskConfig", "TaskDict", "evaluate", "list_tasks", "load_config", "load_task"]

# genbench's former module paths (genbench.testing, genbench.errors, ...) stay importable: genbench.compat.aliases.
# The one import of genbench.compat at the package root, see docs/architecture.md.
_compat_aliases.install()

if TYPE_CHECKING:
    from genbench.config.schema import TaskConfig
    from genbench.registry.listing import list_tasks
    from genbench.registry.task_configs import load_config
    from genbench.runs.evaluation import evaluate
    from genbench.task.factory import load_task
    from genbench.task.task import Task
    from genbench.task.task_dict import TaskDict

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
