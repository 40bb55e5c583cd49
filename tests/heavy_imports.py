"""Which test module imported a heavy library while the suite was being collected (a hook of ``tests/conftest.py``).

Collecting imports every test module: one that imports torch, datasets or scikit-learn at its top makes every run,
even of a single test, pay for it. ``tests/test_collection.py`` fails naming the module and the library.
"""

from __future__ import annotations

import sys
from collections.abc import Generator

import pytest

HEAVY_LIBRARIES = (
    "datasets",
    "elasticsearch",
    "evaluate",
    "pandas",
    "scipy",
    "sentence_transformers",
    "sklearn",
    "torch",
    "transformers",
)
"""Libraries that take from half a second to several seconds to import."""

IMPORTED_AT_COLLECTION = pytest.StashKey[dict[str, str]]()
"""Heavy library -> node id of what imported it during collection (a test module, or a directory's conftest.py)."""


def _loaded() -> set[str]:
    return {name for name in HEAVY_LIBRARIES if name in sys.modules}


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Collect ``collector``; note the heavy libraries that appeared meanwhile, with its node id."""
    before = _loaded()
    report = yield
    imported = collector.config.stash.setdefault(IMPORTED_AT_COLLECTION, {})
    for name in sorted(_loaded() - before):
        imported.setdefault(name, collector.nodeid or ".")
    return report
