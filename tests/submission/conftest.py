"""Fixtures for submission tests: real git repositories in ``tmp_path`` and a loopback fake of the GitHub API."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

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
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


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

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            state.requests.append(
                RecordedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            status, document, *extra = state.answers.get((self.command, self.path), (404, {"message": "Not Found"}))
            data = document if isinstance(document, bytes) else json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for name, value in (extra[0] if extra else {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer  # noqa: N815 - http.server's naming

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence request logging
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
