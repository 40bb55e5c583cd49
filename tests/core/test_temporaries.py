"""Killed writes leave no temporaries forever (issue 20): atomic_open's and `data import`'s scratch folders are swept,
lock-aware, by the next write in that folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from genbench._core.files import atomic_open, write_text_atomic
from genbench._core.temporaries import is_atomic_temporary, lock_exclusive, remove_stale_temporaries
from tests.source_imports import importers

WRITER = """
import sys, time
from genbench._core.files import atomic_open
with atomic_open(sys.argv[1], "wb") as handle:
    handle.write(b"x" * 100000)
    handle.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


def _age(path: Path, seconds: float = 3600) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def _killed_writer(target: Path) -> Path:
    """Run a process that is killed (SIGKILL) while atomic_open writes ``target``; return its temporary."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, env=env)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == b"writing"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    (leftover,) = [p for p in target.parent.iterdir() if p.name.startswith(f".{target.name}.")]
    return leftover


def test_a_killed_writes_temporary_is_removed_by_the_next_write_there(tmp_path: Path) -> None:
    leftover = _killed_writer(tmp_path / "results.json")
    assert is_atomic_temporary(leftover.name) and leftover.stat().st_size == 100000
    _age(leftover)
    write_text_atomic(tmp_path / "other.json", "{}")
    assert not leftover.exists() and (tmp_path / "other.json").read_text() == "{}"


def test_a_fresh_leftover_is_kept_until_it_is_a_minute_old(tmp_path: Path) -> None:
    leftover = _killed_writer(tmp_path / "results.json")
    write_text_atomic(tmp_path / "other.json", "{}")
    assert leftover.exists()  # it could be a writer between mkstemp and its lock


def test_a_live_writers_temporary_is_never_removed(tmp_path: Path) -> None:
    with atomic_open(tmp_path / "results.json") as handle:
        (temporary,) = [p for p in tmp_path.iterdir() if is_atomic_temporary(p.name)]
        _age(temporary)
        assert remove_stale_temporaries(tmp_path, recursive=False, is_temporary=is_atomic_temporary) == []
        handle.write("done")
    assert (tmp_path / "results.json").read_text() == "done"


def test_a_users_own_hidden_tmp_files_are_not_touched(tmp_path: Path) -> None:
    mine = tmp_path / ".notes.tmp"
    mine.write_text("keep")
    _age(mine)
    write_text_atomic(tmp_path / "report.json", "{}")
    assert mine.read_text() == "keep"


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_the_data_import_scratch_folder_of_a_killed_import_is_removed(tmp_path: Path, monkeypatch) -> None:
    import genbench.data._cache as data_cache

    root = tmp_path / "cache"
    monkeypatch.setenv("GENBENCH_CACHE", str(root))
    stale = root / ".scratch.k1ll3d00.tmp"
    (stale / "files").mkdir(parents=True)
    (stale / "files" / "0").write_bytes(b"x" * 1000)
    _age(stale)
    live = root / ".scratch.l1v3l1v3.tmp"
    live.mkdir()
    _age(live)
    fd = os.open(live, os.O_RDONLY)
    try:
        lock_exclusive(fd)
        removed = data_cache.remove_stale_downloads()
    finally:
        os.close(fd)
    assert removed == [stale] and not stale.exists() and live.exists()


def test_every_lock_in_genbench_is_filelocks() -> None:
    """One lock library (filelock), not raw ``fcntl``/``msvcrt`` calls written by hand beside it."""
    raw = importers({"fcntl", "msvcrt"})
    assert raw == [], f"use filelock for locks, not a raw OS lock module: {raw}"


def test_a_locked_temporary_is_told_from_an_unlocked_one(tmp_path: Path) -> None:
    from genbench._core.temporaries import is_unlocked

    temporary = tmp_path / ".x.tmp"
    temporary.write_bytes(b"")
    assert is_unlocked(temporary)
    fd = os.open(temporary, os.O_RDONLY)
    try:
        lock_exclusive(fd)
        assert not is_unlocked(temporary)
    finally:
        os.close(fd)
    assert is_unlocked(temporary)
