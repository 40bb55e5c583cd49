"""Helpers for submission tests: a task repository, a fake validation suite, a fake GitHub API's state."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.shipped_tasks import shipped_task_ids
from tests.task_roots import PACKAGE_TASKS_DIR

TASK_ID = "submitted_task"
FORK_URL = "https://github.com/alice/genbench_cbt.git"
TASK_CONFIG = """{
  name: 'Submitted Task',
  description: 'Add two numbers.',
  keywords: ['sample_task'],
  authors: ['Alice'],
  data_source: { type: 'manual', test: 'data/test.jsonl' },
  has_train_set: false,
  has_validation_set: false,
  task_type: 'free_form',
  evaluation_metrics: [{ hf_id: 'exact_match', best_score: 1.0 }],
  preparation_strategies: { prompt_based_testing: { prompt_builder: {} } },
}
"""
DOC = (
    "The task tests whether a model adds two small numbers. It probes compositional generalisation on generated "
    "data with a covariate shift between training and test. The data is twelve synthetic sums written for the "
    "tests; the baseline exact match of a model that copies the first operand is zero."
)
TASK_PY = '"""Submitted task."""\n\nfrom genbench import Task\n\n\nclass SubmittedTask(Task):\n    """Add."""\n'


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` (identity and config isolated by the ``git_env`` fixture) and return its stdout."""
    process = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert process.returncode == 0, f"git {' '.join(args)} failed: {process.stderr}"
    return process.stdout


@dataclass
class TaskRepo:
    """A clone of a fork holding one task, with a bare repository standing in for the fork on GitHub."""

    root: Path
    fork: Path
    task_id: str = TASK_ID

    @property
    def task_dir(self) -> Path:
        return self.root / "src" / "genbench" / "tasks" / self.task_id

    def git(self, *args: str) -> str:
        return git(self.root, *args)

    def commit_all(self, message: str = "change") -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)


def write_task(task_dir: Path, name: str = "Submitted Task") -> None:
    """A small valid task: config, task.py, a documented doc.md and twelve test examples."""
    (task_dir / "data").mkdir(parents=True, exist_ok=True)
    (task_dir / "config.jsonnet").write_text(TASK_CONFIG.replace("Submitted Task", name), encoding="utf-8")
    (task_dir / "task.py").write_text(TASK_PY, encoding="utf-8")
    (task_dir / "__init__.py").write_text("", encoding="utf-8")
    (task_dir / "doc.md").write_text(f"# {name}\n\n{DOC}\n", encoding="utf-8")
    examples = "".join(f'{{"input": "{i} + 2", "target": "{i + 2}"}}\n' for i in range(12))
    (task_dir / "data" / "test.jsonl").write_text(examples, encoding="utf-8")


@dataclass
class Report:
    """A stand-in for the validation suite's report."""

    ok: bool
    summary: str


@dataclass
class FakeSuite:
    """A fake ``run_task_tests`` that records its calls."""

    ok: bool = True
    summary: str = "12 passed"
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def __call__(self, task_id: str, **kwargs: Any) -> Report:
        self.calls.append((task_id, kwargs))
        return Report(ok=self.ok, summary=self.summary)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeGitHub:
    """A loopback HTTP server answering like the GitHub API, recording every request.

    ``answers`` maps ``(METHOD, path)`` to ``(status, json_body)`` or ``(status, json_body, headers)`` (a ``bytes``
    body is sent as it is); anything else gets 404. Recorded header names are lower-cased.
    """

    url: str
    requests: list[RecordedRequest] = field(default_factory=list)
    answers: dict[tuple[str, str], tuple[Any, ...]] = field(default_factory=dict)


def genbench_clone(tmp_path: Path, branch: str | None = None) -> Path:
    """A fork's clone (``tmp_path/genbench_cbt``): a genbench checkout with the shipped registry, ``main`` pushed to
    a bare repository standing in for the fork (``origin``); with ``branch``, an ``upstream`` remote and a new
    ``branch`` checked out."""
    clone, fork = tmp_path / "genbench_cbt", tmp_path / "fork.git"
    package = clone / "src" / "genbench"
    package.mkdir(parents=True)
    (clone / "pyproject.toml").write_text('[project]\nname = "genbench"\n', encoding="utf-8")
    (package / "__init__.py").write_text('"""genbench."""\n', encoding="utf-8")
    (package / "tasks").mkdir()
    shutil.copy(PACKAGE_TASKS_DIR / "__init__.py", package / "tasks" / "__init__.py")
    for task_id in shipped_task_ids():
        shutil.copytree(
            PACKAGE_TASKS_DIR / task_id, package / "tasks" / task_id, ignore=shutil.ignore_patterns("__pycache__")
        )
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(fork))
    git(clone, "init", "-q", "-b", "main")
    git(clone, "config", f"url.{fork.as_uri()}.insteadOf", FORK_URL)
    git(clone, "remote", "add", "origin", FORK_URL)
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "genbench")
    git(clone, "push", "-q", "origin", "main")
    if branch is not None:
        git(clone, "remote", "add", "upstream", "https://github.com/GenBench/genbench_cbt.git")
        git(clone, "checkout", "-q", "-b", branch)
    return clone
