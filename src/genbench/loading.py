"""The original framework's ``genbench.loading``: ``load_task``, ``load_config`` and its private helpers."""

from genbench._compat.original_loading import *  # noqa: F403
from genbench._compat.original_loading import __all__, _load_task_class, _load_task_dict  # noqa: F401
