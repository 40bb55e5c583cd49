"""``genbench-cli list-tasks``: the tasks of the registry, read from their configs alone.

Listing imports no ``task.py`` and no ``datasets``: split names come from the config, not from the data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import click

if TYPE_CHECKING:
    from genbench.config.schema import TaskConfig

SPLIT_FILE = "split file"


def declared_splits(config: TaskConfig) -> list[str] | None:
    """The splits a task config declares, in train/validation/test order; None when a split file decides them.

    A ``manual`` source declares the split files it lists; an ``hf`` source declares ``test`` plus ``train`` and
    ``validation`` as ``has_train_set`` and ``has_validation_set`` say.

    >>> from genbench import load_config
    >>> declared_splits(load_config("arithmetic_length"))
    ['train', 'validation', 'test']
    """
    if config.split_file is not None:
        return None
    if config.data_source.type == "manual":
        return list(config.data_source.split_uris())
    flags = {"train": config.has_train_set, "validation": config.has_validation_set, "test": True}
    return [split for split, declared in flags.items() if declared]


def task_listing() -> list[dict[str, Any]]:
    """One JSON-ready record per registry task, sorted by id: what ``list-tasks --json`` prints.

    Each record has ``id``, ``name``, ``description``, ``type`` (the task type, or ``"task_dict"``),
    ``subtasks`` (ids, in order), ``splits`` (declared split names, or None with a ``split_file``), ``split_file``,
    ``keywords`` and ``path``. A TaskDict's ``splits`` are the union of its subtasks' declared splits.

    Raises:
        ConfigError: a config is invalid (a broken task fails loudly rather than vanishing from the list).

    >>> [record["type"] for record in task_listing() if record["id"] == "negation_consistency"]
    ['task_dict']
    """
    from genbench.loading import list_tasks, load_config

    records = []
    for summary in list_tasks():
        # A task's config, or each subtask's: TaskConfigs either way (a TaskDict's own config declares no data).
        ids = [f"{summary.id}:{sid}" for sid in summary.subtasks] if summary.task_type is None else [summary.id]
        configs = [cast("TaskConfig", load_config(task_id)) for task_id in ids]
        split_files = sorted({c.split_file for c in configs if c.split_file is not None})
        splits: list[str] = []
        for config in configs:
            for split in declared_splits(config) or []:
                if split not in splits:
                    splits.append(split)
        records.append(
            {
                "id": summary.id,
                "name": summary.name,
                "description": summary.description,
                "type": summary.task_type or "task_dict",
                "subtasks": list(summary.subtasks),
                "splits": None if split_files and not splits else _ordered(splits),
                "split_file": split_files[0] if split_files else None,
                "keywords": list(summary.keywords),
                "path": str(summary.path),
            }
        )
    return records


def _ordered(splits: list[str]) -> list[str]:
    order = {"train": 0, "validation": 1, "test": 2}
    return sorted(splits, key=lambda split: order.get(split, len(order)))


def _type_label(record: dict[str, Any]) -> str:
    if record["type"] != "task_dict":
        return str(record["type"])
    count = len(record["subtasks"])
    return f"TaskDict ({count} subtask{'s' if count != 1 else ''})"


def _splits_label(record: dict[str, Any]) -> str:
    parts = list(record["splits"] or [])
    if record["split_file"] is not None:
        parts.append(f"{SPLIT_FILE} ({record['split_file']})")
    return ", ".join(parts)


@click.command("list-tasks")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of task records instead of a table.")
def list_tasks(as_json: bool) -> None:
    """List the tasks of the registry: id, name, type and declared splits.

    Reads the task configs only (no task code, no data), so it is fast. Tasks come from the package's tasks/
    directory and every root in GENBENCH_TASKS_PATH.

    \b
    Examples:
      genbench-cli list-tasks
      genbench-cli list-tasks --json
    """
    from genbench.cli._output import console, dumps

    records = task_listing()
    if as_json:
        click.echo(dumps(records), nl=False)
        return

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
