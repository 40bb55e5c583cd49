"""The names of the original framework's ``genbench.loading``, over :mod:`genbench.task._factory`."""

from genbench._registry.task_configs import load_config
from genbench.task._classes import load_task_class, load_task_dict
from genbench.task._factory import load_task

# The original's private helpers, which its tests and some task code import.
_load_task_class = load_task_class
_load_task_dict = load_task_dict

__all__ = ["load_config", "load_task"]
