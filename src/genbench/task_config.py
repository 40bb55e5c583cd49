"""The original framework's ``genbench.task_config``: the config classes."""

from genbench.compat.config_names import *  # noqa: F403
from genbench.compat.config_names import __all__  # noqa: F401
