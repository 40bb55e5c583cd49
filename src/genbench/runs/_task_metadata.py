"""What a results file's task record says about the task beyond its id: its taxonomy, headline metric and the
directions of its metrics."""

from __future__ import annotations

from typing import Any


def task_metadata(task_id: str, config: Any) -> dict[str, Any]:
    """The task's ``taxonomy`` (every axis as a list; a subtask's is its parent's when it declares none),
    ``primary_metric`` and ``metric_directions`` for a results file's task record: what the leaderboard groups and
    ranks by, and which way its metrics are better. Absent when not declared."""
    from genbench._registry.task_taxonomy import task_taxonomy  # reads configs: pydantic, which runs defers

    record: dict[str, Any] = {}
    taxonomy = task_taxonomy(task_id, config)
    if taxonomy is not None:
        record["taxonomy"] = taxonomy.as_lists()
    if getattr(config, "primary_metric", None) is not None:
        record["primary_metric"] = config.primary_metric
    if getattr(config, "metric_directions", None):
        record["metric_directions"] = dict(config.metric_directions)
    return record
