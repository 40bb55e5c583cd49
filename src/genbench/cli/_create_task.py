"""``genbench-cli create-task``: create a new task (or a task with subtasks) from the packaged templates."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click

import genbench.authoring._scaffold as scaffold
from genbench._registry.roots import PACKAGE_TASKS_DIR, is_registry_copy, task_roots
from genbench.authoring._scaffold import task_id_problem
from genbench.cli._output import display_path, note
from genbench.cli._taxonomy_options import taxonomy_from_options, taxonomy_options
from genbench.cli.params import SharedOption, kebab_case_option

AUTHORS_PROMPT = "Task authors (e.g John Doe). Split with ','"


def _stdin_is_interactive() -> bool:
    """Whether stdin is a terminal, i.e. whether someone can answer the authors prompt."""
    return sys.stdin is not None and sys.stdin.isatty()


def _check_id(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    problem = None if value is None else task_id_problem(value)
    if problem is not None:
        raise click.BadParameter(f"{value!r}: {problem}.")
    return value


def _check_subtask_ids(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    for subtask_id in value:
        _check_id(ctx, param, subtask_id)
    ids = tuple(value)
    duplicates = sorted({sid for sid in ids if ids.count(sid) > 1})
    if duplicates:
        raise click.BadParameter(f"duplicate subtask id{'s' if len(duplicates) > 1 else ''}: {', '.join(duplicates)}.")
    return ids


@click.command("create-task")
@click.option("-n", "--name", required=True, help="Name of the task, e.g. 'The addition task'.")
@click.option(
    "--task-id",
    "task_id",
    cls=SharedOption,
    deprecated=("-i", "--id"),
    metavar="ID",
    callback=_check_id,
    help="Unique id of the task, e.g. 'addition': lower-case letters, digits and '_'. Default: derived from the "
    "name ('The addition task' -> 'the_addition_task').",
)
@kebab_case_option(
    "-s",
    "--subtask-ids",
    "subtask_ids",
    metavar="SUBTASK_ID",
    multiple=True,
    callback=_check_subtask_ids,
    help="Id of a subtask (repeatable, in order): '-s subtask_1 -s subtask_2' creates a task with subtasks.",
)
@click.option(
    "-a",
    "--authors",
    metavar="'A, B'",
    help="Task authors, separated by ','. Default: asked for when stdin is a terminal, else 'Anonymous' "
    "(edit `authors` in config.jsonnet later).",
)
@click.option(
    "--tasks-dir",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Task root to create the task in. Default: src/genbench/tasks/ of the genbench checkout you are in, else "
    "the first folder of GENBENCH_TASKS_PATH, else the current directory (never an installed package). Another root "
    "must be in GENBENCH_TASKS_PATH for genbench to find the task.",
)
@taxonomy_options
def create_task(
    name: str,
    task_id: str | None,
    subtask_ids: tuple[str, ...],
    authors: str | None,
    tasks_dir: Path | None,
    **taxonomy: Any,
) -> None:
    """Create a new task with the given name, id and optional subtask ids.

    The task works as created, on a small example data set, and passes `genbench-cli test-task`; replace its
    data, config.jsonnet and doc.md with your own.

    \b
    Examples:
      genbench-cli create-task --name "The addition task" --task-id addition -a "Jane Doe, John Smith"
      genbench-cli create-task -n "The addition task" --task-id addition -s subtask_1 -s subtask_2
      genbench-cli create-task -n "Addition" --generalisation-type compositional --shift-locus train-test
    """
    if not name.strip():
        raise click.BadParameter("the task name is empty.", param_hint="'-n' / '--name'")
    if task_id is None:
        task_id = scaffold.task_id_from_name(name)
        if not task_id:
            raise click.BadParameter(scaffold.why_no_id_from_name(name), param_hint="'-n' / '--name'")
    where = "the folder given with --tasks-dir"
    if tasks_dir is None:
        tasks_dir, where = scaffold.default_tasks_dir()
    # Refuse an existing id before asking anything (the group prints the error; a traceback only with --debug).
    scaffold.check_new_task(task_id, tasks_dir)

    if authors is None:
        if _stdin_is_interactive():
            authors = click.prompt(AUTHORS_PROMPT)
        else:
            click.echo(
                f"No --authors given: using {scaffold.DEFAULT_AUTHOR!r} (edit `authors` in config.jsonnet).", err=True
            )
            authors = scaffold.DEFAULT_AUTHOR
    author_list = scaffold.parse_authors(authors) or [scaffold.DEFAULT_AUTHOR]

    note("Creating task...")
    note(f"Task name: {name.strip()}")
    note(f"Task id: {task_id}")
    note(f"Task root: {display_path(tasks_dir)} ({where})")
    if subtask_ids:
        note(f"Task class name: {scaffold.class_name_from_id(task_id, suffix='TaskDict')} (optional, in __init__.py)")
        for subtask_id in subtask_ids:
            full_id = f"{task_id}:{subtask_id}"
            note(f"Subtask id: {full_id} (class {scaffold.class_name_from_id(f'{task_id}_{subtask_id}')})")
    else:
        note(f"Task class name: {scaffold.class_name_from_id(task_id)}")
    path = scaffold.create_task(
        name,
        task_id=task_id,
        subtask_ids=subtask_ids,
        authors=author_list,
        tasks_dir=tasks_dir,
        taxonomy=taxonomy_from_options(taxonomy),
    )

    note("Task created successfully.")
    click.echo(f"View the task at {display_path(path)}")
    # Until the author exports it, the next steps' commands carry the task root themselves, so that each one works
    # as printed.
    cli_command = "genbench-cli"
    if path.parent not in task_roots():
        if is_registry_copy(path.parent):
            # A second clone while genbench runs from another checkout: this clone's registry then replaces the
            # installed one (its shipped tasks are not defined twice).
            click.echo(
                f"Note: genbench runs from another copy ({display_path(PACKAGE_TASKS_DIR.parent)}): add this "
                f"checkout's registry to GENBENCH_TASKS_PATH, which then replaces the installed one "
                f"(export GENBENCH_TASKS_PATH={shlex.quote(str(path.parent))}), or install genbench from this "
                "checkout (pip install -e .)."
            )
        else:
            click.echo(
                f"Note: {path.parent} is not a task root yet: add it to GENBENCH_TASKS_PATH so that genbench finds "
                f"the task (export GENBENCH_TASKS_PATH={shlex.quote(str(path.parent))})."
            )
        cli_command = f"GENBENCH_TASKS_PATH={shlex.quote(str(path.parent))} genbench-cli"
    of_each = " of each subtask" if subtask_ids else ""
    note("Next steps:")
    note(f"  1. Replace the example data in data/ and edit config.jsonnet{of_each} (data, task type, metrics).")
    note(
        f"  2. Describe the task in doc.md{' (and each subtask)' if subtask_ids else ''}, replacing the template text."
    )
    note(f"  3. Check the task:  {cli_command} test-task -t {task_id}")
    note(f"  4. Submit it:       {cli_command} submit-task -t {task_id}")
    note("Instructions to fill and submit the task: docs/creating_a_task.md")
