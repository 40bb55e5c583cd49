"""Copy a task out of a commit's git tree, blob by blob, with no git attributes applied: what the review tests.

Unlike ``git archive``, no ``.gitattributes`` of the task can leave files out or rewrite them; a submodule or a path
that could leave the destination is an error. Run as ``python -m genbench.authoring.submission._staging --repo
submission --rev HEAD --to review-tasks ID...``. See docs/review.md#the-review-workflow.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from genbench.authoring.submission._changes import DEFAULT_TASKS_DIR
from genbench.authoring.submission._errors import GitError, SubmissionError
from genbench.authoring.submission._git import run_git

_REGULAR, _EXECUTABLE, _SYMLINK, _SUBMODULE = "100644", "100755", "120000", "160000"


@dataclass(frozen=True)
class _Entry:
    mode: str
    kind: str
    object_id: str
    path: str


def _tree(repo: Path, rev: str, prefix: str) -> list[_Entry]:
    output = run_git(repo, "ls-tree", "-r", "-z", "--full-tree", rev, "--", prefix + "/").stdout
    entries = []
    for line in filter(None, output.split("\0")):
        meta, _, path = line.partition("\t")
        mode, kind, object_id = meta.split(" ")
        entries.append(_Entry(mode, kind, object_id, path))
    return entries


def _relative_parts(entry: _Entry, prefix: str, task_id: str) -> list[str]:
    parts = entry.path[len(prefix) + 1 :].split("/")
    if not entry.path.startswith(prefix + "/") or any(part in ("", ".", "..", ".git") for part in parts):
        raise SubmissionError(f"{task_id}: the tree holds a path that a task may not have: {entry.path!r}.")
    return parts


def stage_task(repo: str | Path, rev: str, task_id: str, destination: str | Path, tasks_dir: str = DEFAULT_TASKS_DIR):
    """Write task ``task_id`` of commit ``rev`` into ``destination/task_id``, every blob as git stores it.

    Args:
        repo: The git repository (a working tree or its ``.git``).
        rev: The commit (``HEAD``, a branch, a SHA).
        task_id: The task's directory name under ``tasks_dir``.
        destination: The folder to write the task into (a task root); ``destination/task_id`` must not exist.
        tasks_dir: The tasks' directory, relative to the repository root.

    Returns:
        The staged task directory.

    Raises:
        SubmissionError: No such task at ``rev``, a submodule inside it, a path that is not a plain relative path,
            or ``destination/task_id`` exists already.
        GitError: git failed (unknown ``rev``, not a repository).
    """
    if "/" in task_id or task_id in ("", ".", ".."):
        raise SubmissionError(f"{task_id!r} is not a task id.")
    repo = Path(repo)
    prefix = f"{tasks_dir.strip('/')}/{task_id}"
    entries = _tree(repo, rev, prefix)
    if not entries:
        raise SubmissionError(f"{rev} has no task {task_id} (nothing under {prefix}/).")
    for entry in entries:
        _relative_parts(entry, prefix, task_id)
        if entry.mode == _SUBMODULE or entry.kind != "blob":
            raise SubmissionError(
                f"{task_id}: {entry.path} is a submodule (a link to another repository); a task is plain files. "
                "Commit the files themselves."
            )
    target = Path(destination) / task_id
    target.mkdir(parents=True, exist_ok=False)
    with _Blobs(repo) as blobs:
        for entry in entries:
            path = target.joinpath(*_relative_parts(entry, prefix, task_id))
            path.parent.mkdir(parents=True, exist_ok=True)
            content = blobs.read(entry.object_id)
            if entry.mode == _SYMLINK:
                os.symlink(os.fsdecode(content), path)
            else:
                _write_new(path, content, executable=entry.mode == _EXECUTABLE)
    return target


def _write_new(path: Path, content: bytes, *, executable: bool) -> None:
    # O_EXCL and O_NOFOLLOW: a name written twice, or through a link, is an error rather than a write elsewhere.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags, 0o755 if executable else 0o644)
    with os.fdopen(descriptor, "wb") as file:
        file.write(content)


class _Blobs:
    """``git cat-file --batch``: one object at a time, its raw content (no attribute, filter or conversion)."""

    def __init__(self, repo: Path):
        self.repo = repo

    def __enter__(self) -> _Blobs:
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
        try:
            self.process = subprocess.Popen(
                ["git", "-C", str(self.repo), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                env=env,
            )  # fmt: skip
        except FileNotFoundError:
            raise GitError("git is not installed (or not on PATH).") from None
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()

    def read(self, object_id: str) -> bytes:
        stdin: IO[bytes] | None = self.process.stdin
        stdout: IO[bytes] | None = self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(object_id.encode("ascii") + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            raise GitError(
                f"git cat-file could not read blob {object_id}: {b' '.join(header).decode(errors='replace')}"
            )
        size = int(header[2])
        content = stdout.read(size)
        stdout.read(1)  # the newline after each object
        if len(content) != size:
            raise GitError(f"git cat-file ended while reading blob {object_id}.")
        return content


def main(argv: Sequence[str] | None = None) -> int:
    """Stage each task id; exit status 1 with one ``Error:`` line on stderr when one cannot be staged."""
    parser = argparse.ArgumentParser(prog="python -m genbench.authoring.submission._staging", description=__doc__)
    parser.add_argument("--repo", type=Path, default=Path("."), help="the git repository (default: .)")
    parser.add_argument("--rev", default="HEAD", help="the commit to copy the tasks from (default: HEAD)")
    parser.add_argument("--to", type=Path, required=True, help="the folder to write the tasks into (a task root)")
    parser.add_argument("--tasks-dir", default=DEFAULT_TASKS_DIR, help=f"default: {DEFAULT_TASKS_DIR}")
    parser.add_argument("task_ids", nargs="*", help="task ids (default: one per line on stdin)")
    args = parser.parse_args(argv)
    task_ids = args.task_ids or [line.strip() for line in sys.stdin if line.strip()]
    for task_id in task_ids:
        try:
            stage_task(args.repo, args.rev, task_id, args.to, args.tasks_dir)
        except (SubmissionError, OSError) as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
