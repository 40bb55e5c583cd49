"""The original framework's ``genbench.utils.file``."""

from genbench._compat.file_helpers import *  # noqa: F403
from genbench._compat.file_helpers import __all__  # noqa: F401
