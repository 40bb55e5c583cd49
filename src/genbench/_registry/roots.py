"""Where tasks live: the package's ``tasks/`` directory and every ``GENBENCH_TASKS_PATH`` root.

A root that is another genbench copy's shipped registry (a contributor's clone) takes the place of the package's
``tasks/``, so the shipped tasks are not defined twice. Its own module so that the registry and the task-module
importer (:mod:`genbench._registry.task_modules`) both depend on it without depending on each other.
"""

from __future__ import annotations

import os
from pathlib import Path

TASKS_PATH_ENV = "GENBENCH_TASKS_PATH"
PACKAGE_TASKS_DIR = Path(__file__).resolve().parents[1] / "tasks"


def is_registry_copy(path: Path) -> bool:
    """Whether ``path`` is the ``tasks/`` package of a genbench copy (a checkout's ``src/genbench/tasks``).

    >>> import genbench
    >>> is_registry_copy(Path(genbench.__file__).parent / "tasks"), is_registry_copy(Path("/tmp"))
    (True, False)
    """
    return (
        path.name == "tasks"
        and path.parent.name == "genbench"
        and (path / "__init__.py").is_file()
        and (path.parent / "__init__.py").is_file()
    )


def task_roots() -> list[Path]:
    """The directories searched for tasks: the package's ``tasks/`` first, then ``GENBENCH_TASKS_PATH``.

    The first ``GENBENCH_TASKS_PATH`` entry that is another genbench copy's registry (:func:`is_registry_copy`)
    replaces the package's ``tasks/``.

    >>> task_roots()[0].name
    'tasks'
    """
    roots = [PACKAGE_TASKS_DIR]
    replaced = False
    for entry in os.environ.get(TASKS_PATH_ENV, "").split(os.pathsep):
        if entry.strip():
            path = Path(entry).expanduser().resolve()
            if path in roots:
                continue
            if not replaced and is_registry_copy(path):
                roots[0], replaced = path, True
            else:
                roots.append(path)
    return roots
