"""The original framework's ``genbench.utils.tasks``."""

from genbench._compat.task_ids import *  # noqa: F403
from genbench._compat.task_ids import __all__  # noqa: F401
