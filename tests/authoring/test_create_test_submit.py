"""The author's whole path: create-task → edit doc.md → test-task (a real process) → commit, push → submit-task."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from genbench.cli import cli
from tests.task_roots import TaskRoots

from .submission_helpers import FORK_URL, FakeGitHub, git

DOC = """# Sum Shift

Adds two numbers. The training sums use small operands and the test sums larger ones, so the task measures
whether a model extends addition to lengths it has not seen. The data was written by the authors for this
task and is released under the Apache-2.0 licence; it holds a handful of examples per split.
"""


def test_create_then_test_then_submit(tmp_path: Path, monkeypatch, task_roots: TaskRoots, github_api: FakeGitHub):
    root, fork = tmp_path / "clone", tmp_path / "fork.git"
    root.mkdir()
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(fork))
    git(root, "init", "-q", "-b", "main")
    git(root, "config", f"url.{fork.as_uri()}.insteadOf", FORK_URL)
    git(root, "remote", "add", "origin", FORK_URL)
    tasks_dir = root / "src" / "genbench" / "tasks"
    tasks_dir.mkdir(parents=True)
    (tasks_dir / "__init__.py").touch()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    git(root, "push", "-q", "origin", "main")
    git(root, "checkout", "-q", "-b", "sum_shift")
    task_roots.use(tasks_dir)
    monkeypatch.chdir(root)

    created = CliRunner().invoke(cli, ["create-task", "-n", "Sum Shift", "-a", "Alice", "--tasks-dir", str(tasks_dir)])
    assert created.exit_code == 0, created.output
    assert "Task id: sum_shift" in created.output

    # The fresh task passes test-task as it is, but not for submission: doc.md is still the template.
    command = [str(Path(sys.executable).parent / "genbench-cli"), "test-task", "-i", "sum_shift"]
    assert subprocess.run(command, capture_output=True, text=True, cwd=root).returncode == 0
    template_run = subprocess.run([*command, "--submission"], capture_output=True, text=True, cwd=root)
    assert template_run.returncode == 1 and "doc.md" in template_run.stdout + template_run.stderr
    (tasks_dir / "sum_shift" / "doc.md").write_text(DOC, encoding="utf-8")
    final_run = subprocess.run([*command, "--submission"], capture_output=True, text=True, cwd=root)
    assert final_run.returncode == 0, final_run.stdout + final_run.stderr

    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Add Sum Shift")
    git(root, "push", "-q", "-u", "origin", "sum_shift")
    path = "/repos/GenBench/genbench_cbt/pulls"
    github_api.answers[("POST", path)] = (201, {"html_url": "https://github.com/GenBench/genbench_cbt/pull/1"})
    submitted = CliRunner().invoke(
        cli, ["submit-task", "-i", "sum_shift", "--api-url", github_api.url], env={"GITHUB_TOKEN": "t0k3n"}
    )
    assert submitted.exit_code == 0, submitted.output
    assert submitted.stdout.strip() == "https://github.com/GenBench/genbench_cbt/pull/1"
    (request,) = [r for r in github_api.requests if r.method == "POST"]
    assert request.body["title"] == "[Task Submission] Sum Shift (`sum_shift`)"
    assert request.body["head"] == "alice:sum_shift" and request.body["base"] == "main"
