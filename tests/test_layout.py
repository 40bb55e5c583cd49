"""The tests mirror ``src/genbench``: each folder of ``tests/`` is named after the package it tests (without the
underscore of an internal package), or is one of the few that test across packages."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
PACKAGE = TESTS.parent / "src" / "genbench"
# Folders that test across packages: the benchmarks' own checks, the fuzz campaigns, the shipped notebooks.
ACROSS_PACKAGES = {"benchmarks", "fuzz", "notebooks"}


def test_every_test_folder_is_named_after_a_package() -> None:
    packages = {p.name.lstrip("_") for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    assert folders - packages - ACROSS_PACKAGES == set(), "test folders named after no package of src/genbench"
