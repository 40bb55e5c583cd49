"""The tasks the test suite tests: the package's tasks that git tracks.

A task an author is drafting (an untracked directory in ``src/genbench/tasks/``, or any task in a
``GENBENCH_TASKS_PATH`` root, which ``conftest.py`` unsets) is checked with ``genbench-cli test-task``, not by
``make test``: a half-written task must not turn the framework's suite red. Outside a git checkout (an unpacked
sdist) every package task counts as shipped.
"""

from __future__ import annotations

import subprocess


def shipped_task_ids() -> list[str]:
    """Ids of the shipped tasks, sorted."""
    from genbench.registry.directories import scan_task_dirs
    from genbench.registry.roots import PACKAGE_TASKS_DIR

    tasks, _ = scan_task_dirs()
    package_tasks = sorted(task_id for task_id, path in tasks.items() if path.parent == PACKAGE_TASKS_DIR)
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--", "."], cwd=PACKAGE_TASKS_DIR, capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return package_tasks
    if listed.returncode != 0:
        return package_tasks
    tracked = {line.split("/", 1)[0] for line in listed.stdout.splitlines() if "/" in line}
    return [task_id for task_id in package_tasks if task_id in tracked]
