"""The tasks the test suite tests: the package's tasks that git tracks.

A task an author is drafting (an untracked directory in ``src/genbench/tasks/``, or any task in a
``GENBENCH_TASKS_PATH`` root, which ``conftest.py`` unsets) is checked with ``genbench-cli test-task``, not by
``make test``: a half-written task must not turn the framework's suite red. Outside a git checkout (an unpacked
sdist) every package task counts as shipped.
"""

from __future__ import annotations

import functools
import subprocess

from genbench._registry.directories import ID_PATTERN
from tests.task_roots import PACKAGE_TASKS_DIR  # the real one, whatever a test hides


def shipped_task_ids() -> list[str]:
    """Ids of the shipped tasks, sorted (whatever the task roots of the test that asks)."""
    return list(_shipped_task_ids())


@functools.cache
def _shipped_task_ids() -> tuple[str, ...]:
    package_tasks = tuple(
        sorted(
            path.name
            for path in PACKAGE_TASKS_DIR.iterdir()
            if ID_PATTERN.fullmatch(path.name) and (path / "config.jsonnet").is_file()
        )
    )
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--", "."], cwd=PACKAGE_TASKS_DIR, capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return package_tasks
    if listed.returncode != 0:
        return package_tasks
    tracked = {line.split("/", 1)[0] for line in listed.stdout.splitlines() if "/" in line}
    return tuple(task_id for task_id in package_tasks if task_id in tracked)
