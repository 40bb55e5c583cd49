"""``genbench-cli list-tasks``: the tasks of the registry, read from their configs alone.

Listing imports no ``task.py`` and no ``datasets``: split names come from the config, not from the data.
"""

from __future__ import annotations

from typing import Any

import click

from genbench._core.errors import warning_text
from genbench._registry.listing import declared_splits, task_records
from genbench.cli._output import console, dumps
from genbench.cli._warnings_output import print_warning_groups
from genbench.cli.params import json_option

__all__ = ["declared_splits", "list_tasks", "task_listing"]

SPLIT_FILE = "split file"


def task_listing() -> list[dict[str, Any]]:
    """One JSON-ready record per registry task, sorted by id: what ``list-tasks --json`` prints.

    See :func:`genbench._registry.listing.task_records` for the fields; a broken task has its ``error`` set.

    >>> [record["type"] for record in task_listing() if record["id"] == "negation_consistency"]
    ['task_dict']
    """
    return task_records()


def _type_label(record: dict[str, Any]) -> str:
    if record["error"] is not None:
        return "BROKEN"
    if record["type"] != "task_dict":
        return str(record["type"])
    count = len(record["subtasks"])
    return f"TaskDict ({count} subtask{'s' if count != 1 else ''})"


def _splits_label(record: dict[str, Any]) -> str:
    if record["error"] is not None:
        return str(record["error"])
    parts = list(record["splits"] or [])
    if record["split_file"] is not None:
        parts.append(f"{SPLIT_FILE} ({record['split_file']})")
    return ", ".join(parts)


@click.command("list-tasks")
@json_option(help="Print a JSON list of task records instead of a table.")
@click.option("--strict", is_flag=True, help="Exit with status 1 when a task is broken (it is listed either way).")
def list_tasks(as_json: bool, strict: bool) -> None:
    """List the tasks of the registry: id, name, type and declared splits.

    Reads the task configs only (no task code, no data), and keeps what it read in a cache checked against each
    file's size and modification time, so it is fast. Tasks come from the package's tasks/ directory and every
    root in GENBENCH_TASKS_PATH. A broken task is listed with its error (JSON: the "error" field) next to the
    others; the exit status is 0 unless --strict is given. Config warnings follow the table on stderr, grouped per
    task (JSON: the "warnings" field, each warning an object with file, line, field, message and fix).

    \b
    Examples:
      genbench-cli list-tasks
      genbench-cli list-tasks --json
      genbench-cli list-tasks --strict
    """
    records = task_listing()
    broken = [record["id"] for record in records if record["error"] is not None]
    if as_json:  # each record's "warnings" carries its config warnings as data: {file, line, field, message, fix}
        click.echo(dumps(records), nl=False)
    else:
        _print_table(records)
        print_warning_groups({record["id"]: [warning_text(w) for w in record["warnings"]] for record in records})
    if broken:
        click.echo(f"{len(broken)} of {len(records)} tasks are broken: {', '.join(broken)}.", err=True)
        if strict:
            raise click.exceptions.Exit(1)


def _print_table(records: list[dict[str, Any]]) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"genbench tasks ({len(records)})")
    table.add_column("ID", no_wrap=True)
    table.add_column("Name")
    table.add_column("Type", no_wrap=True)
    table.add_column("Splits")
    for record in records:
        table.add_row(escape(record["id"]), escape(record["name"]), _type_label(record), escape(_splits_label(record)))
    console().print(table)
