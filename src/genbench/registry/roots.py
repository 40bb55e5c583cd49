"""Where tasks live: the package's ``tasks/`` directory and every ``GENBENCH_TASKS_PATH`` root.

Its own module so that the registry (:mod:`genbench.task.factory`) and the task-module importer
(:mod:`genbench.registry.task_modules`) both depend on it without depending on each other.
"""

from __future__ import annotations

import os
from pathlib import Path

TASKS_PATH_ENV = "GENBENCH_TASKS_PATH"
PACKAGE_TASKS_DIR = Path(__file__).resolve().parents[1] / "tasks"


def task_roots() -> list[Path]:
    """The directories searched for tasks: the package's ``tasks/`` first, then ``GENBENCH_TASKS_PATH``.

    >>> task_roots()[0].name
    'tasks'
    """
    roots = [PACKAGE_TASKS_DIR]
    for entry in os.environ.get(TASKS_PATH_ENV, "").split(os.pathsep):
        if entry.strip():
            path = Path(entry).expanduser().resolve()
            if path not in roots:
                roots.append(path)
    return roots
