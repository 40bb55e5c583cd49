"""Temporary task roots: what the registry holds during a test, kept in step with ``genbench.tasks``.

A test that writes its own tasks lists their root in ``GENBENCH_TASKS_PATH`` through :class:`TaskRoots` (the
``task_roots`` and ``task_root`` fixtures of ``tests/conftest.py``, or :func:`registered_task_roots` where a fixture
cannot be used: hypothesis examples, module-scoped fixtures). The package's own ``tasks/`` directory is replaced for
the test by a stand-in (``package_tasks``):

- ``"hidden"`` (the default): an empty directory, so that the registry holds nothing but what the test wrote;
- ``"shipped"``: a copy of the shipped tasks (those git tracks: ``tests/shipped_tasks.py``), for a test that needs them
  next to its own;
- ``"all"``: the real directory, an author's drafts included.

Either way a task an author adds to ``src/genbench/tasks`` (``my_awesome_task``, a half-written or broken one)
neither collides with the test's ids nor changes what it lists, except with ``"all"``.

On the way out the registry is put back as it was, and nothing of the test's tasks stays behind: their
``genbench.tasks.<id>`` modules are dropped from ``sys.modules`` and ``genbench.tasks.__path__`` is set back to the
real roots (the library keeps ``__path__`` in step only when it imports a task, so a test that imports
``genbench.tasks.<id>`` directly would otherwise see the roots of the test before). The registry metadata cache
needs nothing: its records are keyed by task directory and checked against the files' fingerprints.

The stand-in works in this process only: a subprocess (``genbench-cli`` run as a command) sees the package's real
``tasks/`` next to the roots in ``GENBENCH_TASKS_PATH``.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import pytest

from genbench._registry import roots as registry_roots
from genbench._registry.roots import TASKS_PATH_ENV
from genbench._registry.task_modules import TASKS_PACKAGE, tasks_package

PACKAGE_TASKS_DIR = registry_roots.PACKAGE_TASKS_DIR
"""The package's real ``tasks/`` directory, read before any test hides it."""
_STAND_IN_PREFIX = "genbench-package-tasks-"

PackageTasks = Literal["hidden", "shipped", "all"]


