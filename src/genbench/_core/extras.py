"""Optional dependencies: libraries that an extra of the install adds (``pip install 'genbench[rerank]'``).

The core install (author, validate and evaluate tasks; contamination checks on text) needs none of them; a feature
that does imports its library through :func:`import_optional`, which says which extra to install when it is missing.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from genbench._core.errors import GenBenchError


class MissingDependencyError(GenBenchError, ImportError):
    """A feature needs a library of an extra that is not installed (the message names the extra)."""


def import_optional(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingDependencyError` naming the extra that provides it.

    >>> import_optional("json", "none", "parsing").__name__
    'json'
    >>> import_optional("no_such_module_xyz", "rerank", "Cross-encoders")
    Traceback (most recent call last):
    ...
    genbench._core.extras.MissingDependencyError: Cross-encoders need no_such_module_xyz, which the core install \
leaves out: pip install 'genbench[rerank]'.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name is not None and module.split(".")[0] != exc.name.split(".")[0]:
            raise  # the library is there but one of its own imports failed: show that error as it is
        package = module.split(".")[0]
        raise MissingDependencyError(
            f"{feature} need {package}, which the core install leaves out: pip install 'genbench[{extra}]'."
        ) from exc
