"""The original framework's ``genbench.task_config``: the config classes."""

from genbench._compat.original_task_config import *  # noqa: F403
from genbench._compat.original_task_config import __all__  # noqa: F401
