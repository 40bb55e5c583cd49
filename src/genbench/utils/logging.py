"""The original framework's ``genbench.utils.logging``."""

from genbench._compat.logging_helpers import *  # noqa: F403
from genbench._compat.logging_helpers import __all__  # noqa: F401
