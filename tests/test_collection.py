"""Collecting the tests imports no heavy library (see ``tests/heavy_imports.py``)."""

from __future__ import annotations

import pytest

from tests.heavy_imports import IMPORTED_AT_COLLECTION


def test_collecting_imports_no_heavy_library(pytestconfig: pytest.Config) -> None:
    imported = pytestconfig.stash.get(IMPORTED_AT_COLLECTION, {})
    by_module: dict[str, list[str]] = {}
    for library, where in sorted(imported.items()):
        by_module.setdefault(where, []).append(library)
    assert not by_module, "collecting the tests imported heavy libraries:\n" + "\n".join(
        f"  {where} imports {', '.join(libraries)}: import them inside the tests or fixtures that use them"
        for where, libraries in by_module.items()
    )
