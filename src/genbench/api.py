"""The original framework's ``genbench.api``: task types, preparation strategies, splits, the task interface."""

from genbench._core.vocabulary import *  # noqa: F403
from genbench._core.vocabulary import __all__  # noqa: F401