class TaskRoots:
    """Sets the task roots of one test (or one hypothesis example) through a :class:`pytest.MonkeyPatch`."""

    def __init__(self, patch: pytest.MonkeyPatch, tmp_dir: Path | None = None):
        self._patch = patch
        self._tmp_dir = tmp_dir
        self._own_tmp_dir: Path | None = None
        self._used: set[Path] = set()
        self._stand_ins: dict[str, Path] = {}

    def use(self, *roots: Path | str, package_tasks: PackageTasks = "hidden") -> Path | None:
        """Make ``roots`` the ``GENBENCH_TASKS_PATH`` roots, in order (a root need not exist); return the first.

        Args:
            roots: The roots; none leaves only the package's tasks (nothing, with ``"hidden"``).
            package_tasks: What stands for the package's own tasks: ``"hidden"`` (nothing: the registry holds what
                the test writes into ``roots``), ``"shipped"`` (a copy of the shipped tasks) or ``"all"``.
        """
        self._patch.setenv(TASKS_PATH_ENV, os.pathsep.join(str(root) for root in roots))
        self._set_package_dir(PACKAGE_TASKS_DIR if package_tasks == "all" else self._stand_in(package_tasks))
        self._used.update(Path(root).expanduser().resolve() for root in roots)
        tasks_package()  # genbench.tasks.__path__ in step with the roots
        return Path(roots[0]) if roots else None

    def new(self, name: str = "tasks", *, package_tasks: PackageTasks = "hidden") -> Path:
        """A fresh, empty directory ``name`` in the test's temporary directory, used as the only task root."""
        if self._tmp_dir is None:
            self._tmp_dir = self._own_tmp_dir = Path(tempfile.mkdtemp(prefix="genbench-task-root-"))
        root = self._tmp_dir / name
        root.mkdir(parents=True)
        self.use(root, package_tasks=package_tasks)
        return root

    def _stand_in(self, package_tasks: PackageTasks) -> Path:
        """An empty directory named ``tasks`` (as the package's), or one with a copy of the shipped tasks."""
        if package_tasks not in ("hidden", "shipped"):
            raise ValueError(f"package_tasks is 'hidden', 'shipped' or 'all', not {package_tasks!r}")
        stand_in = self._stand_ins.get(package_tasks)
        if stand_in is None:
            stand_in = Path(tempfile.mkdtemp(prefix=_STAND_IN_PREFIX)) / "tasks"
            stand_in.mkdir()
            if package_tasks == "shipped":
                from tests.shipped_tasks import shipped_task_ids

                for task_id in shipped_task_ids():
                    ignore = shutil.ignore_patterns("__pycache__")
                    shutil.copytree(PACKAGE_TASKS_DIR / task_id, stand_in / task_id, ignore=ignore)
            self._stand_ins[package_tasks] = stand_in
        return stand_in

    def _set_package_dir(self, path: Path) -> None:
        # Every module that imported the constant by name (``from genbench._registry.roots import ...``) as well.
        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("genbench.") and _is_package_dir(
                getattr(module, "PACKAGE_TASKS_DIR", None)
            ):
                self._patch.setattr(module, "PACKAGE_TASKS_DIR", path)

    def close(self) -> None:
        """Forget the modules imported from the test's roots; remove the directories made here."""
        used = [*self._used, *(stand_in.resolve() for stand_in in self._stand_ins.values())]
        for name in [name for name in sys.modules if name.startswith(TASKS_PACKAGE + ".")]:
            module = sys.modules[name]
            places = [getattr(module, "__file__", None), *getattr(module, "__path__", [])]
            if any(place and _inside(Path(place), used) for place in places):
                del sys.modules[name]
        importlib.invalidate_caches()
        for made in (*(stand_in.parent for stand_in in self._stand_ins.values()), self._own_tmp_dir):
            if made is not None:
                shutil.rmtree(made, ignore_errors=True)


def _is_stand_in(path: object) -> bool:
    return isinstance(path, Path) and path.parent.name.startswith(_STAND_IN_PREFIX)


def _is_package_dir(path: object) -> bool:
    """The package's real tasks directory, or a stand-in for it."""
    return path == PACKAGE_TASKS_DIR or _is_stand_in(path)


def _inside(path: Path, roots: list[Path]) -> bool:
    resolved = path.resolve()
    return any(resolved == root or root in resolved.parents for root in roots)


def _restore_package_dir() -> None:
    """Modules first imported while a stand-in was in place bound it: give them the real directory."""
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("genbench.") and _is_stand_in(
            getattr(module, "PACKAGE_TASKS_DIR", None)
        ):
            module.PACKAGE_TASKS_DIR = PACKAGE_TASKS_DIR  # type: ignore[attr-defined]


@contextmanager
def registered_task_roots(
    *roots: Path | str, package_tasks: PackageTasks | None = None, tmp_dir: Path | None = None
) -> Iterator[TaskRoots]:
    """:class:`TaskRoots` for a block, undone at its end.

    ``roots`` and ``package_tasks`` (default ``"hidden"``), when given, are used from the start (see
    :meth:`TaskRoots.use`); without them the registry is unchanged until the block calls ``use`` or ``new``.
    :meth:`TaskRoots.new` makes its roots in ``tmp_dir`` (default: a temporary directory removed at the end).
    """
    with pytest.MonkeyPatch.context() as patch:
        registry = TaskRoots(patch, tmp_dir)
        try:
            if roots or package_tasks is not None:
                registry.use(*roots, package_tasks=package_tasks or "hidden")
            yield registry
        finally:
            registry.close()
    _restore_package_dir()
    tasks_package()  # the real roots again
