"""The task registry shipped with genbench: one directory per task.

``from genbench.tasks import Task`` is kept working for tasks written with the original framework's guide.
"""

from genbench._core.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {"Task": "genbench", "TaskDict": "genbench"})


def _add_task_roots() -> None:
    # Every GENBENCH_TASKS_PATH root is part of this package, so `genbench.tasks.<task_id>.<module>` imports work
    # for tasks outside the package too (the loader keeps `__path__` in step when the variable changes).
    from genbench._registry.task_modules import tasks_package

    tasks_package()


_add_task_roots()
