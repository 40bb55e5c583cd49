"""The original framework's ``genbench.loading``: ``load_task``, ``load_config`` and its private helpers."""

from genbench.compat.loading_names import *  # noqa: F403
from genbench.compat.loading_names import __all__, _load_task_class, _load_task_dict  # noqa: F401
