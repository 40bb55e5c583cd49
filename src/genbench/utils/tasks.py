"""Compatibility module: ``genbench.utils.tasks`` of the original framework."""

from __future__ import annotations

from genbench.loading import PACKAGE_TASKS_DIR, discover_tasks, get_task_dir


def get_tasks_dir():
    """The package's own task directory."""
    return PACKAGE_TASKS_DIR


def get_all_tasks_ids() -> list[str]:
    """Every task id in the registry, sorted."""
    return sorted(discover_tasks())


__all__ = ["get_all_tasks_ids", "get_task_dir", "get_tasks_dir"]
