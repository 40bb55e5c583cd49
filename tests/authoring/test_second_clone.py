"""A contributor's second clone, while genbench runs from another checkout: docs/review.md's flow as create-task
advises it (``GENBENCH_TASKS_PATH`` set to the clone's registry), with every shipped task still usable."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.shipped_tasks import shipped_task_ids

from .submission_helpers import genbench_clone, git

GENBENCH_CLI = str(Path(sys.executable).parent / "genbench-cli")
DOC = """# My Awesome Task

Adds two numbers. The training sums use small operands and the test sums larger ones, so the task measures
whether a model extends addition to lengths it has not seen. The data was written by the authors for this
task and is released under the Apache-2.0 licence; it holds a handful of examples per split.
"""


def _cli(clone: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GENBENCH_CLI, *args], cwd=clone, env=env, capture_output=True, text=True, timeout=300)


def test_a_second_clone_works_as_create_task_advises(tmp_path: Path):
    clone = genbench_clone(tmp_path, "my_awesome_task")
    env = {k: v for k, v in os.environ.items() if k != "GENBENCH_TASKS_PATH"}

    created = _cli(clone, env, "create-task", "--name", "My Awesome Task", "--authors", "Alice")
    assert created.returncode == 0, created.stdout + created.stderr
    tasks_dir = clone / "src" / "genbench" / "tasks"
    assert (tasks_dir / "my_awesome_task" / "config.jsonnet").is_file()
    advice = re.search(r"export GENBENCH_TASKS_PATH=(\S+?)\)", created.stdout)
    assert advice is not None, created.stdout
    assert Path(advice.group(1)).resolve() == tasks_dir.resolve()
    env["GENBENCH_TASKS_PATH"] = advice.group(1)  # the advice, followed

    listed = _cli(clone, env, "list-tasks", "--json", "--strict")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "defined twice" not in listed.stdout + listed.stderr
    assert "BROKEN" not in listed.stdout
    for task_id in [*shipped_task_ids(), "my_awesome_task"]:
        assert f'"{task_id}"' in listed.stdout

    # The shipped tasks now come from the clone, as the contributor's edits would.
    shown = _cli(clone, env, "show-task", "--task", shipped_task_ids()[0])
    assert shown.returncode == 0, shown.stdout + shown.stderr

    (tasks_dir / "my_awesome_task" / "doc.md").write_text(DOC, encoding="utf-8")
    tested = _cli(clone, env, "test-task", "--task", "my_awesome_task", "--submission")
    assert tested.returncode == 0, tested.stdout + tested.stderr

    git(clone, "add", "src/genbench/tasks/my_awesome_task")
    git(clone, "commit", "-q", "-m", "Add My Awesome Task")
    git(clone, "push", "-q", "-u", "origin", "my_awesome_task")
    submitted = _cli(
        clone,
        {k: v for k, v in env.items() if k != "GITHUB_TOKEN"},
        "submit-task",
        "--task",
        "my_awesome_task",
        "--skip-tests",
    )
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    assert "https://github.com/GenBench/genbench_cbt/compare/main...alice:my_awesome_task" in submitted.stdout
