"""``genbench-cli changed-tasks`` and ``genbench.authoring.submission.changed_tasks`` on a real diff."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.authoring.submission import ChangedTasks, GitError, SubmissionError, changed_tasks
from genbench.cli import cli

from .submission_helpers import git, write_task

TASKS = Path("src/genbench/tasks")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """``main`` with tasks ``kept``, ``edited``, ``with_subtasks`` (two subtasks) and ``removed``; then a branch
    ``review`` that adds ``brand_new``, edits ``edited`` and a subtask file, deletes ``removed``, edits files
    outside the tasks and directly in ``tasks/``, and leaves ``kept`` alone."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    tasks = root / TASKS
    for name in ("kept", "edited", "removed"):
        write_task(tasks / name, name=name)
    for sub in ("sub_a", "sub_b"):
        write_task(tasks / "with_subtasks" / sub, name=sub)
    (tasks / "with_subtasks" / "config.jsonnet").write_text("{ name: 'dict' }\n")
    (tasks / "__init__.py").write_text("")
    (root / "README.md").write_text("readme\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "review")
    write_task(tasks / "brand_new", name="brand new")
    (tasks / "edited" / "doc.md").write_text("# edited, better\n")
    (tasks / "with_subtasks" / "sub_b" / "data" / "test.jsonl").write_text('{"input": "a", "target": "b"}\n')
    shutil.rmtree(tasks / "removed")
    (tasks / "__init__.py").write_text("# not a task\n")
    (root / "README.md").write_text("changed\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "changes")
    return root


def test_changed_deleted_and_ignored_paths(repo: Path):
    assert changed_tasks("main", repo=repo) == ChangedTasks(
        changed=["brand_new", "edited", "with_subtasks"],
        deleted=["removed"],
        invalid=[],
        outside_tasks=["src/genbench/tasks/__init__.py"],  # README.md is outside the tasks directory: not listed
    )


def test_only_committed_changes_count_and_the_merge_base_is_used(repo: Path):
    (repo / TASKS / "kept" / "doc.md").write_text("# uncommitted edit\n")
    write_task(repo / TASKS / "untracked_task")
    # main moves on after the branch forked: its new task is not a change of the branch.
    git(repo, "stash", "-q", "-u")
    git(repo, "checkout", "-q", "main")
    write_task(repo / TASKS / "on_main_only")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "main moves on")
    git(repo, "checkout", "-q", "review")
    git(repo, "stash", "pop", "-q")
    assert changed_tasks("main", repo=repo / TASKS).changed == ["brand_new", "edited", "with_subtasks"]


def test_renamed_task_is_deleted_plus_added(repo: Path):
    git(repo, "mv", str(TASKS / "kept"), str(TASKS / "kept_renamed"))
    git(repo, "commit", "-q", "-m", "rename")
    result = changed_tasks("main", repo=repo)
    assert "kept_renamed" in result.changed and result.deleted == ["kept", "removed"]


def test_invalid_task_names_are_reported_apart(repo: Path):
    write_task(repo / TASKS / "Bad Name\nnewline")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "bad")
    result = changed_tasks("main", repo=repo)
    assert result.invalid == ["Bad Name\nnewline"] and "Bad Name\nnewline" not in result.changed

    cli_result = CliRunner().invoke(cli, ["changed-tasks", "--base", "main", "--repo", str(repo)])
    assert cli_result.exit_code == 1
    assert "Error: Changed directory in src/genbench/tasks with an invalid task id: 'Bad Name\\nnewline'" in (
        cli_result.output
    )


def test_no_changes(repo: Path):
    assert changed_tasks("review", repo=repo) == ChangedTasks()
    result = CliRunner().invoke(cli, ["changed-tasks", "--base", "HEAD", "--repo", str(repo)])
    assert result.exit_code == 0 and result.stdout == ""


def test_unknown_base_and_unrelated_histories(repo: Path, tmp_path: Path):
    with pytest.raises(GitError, match="Unknown base 'origin/main'.*fetch-depth: 0"):
        changed_tasks("origin/main", repo=repo)
    with pytest.raises(SubmissionError, match="cannot start with '-'"):
        changed_tasks("--output=/tmp/x", repo=repo)
    git(repo, "checkout", "-q", "--orphan", "unrelated")
    git(repo, "commit", "-q", "-m", "orphan")
    with pytest.raises(GitError, match="no common ancestor"):
        changed_tasks("main", repo=repo)


def test_custom_tasks_dir(repo: Path):
    other = repo / "more_tasks"
    write_task(other / "elsewhere")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "other root")
    assert changed_tasks("main", repo=repo, tasks_dir="more_tasks/").changed == ["elsewhere"]


