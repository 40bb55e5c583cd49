"""Lazy exports: a package's public names, each imported from its module on first access.

A package that re-exports names from heavy modules (``genbench``, ``genbench.runs``) takes its module-level
``__getattr__`` and ``__dir__`` (PEP 562) from :func:`lazy_exports`, so importing the package imports none of them;
a value is looked up once, then stored in the package's namespace.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(module_name: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a module whose names in ``exports`` are imported on first access.

    Args:
        module_name: The module serving the names (its ``__name__``).
        exports: Public name -> the module defining it (``"genbench.task._task"``), or ``"module:attribute"`` where
            the attribute has another name there.

    Returns:
        ``(__getattr__, __dir__)``, to assign at the module's top level.

    >>> import types, sys
    >>> demo = sys.modules["lazy_demo"] = types.ModuleType("lazy_demo")
    >>> demo.__getattr__, demo.__dir__ = lazy_exports("lazy_demo", {"dedent": "textwrap", "Path": "pathlib:PurePath"})
    >>> demo.dedent("  x"), demo.Path.__name__, "dedent" in vars(demo), "Path" in dir(demo)
    ('x', 'PurePath', True, True)
    >>> demo.missing
    Traceback (most recent call last):
    AttributeError: module 'lazy_demo' has no attribute 'missing'
    >>> del sys.modules["lazy_demo"]
    """
    table = dict(exports)

    def __getattr__(name: str) -> Any:
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        value = getattr(importlib.import_module(module), attribute or name)
        setattr(sys.modules[module_name], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[module_name])) | set(table))

    return __getattr__, __dir__
