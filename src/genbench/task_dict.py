"""The original framework's ``genbench.task_dict``."""

from genbench.task._task_dict import TaskDict

__all__ = ["TaskDict"]
