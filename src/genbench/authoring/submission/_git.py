"""Small wrappers around the ``git`` command line, each raising :class:`GitError` with git's own message.

Each runs ``git -C <repo>`` with an argument list (never a shell) and ``-z`` output where paths are printed, so any
path comes back unchanged. Nothing here changes the repository: the submission only reads its state.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from genbench.authoring.submission._errors import GitError

_SCP_LIKE = re.compile(r"^(?:[^@/:]+@)?(?P<host>[^/:]+):(?P<path>[^/].*)$")
_URL = re.compile(r"^(?:https?|ssh|git|git\+ssh|ssh\+git)://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d*)?/(?P<path>.+)$")


def run_git(repo: str | Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git -C repo ARGS...`` and return the finished process (text output, surrogate-escaped).

    Pathspecs are literal (``--literal-pathspecs``): a path is never read as a glob. Git never prompts.

    Args:
        repo: Directory to run git in.
        *args: Arguments after ``git``.
        check: Raise :class:`GitError` when git exits with a non-zero status.

    Raises:
        GitError: git is not installed, or it failed and ``check`` is true.
    """
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    command = ("git", "--literal-pathspecs", "-C", str(repo), *args)
    try:
        process = subprocess.run(
            command, capture_output=True, text=True, encoding="utf-8", errors="surrogateescape", env=env
        )
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH): install git to submit tasks.") from None
    if check and process.returncode != 0:
        detail = process.stderr.strip() or f"exit status {process.returncode}"
        raise GitError(f"`git {' '.join(args)}` failed in {repo}: {detail}", command=args, stderr=process.stderr)
    return process


def _nul_fields(output: str) -> list[str]:
    fields = output.split("\0")
    if fields and fields[-1] == "":
        fields.pop()
    return fields


def repo_root(path: str | Path) -> Path:
    """The top-level directory of the git working tree that contains ``path``.

    Raises:
        GitError: ``path`` is not inside a git working tree.
    """
    process = run_git(path, "rev-parse", "--show-toplevel", check=False)
    if process.returncode != 0:
        raise GitError(f"{path} is not inside a git repository.", stderr=process.stderr)
    return Path(process.stdout.rstrip("\n"))


def current_branch(repo: str | Path) -> str | None:
    """The name of the checked-out branch, or ``None`` when HEAD is detached."""
    process = run_git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    if process.returncode != 0:
        return None
    return process.stdout.rstrip("\n")


@dataclass(frozen=True)
class FileStatus:
    """One path that differs from the last commit, as ``git status`` reports it.

    Attributes:
        path: Path relative to the repository root.
        code: The two-letter porcelain code (``"??"`` untracked, ``" M"`` modified, ``"A "`` staged, ...).
    """

    path: str
    code: str

    @property
    def state(self) -> str:
        """The state in words: ``untracked``, ``deleted``, ``staged, not committed`` or ``modified``."""
        if self.code == "??":
            return "untracked"
        if "D" in self.code:
            return "deleted"
        if self.code[1] == " ":
            return "staged, not committed"
        return "modified"


def uncommitted_files(repo: str | Path, path: str = ".") -> list[FileStatus]:
    """Untracked, modified, staged or deleted files under ``path`` (relative to ``repo``); ignored files are not.

    Raises:
        GitError: ``git status`` failed.
    """
    output = run_git(repo, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", path).stdout
    fields = _nul_fields(output)
    files = []
    index = 0
    while index < len(fields):
        entry = fields[index]
        code, file_path = entry[:2], entry[3:]
        files.append(FileStatus(path=file_path, code=code))
        # A rename or copy is followed by a field holding the original path.
        index += 2 if ("R" in code or "C" in code) else 1
    return files


@dataclass(frozen=True)
class Upstream:
    """The remote-tracking branch a local branch is set to follow (``git push -u`` sets it).

    Attributes:
        ref: Full name of the remote-tracking ref (``refs/remotes/origin/my_task``).
        remote: Name of the remote (``origin``).
        branch: Name of the branch on the remote (``my_task``).
        short: Short name (``origin/my_task``).
    """

    ref: str
    remote: str
    branch: str
    short: str


def upstream_of(repo: str | Path, branch: str) -> Upstream | None:
    """The upstream of a local branch, or ``None`` when it has none (or follows a local branch)."""
    fmt = "%(upstream)%00%(upstream:remotename)%00%(upstream:remoteref)%00%(upstream:short)"
    output = run_git(repo, "for-each-ref", f"--format={fmt}", f"refs/heads/{branch}").stdout
    for line in output.splitlines():
        ref, remote, remote_ref, short = (line.split("\0") + ["", "", "", ""])[:4]
        if not ref or remote in ("", "."):
            return None
        return Upstream(ref=ref, remote=remote, branch=remote_ref.removeprefix("refs/heads/"), short=short)
    return None


def ref_exists(repo: str | Path, ref: str) -> bool:
    """Whether ``ref`` names a commit in the repository."""
    if ref.startswith("-"):
        return False
    return run_git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).returncode == 0


