"""What a results file's task record says about the task beyond its id: its taxonomy and headline metric."""

from __future__ import annotations

from typing import Any


def task_metadata(task_id: str, config: Any) -> dict[str, Any]:
    """The task's ``taxonomy`` (every axis as a list; a subtask's is its parent's when it declares none) and
    ``primary_metric`` for a results file's task record: what the leaderboard groups and ranks by. Absent when not
    declared."""
    from genbench.registry.task_taxonomy import task_taxonomy  # reads configs: pydantic, which runs defers

    record: dict[str, Any] = {}
    taxonomy = task_taxonomy(task_id, config)
    if taxonomy is not None:
        record["taxonomy"] = taxonomy.as_lists()
    if getattr(config, "primary_metric", None) is not None:
        record["primary_metric"] = config.primary_metric
    return record
