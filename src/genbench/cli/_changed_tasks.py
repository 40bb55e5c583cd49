"""``genbench-cli changed-tasks``: the task ids a branch changes since it forked from a base ref."""

from __future__ import annotations

import json
from pathlib import Path

import click

from genbench.authoring.submission._changes import DEFAULT_TASKS_DIR
from genbench.authoring.submission._changes import changed_tasks as find_changed_tasks
from genbench.cli._output import note
from genbench.cli.params import json_option
from genbench.review._inert_text import inert

# At most this many paths outside the tasks are named in the error (the count of the others is given).
_MAX_LISTED = 10


@click.command("changed-tasks")
@click.option("--base", required=True, metavar="REF", help="The ref the branch merges into, e.g. origin/main.")
@json_option(help='Print {"base", "changed", "deleted", "invalid", "not_directories", "outside_tasks"} as JSON.')
@click.option(
    "--repo",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="A directory inside the git repository.",
)
@click.option(
    "--tasks-dir",
    default=DEFAULT_TASKS_DIR,
    show_default=True,
    help="Directory of the tasks, relative to the repository root.",
)
def changed_tasks(base: str, as_json: bool, repo: Path, tasks_dir: str) -> None:
    """Print the ids of the tasks changed by the commits of HEAD since it forked from REF, one per line.

    Compares committed files only (git diff REF...HEAD): uncommitted changes do not count. A subtask's files
    count for their parent task; a renamed task is a deleted one plus a changed one. Deleted tasks are not printed
    (they are named on stderr, or listed under "deleted" with --json). A changed entry whose name is not a valid
    task id, and a task entry that is not a plain directory (a symbolic link such as tasks/x -> ../../elsewhere,
    or a submodule), are errors (after the ids are printed), so a review fails on them; so is any other change under
    the tasks directory that lies in no task (its __init__.py, a helper module, a _private folder), which no task's
    checks would test.

    Example: genbench-cli changed-tasks --base origin/main
    """
    result = find_changed_tasks(base, repo=repo, tasks_dir=tasks_dir)
    if as_json:
        click.echo(json.dumps({"base": base, **result.to_dict()}, indent=2))
    else:
        for task_id in result.changed:
            click.echo(task_id)
        if result.deleted:
            note(f"Deleted tasks (nothing to test): {', '.join(result.deleted)}", err=True)
    problems = []
    if result.invalid:
        names = ", ".join(inert(repr(name)) for name in result.invalid)
        problems.append(
            f"Changed director{'y' if len(result.invalid) == 1 else 'ies'} in {tasks_dir} with an invalid task id: "
            f"{names} (use lower-case letters, digits and '_')."
        )
    if result.not_directories:
        names = ", ".join(inert(repr(name)) for name in result.not_directories)
        problems.append(
            f"Task entr{'y' if len(result.not_directories) == 1 else 'ies'} in {tasks_dir} that "
            f"{'is' if len(result.not_directories) == 1 else 'are'} not a plain directory (a symbolic link or a "
            f"submodule): {names}. A task must be a directory of its own files."
        )
    if result.outside_tasks:
        shown = result.outside_tasks[:_MAX_LISTED]
        more = len(result.outside_tasks) - len(shown)
        names = ", ".join(inert(repr(path)) for path in shown) + (f" and {more} more" if more else "")
        problems.append(
            f"Changed path{'' if len(result.outside_tasks) == 1 else 's'} in {tasks_dir} outside any task directory: "
            f"{names}. No task's checks test such code (the package's __init__.py runs on every load_task): a task "
            f"submission changes only files inside {tasks_dir}/<task_id>/."
        )
    if problems:
        raise click.ClickException(" ".join(problems))
