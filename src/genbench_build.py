"""Build hook of genbench's wheels and sdists (``[tool.setuptools] cmdclass`` in pyproject.toml): only the task
directories that git tracks are packaged.

``package-data`` globs (``tasks/**/*``) and package discovery see every file on disk, so a task being written in
``src/genbench/tasks/`` (``genbench-cli create-task`` puts it there in a checkout) would ship in a wheel built from
the working tree. This ``build_py`` leaves out the files under ``src/genbench/tasks/`` that git does not track. Built
outside a git work tree (from an unpacked sdist, which was filtered when it was made; or with no git installed),
every file is packaged. setuptools has no option for this (``exclude-package-data`` takes fixed globs), hence this
small hook. It is not part of the installed package.
"""

from __future__ import annotations

import subprocess
from functools import cached_property
from pathlib import Path
from typing import Any

from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

TASKS_DIR = Path("src") / "genbench" / "tasks"


def untracked_task_files(project_root: Path) -> set[Path] | None:
    """The files under ``src/genbench/tasks/`` that git does not track (resolved), or None outside a git work tree."""
    tasks = (project_root / TASKS_DIR).resolve()
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--", str(tasks)],
            cwd=project_root,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):  # no git, or not a git work tree: package everything
        return None
    toplevel = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=project_root, capture_output=True, text=True, check=True
    ).stdout.strip()
    tracked = {(Path(toplevel) / name.decode()).resolve() for name in listed.split(b"\0") if name}
    on_disk = {path.resolve() for path in tasks.rglob("*") if path.is_file()} if tasks.is_dir() else set()
    return on_disk - tracked


class TrackedTasksBuildPy(build_py):  # type: ignore[misc]  # setuptools ships no type information for it
    """``build_py`` that packages only git-tracked files of ``src/genbench/tasks/``."""

    @cached_property
    def _untracked(self) -> set[Path]:
        untracked = untracked_task_files(Path.cwd())
        if untracked:
            names = sorted({str(path.relative_to((Path.cwd() / TASKS_DIR).resolve()).parts[0]) for path in untracked})
            self.announce(f"genbench: leaving out files git does not track under {TASKS_DIR}: {names}", level=2)
        return untracked or set()

    def _keep(self, path: str) -> bool:
        return Path(path).resolve() not in self._untracked

    def find_package_modules(self, package: str, package_dir: str) -> Any:
        return [entry for entry in super().find_package_modules(package, package_dir) if self._keep(entry[2])]

    def find_data_files(self, package: str, src_dir: str) -> Any:
        return [path for path in super().find_data_files(package, src_dir) if self._keep(path)]


class TrackedTasksSdist(sdist):  # type: ignore[misc]  # setuptools ships no type information for it
    """``sdist`` that leaves out the files of ``src/genbench/tasks/`` that git does not track (a wheel built from the
    sdist, as ``python -m build`` does, then has none either)."""

    def make_distribution(self) -> None:
        untracked = untracked_task_files(Path.cwd()) or set()
        self.filelist.files = [name for name in self.filelist.files if Path(name).resolve() not in untracked]
        super().make_distribution()
