"""Issue 31: the review stages a task blob by blob, with no git attributes applied.

``git archive`` (how the review workflow staged a task) obeys a ``.gitattributes`` inside the task: ``export-ignore``
left ``helper.py`` out of what was tested while the pull request still merged it, ``export-subst`` rewrote content.
Staging writes every blob as git stores it; and a ``.gitattributes`` in a task fails its ``task_files`` check."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from genbench.authoring.submission._errors import GitError, SubmissionError
from genbench.authoring.submission._staging import main, stage_task
from genbench.review._base import TaskCheckFailure
from genbench.review._trust import check_task_files

from .submission_helpers import TaskRepo

ATTRIBUTES = "helper.py export-ignore\nstamp.txt export-subst\nident.txt ident\ncrlf.txt text eol=crlf\n"
HELPER = "def shape(example):\n    return example  # code the reviewers never tested\n"


@pytest.fixture
def attacked(task_repo: TaskRepo) -> TaskRepo:
    task_dir = task_repo.task_dir
    (task_dir / ".gitattributes").write_text(ATTRIBUTES, encoding="utf-8")
    (task_dir / "helper.py").write_text(HELPER, encoding="utf-8")
    (task_dir / "stamp.txt").write_text("built from $Format:%H$\n", encoding="utf-8")
    (task_dir / "ident.txt").write_text("$Id$\n", encoding="utf-8")
    (task_dir / "crlf.txt").write_text("one\ntwo\n", encoding="utf-8")
    (task_dir / "run.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (task_dir / "run.sh").chmod(0o755)
    (task_dir / "link").symlink_to("/etc/passwd")
    task_repo.commit_all("task with attributes")
    return task_repo


def _blobs(repo: TaskRepo) -> dict[str, bytes]:
    """Every file of the task as git stores it, by path inside the task."""
    prefix = f"src/genbench/tasks/{repo.task_id}/"
    names = repo.git("ls-tree", "-r", "--name-only", "HEAD", "--", prefix).split()
    return {
        name[len(prefix) :]: subprocess.run(
            ["git", "-C", str(repo.root), "cat-file", "blob", f"HEAD:{name}"], capture_output=True, check=True
        ).stdout
        for name in names
    }


def test_git_archive_is_what_hid_and_rewrote_files(attacked):
    # The attack, as the workflow's former `git archive` staging saw it.
    task_path = f"src/genbench/tasks/{attacked.task_id}"
    tar = subprocess.run(
        ["git", "-C", str(attacked.root), "archive", "--format=tar", "HEAD", "--", task_path],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        members = {Path(member.name).name: member for member in archive.getmembers()}
        stamp = archive.extractfile(members["stamp.txt"]).read()
    assert "helper.py" not in members
    assert b"$Format" not in stamp


def test_staging_writes_every_blob_byte_for_byte(attacked, tmp_path):
    staged = stage_task(attacked.root, "HEAD", attacked.task_id, tmp_path / "review")
    assert staged == tmp_path / "review" / attacked.task_id
    files = {
        path.relative_to(staged).as_posix(): path for path in staged.rglob("*") if path.is_file() or path.is_symlink()
    }
    expected = _blobs(attacked)
    assert sorted(files) == sorted(expected)
    for name, path in files.items():
        if path.is_symlink():
            assert os.readlink(path).encode() == expected[name] == b"/etc/passwd"
        else:
            assert path.read_bytes() == expected[name], name
    assert (staged / "helper.py").read_text(encoding="utf-8") == HELPER
    assert (staged / "stamp.txt").read_bytes() == b"built from $Format:%H$\n"
    assert (staged / "ident.txt").read_bytes() == b"$Id$\n"
    assert (staged / "crlf.txt").read_bytes() == b"one\ntwo\n"
    assert os.access(staged / "run.sh", os.X_OK) and not os.access(staged / "helper.py", os.X_OK)


def test_a_task_with_gitattributes_fails_task_files(attacked, tmp_path):
    staged = stage_task(attacked.root, "HEAD", attacked.task_id, tmp_path / "review")
    (staged / "link").unlink()  # only the attributes left to object to
    with pytest.raises(TaskCheckFailure) as info:
        check_task_files(staged)
    assert ".gitattributes sets git attributes" in str(info.value)


def test_a_submodule_in_a_task_is_refused(task_repo, tmp_path):
    commit = task_repo.git("rev-parse", "HEAD").strip()
    path = f"src/genbench/tasks/{task_repo.task_id}/vendored"
    task_repo.git("update-index", "--add", "--cacheinfo", f"160000,{commit},{path}")
    task_repo.git("commit", "-q", "-m", "submodule")
    with pytest.raises(SubmissionError, match=r"vendored is a submodule .* a task is plain files"):
        stage_task(task_repo.root, "HEAD", task_repo.task_id, tmp_path / "review")


def test_unknown_task_and_revision_are_errors(task_repo, tmp_path):
    with pytest.raises(SubmissionError, match=r"^HEAD has no task no_such_task \(nothing under src/genbench/tasks/"):
        stage_task(task_repo.root, "HEAD", "no_such_task", tmp_path / "review")
    with pytest.raises(GitError):
        stage_task(task_repo.root, "no-such-rev", task_repo.task_id, tmp_path / "review")
    with pytest.raises(SubmissionError, match="is not a task id"):
        stage_task(task_repo.root, "HEAD", "../x", tmp_path / "review")


def test_the_command_reads_ids_from_stdin(attacked, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{attacked.task_id}\n\n"))
    assert main(["--repo", str(attacked.root), "--to", str(tmp_path / "review")]) == 0
    assert (tmp_path / "review" / attacked.task_id / "helper.py").is_file()
    # A second staging into the same folder refuses rather than mixing two copies.
    assert main(["--repo", str(attacked.root), "--to", str(tmp_path / "review"), attacked.task_id]) == 1
