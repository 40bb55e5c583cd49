"""Task and TaskDict: a task's data, prompts and evaluation, and building them from a task directory.

This package is also the original framework's module ``genbench.task``: its helpers ``get_data_split_name``,
``resplit_data_source`` and ``make_nshot_dataset`` are resolved from :mod:`genbench._compat.task_helpers` on first
use (the one import of ``compat`` from inside genbench besides the package root's, see :mod:`genbench._compat`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench._core.lazy import lazy_exports
from genbench.task._task import Task
from genbench.task._task_dict import TaskDict

_ORIGINAL_HELPERS = {
    "get_data_split_name": "genbench._compat.task_helpers",
    "make_nshot_dataset": "genbench._compat.task_helpers",
    "resplit_data_source": "genbench._compat.task_helpers",
}

__all__ = ["Task", "TaskDict", "get_data_split_name", "make_nshot_dataset", "resplit_data_source"]

if TYPE_CHECKING:
    from genbench._compat.task_helpers import get_data_split_name, make_nshot_dataset, resplit_data_source

__getattr__, __dir__ = lazy_exports(__name__, _ORIGINAL_HELPERS)
