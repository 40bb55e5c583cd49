"""The git wrappers of ``genbench.authoring.submission._git`` on real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

import genbench.authoring.submission._git as gitlib
from genbench.authoring.submission import GitError, parse_remote_url

from .submission_helpers import TASK_ID, TaskRepo


@pytest.mark.parametrize(
    ("url", "host", "slug"),
    [
        ("https://github.com/alice/genbench_cbt.git", "github.com", "alice/genbench_cbt"),
        ("https://github.com/alice/genbench_cbt", "github.com", "alice/genbench_cbt"),
        ("https://github.com/alice/genbench_cbt/", "github.com", "alice/genbench_cbt"),
        ("http://alice:secret@github.com/alice/genbench_cbt.git", "github.com", "alice/genbench_cbt"),
        ("git@github.com:alice/genbench_cbt.git", "github.com", "alice/genbench_cbt"),
        ("github.com:alice/genbench_cbt", "github.com", "alice/genbench_cbt"),
        ("ssh://git@github.com/alice/genbench_cbt.git", "github.com", "alice/genbench_cbt"),
        ("ssh://git@github.com:22/alice/genbench_cbt.git", "github.com", "alice/genbench_cbt"),
        ("git://github.com/Alice-B/genbench.cbt.git", "github.com", "Alice-B/genbench.cbt"),
        ("https://ghe.example.org/team/tasks.git", "ghe.example.org", "team/tasks"),
    ],
)
def test_parse_remote_url(url: str, host: str, slug: str):
    parsed = parse_remote_url(url)
    assert parsed is not None and (parsed.host, parsed.slug) == (host, slug)


@pytest.mark.parametrize(
    "url",
    ["file:///tmp/fork.git", "/tmp/fork.git", "../fork.git", "https://github.com/alice", "https://gitlab.com/a/b/c"],
)
def test_parse_remote_url_without_owner(url: str):
    assert parse_remote_url(url) is None


def test_branch_and_upstream(task_repo: TaskRepo):
    root = task_repo.root
    assert gitlib.current_branch(root) == TASK_ID
    upstream = gitlib.upstream_of(root, TASK_ID)
    assert upstream == gitlib.Upstream(
        ref=f"refs/remotes/origin/{TASK_ID}", remote="origin", branch=TASK_ID, short=f"origin/{TASK_ID}"
    )
    assert gitlib.ahead_behind(root, upstream.ref) == (0, 0)
    assert gitlib.upstream_of(root, "main") is None  # pushed without -u
    task_repo.git("checkout", "-q", "--detach")
    assert gitlib.current_branch(root) is None


def test_branch_following_a_local_branch_has_no_upstream(task_repo: TaskRepo):
    task_repo.git("checkout", "-q", "--track", "-b", "follows_main", "main")
    assert gitlib.upstream_of(task_repo.root, "follows_main") is None


def test_uncommitted_files_with_odd_names(task_repo: TaskRepo):
    odd = task_repo.task_dir / 'data "quoted" ü.jsonl'
    odd.write_text("{}\n")
    (task_repo.task_dir / "doc.md").unlink()
    (task_repo.task_dir / "task.py").rename(task_repo.task_dir / "renamed.py")
    task_repo.git("add", "-A", "--", str(task_repo.task_dir / "renamed.py"), str(task_repo.task_dir / "task.py"))
    prefix = f"src/genbench/tasks/{TASK_ID}"
    found = {f.path: f.state for f in gitlib.uncommitted_files(task_repo.root, prefix)}
    assert found == {
        f'{prefix}/data "quoted" ü.jsonl': "untracked",
        f"{prefix}/doc.md": "deleted",
        f"{prefix}/renamed.py": "staged, not committed",
    }


def test_pathspecs_are_literal(task_repo: TaskRepo):
    (task_repo.root / "x").mkdir()
    (task_repo.root / "x" / "a.txt").write_text("a")
    assert gitlib.uncommitted_files(task_repo.root, "*") == []


def test_repo_root_and_errors(task_repo: TaskRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert gitlib.repo_root(task_repo.task_dir).resolve() == task_repo.root.resolve()
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(GitError, match="not inside a git repository"):
        gitlib.repo_root(outside)
    with pytest.raises(GitError, match="failed in"):
        gitlib.run_git(task_repo.root, "rev-parse", "--verify", "no-such-ref")
    assert gitlib.remote_url(task_repo.root, "upstream") is None


def test_missing_git_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GitError, match="git is not installed"):
        gitlib.current_branch(tmp_path)
