"""The task registry shipped with genbench: one directory per task.

``from genbench.tasks import Task`` is kept working for tasks written with the original framework's guide.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("Task", "TaskDict"):
        import genbench

        return getattr(genbench, name)
    raise AttributeError(f"module 'genbench.tasks' has no attribute {name!r}")
