"""Importing task code: every task root is part of the package ``genbench.tasks``.

As in the original framework, task code may import its own and its siblings' modules as
``genbench.tasks.<task_id>[.<subtask_id>].<module>``, wherever the task lives: the package's ``tasks/`` directory
and each ``GENBENCH_TASKS_PATH`` root are the entries of ``genbench.tasks.__path__``, kept in step with the
variable, and a task id imported from one root and later found in another is imported afresh.
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

from genbench._registry.roots import task_roots

TASKS_PACKAGE = "genbench.tasks"


def tasks_package() -> types.ModuleType:
    """The package ``genbench.tasks``, its ``__path__`` set to every task root (package first).

    Task modules of any root are thus importable as ``genbench.tasks.<task_id>[.<subtask_id>].<module>``.
    """
    package = importlib.import_module(TASKS_PACKAGE)
    wanted = [str(root) for root in task_roots()]
    if list(package.__path__) != wanted:
        package.__path__[:] = wanted  # type: ignore[index]
        importlib.invalidate_caches()
    return package


def _forget_stale_modules(task_id: str, task_dir: Path) -> None:
    """Drop ``genbench.tasks.<task_id>`` (and its submodules) if it was imported from another directory.

    The same id may live in different roots over a process's life (tests, notebooks changing
    ``GENBENCH_TASKS_PATH``); the module imported first must not stand in for the task asked for now.
    """
    name = f"{TASKS_PACKAGE}.{task_id}"
    module = sys.modules.get(name)
    if module is None:
        return
    paths = [Path(p).resolve() for p in getattr(module, "__path__", [])]
    if task_dir.resolve() in paths:
        return
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        del sys.modules[key]
    importlib.invalidate_caches()


def task_module_name(task_dir: Path, module: str | None = None) -> str:
    """The import name of a task (or subtask) directory, or of one of its modules: ``genbench.tasks.<id>...``."""
    task_dir = task_dir.resolve()
    roots = task_roots()
    root = task_dir.parent if task_dir.parent in roots else task_dir.parent.parent
    rel = task_dir.relative_to(root).parts
    return ".".join([TASKS_PACKAGE, *rel] + ([module] if module else []))


def import_task_module(task_dir: Path, module: str | None) -> types.ModuleType:
    """Import a task (or subtask) directory's package, or one of its modules (``"task"``).

    Errors raised by the task's own code propagate unchanged: a broken task fails loudly with its own error.
    """
    tasks_package()
    name = task_module_name(task_dir, module)
    root_task_dir = _root_task_dir(task_dir)
    _forget_stale_modules(root_task_dir.name, root_task_dir)
    return importlib.import_module(name)


def _root_task_dir(task_dir: Path) -> Path:
    task_dir = task_dir.resolve()
    return task_dir if task_dir.parent in task_roots() else task_dir.parent
