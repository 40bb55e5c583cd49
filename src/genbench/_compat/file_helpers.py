"""Compatibility module: ``genbench._compat.file_helpers`` of the original framework."""

from __future__ import annotations

from pathlib import Path

from genbench.config._jsonnet import load_jsonnet


def get_repo_dir() -> Path:
    """The repository checkout holding this package (``src/genbench``'s grandparent), as in the original.

    For an installed (non-editable) package this is the directory above ``site-packages``' parent, which has no
    meaning: use it only from a source checkout.
    """
    return Path(__file__).resolve().parents[3]


__all__ = ["get_repo_dir", "load_jsonnet"]