def test_cli_lines_and_json(repo: Path):
    runner = CliRunner()
    result = runner.invoke(cli, ["changed-tasks", "--base", "main", "--repo", str(repo)])
    assert result.exit_code == 1, result.output  # the change of tasks/__init__.py
    assert result.stdout.splitlines() == ["brand_new", "edited", "with_subtasks"]
    assert "Deleted tasks (nothing to test): removed" in result.stderr

    result = runner.invoke(cli, ["changed-tasks", "--base", "main", "--repo", str(repo), "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "base": "main",
        "changed": ["brand_new", "edited", "with_subtasks"],
        "deleted": ["removed"],
        "invalid": [],
        "not_directories": [],
        "outside_tasks": ["src/genbench/tasks/__init__.py"],
    }


def test_cli_errors_are_one_line(repo: Path):
    result = CliRunner().invoke(cli, ["changed-tasks", "--base", "nope", "--repo", str(repo)])
    assert result.exit_code == 1 and result.output.startswith("Error: Unknown base 'nope'")
    assert "Traceback" not in result.output


def test_changed_tasks_help():
    result = CliRunner().invoke(cli, ["changed-tasks", "--help"])
    assert result.exit_code == 0
    assert "--base" in result.output and "--json" in result.output and "--repo" in result.output


def test_a_symlinked_task_is_reported_and_fails(repo: Path):
    """The attack of issue 13: a task entry that is a link to a directory outside the tasks."""
    hidden = repo / "docs" / "hidden_task"
    write_task(hidden, name="hidden")
    (repo / TASKS / "hidden_task").symlink_to("../../../docs/hidden_task")
    assert (repo / TASKS / "hidden_task" / "config.jsonnet").is_file()  # the registry would find it
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hidden")
    result = changed_tasks("main", repo=repo)
    assert "hidden_task" in result.changed and result.not_directories == ["hidden_task"]

    cli_result = CliRunner().invoke(cli, ["changed-tasks", "--base", "main", "--repo", str(repo)])
    assert cli_result.exit_code == 1
    assert "hidden_task" in cli_result.stdout.splitlines()
    assert "not a plain directory (a symbolic link or a submodule): 'hidden_task'" in cli_result.stderr

    # Turning the link back into a directory is a change of that task; deleting the link is a deletion.
    git(repo, "rm", "-q", str(TASKS / "hidden_task"))
    git(repo, "commit", "-q", "-m", "remove the link")
    git(repo, "checkout", "-q", "-b", "later")
    assert changed_tasks("review", repo=repo) == ChangedTasks()
    assert changed_tasks("HEAD~2", repo=repo).deleted == []  # added then removed: no change since HEAD~2
    assert "hidden_task" in changed_tasks("HEAD~1", repo=repo).deleted


def test_symlinks_inside_a_task_and_renames_count_for_the_task(repo: Path):
    (repo / TASKS / "kept" / "data.jsonl").symlink_to("/etc/passwd")
    git(repo, "mv", str(TASKS / "edited"), str(TASKS / "edited_renamed"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "link inside, rename")
    result = changed_tasks("main", repo=repo)
    assert result.changed == ["brand_new", "edited_renamed", "kept", "with_subtasks"]
    assert result.deleted == ["edited", "removed"] and result.not_directories == []


def test_a_change_outside_every_task_directory_fails(repo: Path):
    """The gate of issue 19: tasks/__init__.py runs on every load_task, a helper module or a _private folder is
    imported by a task; no task's checks test them, so changed-tasks fails on them, naming each path."""
    git(repo, "checkout", "-q", "-b", "sneaky", "main")
    (repo / TASKS / "__init__.py").write_text("import os\n")
    (repo / TASKS / "_helpers").mkdir()
    (repo / TASKS / "_helpers" / "hook.py").write_text("x = 1\n")
    (repo / TASKS / "util.py").write_text("y = 2\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "code outside the tasks")
    outside = ["src/genbench/tasks/__init__.py", "src/genbench/tasks/_helpers/hook.py", "src/genbench/tasks/util.py"]
    assert changed_tasks("main", repo=repo) == ChangedTasks(outside_tasks=outside)

    result = CliRunner().invoke(cli, ["changed-tasks", "--base", "main", "--repo", str(repo)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(
        "Error: Changed paths in src/genbench/tasks outside any task directory: 'src/genbench/tasks/__init__.py', "
        "'src/genbench/tasks/_helpers/hook.py', 'src/genbench/tasks/util.py'."
    )
    # A path is the pull request's text: printed inert, no workflow command or escape sequence takes effect.
    (repo / TASKS / "##[error]forged\x1b[2J.py").write_text("")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "odd name")
    result = CliRunner().invoke(cli, ["changed-tasks", "--base", "main", "--repo", str(repo)])
    assert "'src/genbench/tasks/##![error]forged\\x1b[2J.py'" in result.stderr
    # Deleting such a file is a change too.
    git(repo, "rm", "-q", str(TASKS / "__init__.py"))
    git(repo, "commit", "-q", "-m", "remove the package marker")
    assert "src/genbench/tasks/__init__.py" in changed_tasks("main", repo=repo).outside_tasks
