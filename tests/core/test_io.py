"""Atomic writes: no half-written file, no temporary file left behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from genbench._core.files import atomic_open, write_json_atomic


def test_write_json_atomic_leaves_no_temporary_file(tmp_path: Path):
    target = tmp_path / "out" / "x.json"
    write_json_atomic(target, {"a": 1})
    write_json_atomic(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 2}
    assert [p.name for p in target.parent.iterdir()] == ["x.json"]
    with pytest.raises(ValueError):
        write_json_atomic(target, {"a": float("nan")})  # strict JSON: the old file stays intact
    assert json.loads(target.read_text()) == {"a": 2}
    assert [p.name for p in target.parent.iterdir()] == ["x.json"]


def test_failed_write_keeps_the_old_file(tmp_path: Path):
    target = tmp_path / "x.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_open(target) as handle:
        handle.write("partial")
        raise RuntimeError("interrupted")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["x.txt"]
