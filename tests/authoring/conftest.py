"""Fixtures for submission tests: real git repositories in ``tmp_path`` and a loopback fake of the GitHub API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.loopback import LoopbackServer, QuietHandler, drop_proxies
from tests.task_roots import TaskRoots

from .submission_helpers import FORK_URL, TASK_ID, FakeGitHub, FakeSuite, RecordedRequest, TaskRepo, git, write_task


@pytest.fixture(autouse=True)
def git_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Git with a fixed identity and no global/system config; no token, no proxy."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Alice")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "alice@example.org")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    drop_proxies(monkeypatch)


@pytest.fixture
def task_repo(tmp_path: Path, task_roots: TaskRoots) -> TaskRepo:
    """A repository on branch ``submitted_task``: the task committed and pushed to ``origin`` (alice's fork).

    ``origin`` reads ``https://github.com/alice/genbench_cbt.git`` while an ``insteadOf`` rule sends every
    fetch and push to a local bare repository, so the owner is parsed from a real GitHub URL offline.
    """
    root, fork = tmp_path / "clone", tmp_path / "fork.git"
    root.mkdir()
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(fork))
    repo = TaskRepo(root=root, fork=fork)
    repo.git("init", "-q", "-b", "main")
    repo.git("config", f"url.{fork.as_uri()}.insteadOf", FORK_URL)
    repo.git("remote", "add", "origin", FORK_URL)
    (root / "README.md").write_text("genbench\n", encoding="utf-8")
    (root / "src" / "genbench" / "tasks").mkdir(parents=True)
    (root / "src" / "genbench" / "tasks" / "__init__.py").write_text("", encoding="utf-8")
    repo.commit_all("initial")
    repo.git("push", "-q", "origin", "main")
    repo.git("checkout", "-q", "-b", TASK_ID)
    write_task(repo.task_dir)
    repo.commit_all(f"Add {TASK_ID}")
    repo.git("push", "-q", "-u", "origin", TASK_ID)
    task_roots.use(root / "src" / "genbench" / "tasks")  # the clone's tasks/ is the registry
    return repo


@pytest.fixture
def fake_suite() -> FakeSuite:
    return FakeSuite()


@pytest.fixture
def github_api() -> Iterator[FakeGitHub]:
    state = FakeGitHub(url="")

    class Handler(QuietHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            state.requests.append(
                RecordedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            status, document, *extra = state.answers.get((self.command, self.path), (404, {"message": "Not Found"}))
            self.send_json(status, document, extra[0] if extra else None)

        do_GET = do_POST = _answer  # noqa: N815 - http.server's naming

    with LoopbackServer(Handler) as server:
        state.url = server.url
        yield state