def ahead_behind(repo: str | Path, ref: str, head: str = "HEAD") -> tuple[int, int]:
    """How many commits ``head`` has that ``ref`` lacks (ahead), and the reverse (behind).

    Raises:
        GitError: either ref does not exist.
    """
    output = run_git(repo, "rev-list", "--left-right", "--count", f"{ref}...{head}").stdout.split()
    behind, ahead = int(output[0]), int(output[1])
    return ahead, behind


def remote_url(repo: str | Path, remote: str) -> str | None:
    """The configured URL of a remote (as written in the config, ``insteadOf`` rewrites not applied)."""
    process = run_git(repo, "config", "--get", f"remote.{remote}.url", check=False)
    if process.returncode != 0:
        return None
    return process.stdout.strip() or None


@dataclass(frozen=True)
class RemoteRepo:
    """A hosted repository named by a remote URL.

    Attributes:
        host: Host name (``github.com``).
        owner: User or organisation owning the repository.
        name: Repository name, without ``.git``.
    """

    host: str
    owner: str
    name: str

    @property
    def slug(self) -> str:
        """``owner/name``."""
        return f"{self.owner}/{self.name}"


def parse_remote_url(url: str) -> RemoteRepo | None:
    """The host, owner and name of the repository a remote URL points to, or ``None`` for other URLs.

    Understands ``https://host/owner/name(.git)`` (with or without credentials or port), ``ssh://`` and
    ``git://`` URLs, and the scp-like ``git@host:owner/name.git``. Local paths and ``file://`` URLs name no owner.

    >>> parse_remote_url("https://github.com/alice/genbench_cbt.git").slug
    'alice/genbench_cbt'
    >>> parse_remote_url("ssh://git@github.com:22/bob/genbench_cbt").owner
    'bob'
    >>> parse_remote_url("file:///tmp/fork.git") is None
    True

    >>> parse_remote_url("git@github.com:alice/genbench_cbt.git")
    RemoteRepo(host='github.com', owner='alice', name='genbench_cbt')
    """
    url = url.strip()
    match = _URL.match(url)
    if match is None and "://" not in url:
        match = _SCP_LIKE.match(url)
    if match is None:
        return None
    parts = [part for part in match.group("path").split("/") if part]
    if len(parts) != 2:
        return None
    owner, name = parts
    name = name.removesuffix(".git")
    if not owner or not name:
        return None
    return RemoteRepo(host=match.group("host"), owner=owner, name=name)


@dataclass(frozen=True)
class ChangedPath:
    """One path changed between two commits.

    Attributes:
        status: Git's one-letter status: ``A`` added, ``M`` modified, ``D`` deleted, ``T`` type changed.
        path: Path relative to the repository root.
    """

    status: str
    path: str


def merge_base(repo: str | Path, base: str, head: str = "HEAD") -> str:
    """The best common ancestor of ``base`` and ``head``.

    Raises:
        GitError: ``base`` does not exist, or the two histories share no commit (for instance a shallow clone).
    """
    if not ref_exists(repo, base):
        raise GitError(
            f"Unknown base {base!r} in {repo}: fetch it first (e.g. `git fetch origin main`; in GitHub Actions, "
            "check out with `fetch-depth: 0`)."
        )
    process = run_git(repo, "merge-base", base, head, check=False)
    if process.returncode != 0:
        raise GitError(
            f"{base!r} and {head} have no common ancestor in {repo} (a shallow clone? fetch the full history, "
            "e.g. `git fetch --unshallow`, or check out with `fetch-depth: 0`).",
            stderr=process.stderr,
        )
    return process.stdout.strip()


def changed_paths(repo: str | Path, base: str, head: str = "HEAD", path: str = ".") -> list[ChangedPath]:
    """The paths under ``path`` changed on ``head`` since it forked from ``base`` (``git diff base...head``).

    Renames are reported as a deletion plus an addition. Only committed changes count.

    Raises:
        GitError: ``base`` is unknown or shares no history with ``head``.
    """
    ancestor = merge_base(repo, base, head)
    output = run_git(
        repo, "diff", "--name-status", "-z", "--no-renames", "--no-ext-diff", ancestor, head, "--", path
    ).stdout
    fields = _nul_fields(output)
    return [ChangedPath(status=fields[i][:1], path=fields[i + 1]) for i in range(0, len(fields) - 1, 2)]


def tree_entries(repo: str | Path, path: str, rev: str = "HEAD") -> dict[str, str]:
    """The entries directly inside ``path`` at commit ``rev``, each name with its git mode (``040000`` a directory,
    ``120000`` a symbolic link, ``100644`` a file, ``160000`` a submodule); empty if ``path`` is absent."""
    output = run_git(repo, "ls-tree", "-z", rev, "--", path.rstrip("/") + "/").stdout
    entries = {}
    for entry in _nul_fields(output):
        meta, _, name = entry.partition("\t")
        entries[Path(name).name] = meta.split(" ", 1)[0]
    return entries
