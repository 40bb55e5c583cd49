"""The task registry shipped with genbench: one directory per task.

``from genbench.tasks import Task`` is kept working for tasks written with the original framework's guide.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("Task", "TaskDict"):
        import genbench

        return getattr(genbench, name)
    raise AttributeError(f"module 'genbench.tasks' has no attribute {name!r}")


def _add_task_roots() -> None:
    # Every GENBENCH_TASKS_PATH root is part of this package, so `genbench.tasks.<task_id>.<module>` imports work
    # for tasks outside the package too (the loader keeps `__path__` in step when the variable changes).
    from genbench.registry.task_modules import tasks_package

    tasks_package()


_add_task_roots()
