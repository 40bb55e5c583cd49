"""Fixtures of the CLI tests: a click runner and a predictions writer (the task root is ``task_root``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def write_predictions() -> Callable[[Path, list], Path]:
    """Write a predictions file with one ``{"target": ...}`` line per target."""

    def write(path: Path, targets: list) -> Path:
        path.write_text("".join(json.dumps({"target": target}) + "\n" for target in targets), encoding="utf-8")
        return path

    return write
