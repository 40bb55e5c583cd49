"""The request cache checks its whole file (``PRAGMA quick_check``) only when the file is not in the state genbench
last checked or wrote it in, which ``requests.sqlite.checked`` records; a damaged cache is still never used."""

from __future__ import annotations

import json
import os
import sqlite3
import warnings
from pathlib import Path

import pytest

import genbench.runs._request_cache as request_cache
from genbench.runs._request_cache import CACHE_FILE, CHECKED_SUFFIX, DamagedCacheWarning, RequestCache

ANSWERS = {f"key{i}": [i, -float("inf"), f"text {i}" * 20] for i in range(3000)}


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL statement the request cache runs (traced on each connection it opens)."""
    traced: list[str] = []
    connect = sqlite3.connect

    def traced_connect(*args, **kwargs):
        db = connect(*args, **kwargs)
        db.set_trace_callback(traced.append)
        return db

    monkeypatch.setattr(request_cache.sqlite3, "connect", traced_connect)
    return traced


def _checks(statements: list[str]) -> int:
    return sum(1 for statement in statements if statement.strip().upper() == "PRAGMA QUICK_CHECK")


def _filled(directory: Path, answers: dict = ANSWERS) -> Path:
    cache = RequestCache(directory)
    cache.put_many(answers)
    cache.close()
    return directory / CACHE_FILE


def test_an_unchanged_cache_is_not_checked_again_and_answers_the_same(tmp_path: Path, statements: list[str]) -> None:
    _filled(tmp_path)
    assert _checks(statements) == 1  # the new file, once
    recorded = json.loads((tmp_path / (CACHE_FILE + CHECKED_SUFFIX)).read_text())
    assert recorded["state"]["size"] == (tmp_path / CACHE_FILE).stat().st_size
    statements.clear()
    for _ in range(2):
        cache = RequestCache(tmp_path)
        assert cache.get_many(["key7", "key2999"]) == {k: ANSWERS[k] for k in ("key7", "key2999")}
        cache.close()
    assert _checks(statements) == 0
    cache = RequestCache(tmp_path, verify=True)  # asked for: checked anyway
    cache.close()
    assert _checks(statements) == 1


def test_writes_through_the_cache_keep_it_trusted_also_past_intermediate_checkpoints(
    tmp_path: Path, statements: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(request_cache, "CHECKPOINT_BYTES", 64 << 10)  # a checkpoint after every put below
    _filled(tmp_path, {})
    cache = RequestCache(tmp_path)
    for start in range(0, 3000, 500):
        cache.put_many({key: ANSWERS[key] for key in list(ANSWERS)[start : start + 500]})
    cache.close()
    statements.clear()
    cache = RequestCache(tmp_path)
    assert cache.get_many(list(ANSWERS)) == ANSWERS
    cache.close()
    assert _checks(statements) == 0


def test_any_other_change_of_the_file_is_checked_again(tmp_path: Path, statements: list[str]) -> None:
    path = _filled(tmp_path)
    os.utime(path)  # touched: healthy, but not the state recorded
    statements.clear()
    cache = RequestCache(tmp_path)
    cache.close()
    assert _checks(statements) == 1


def test_damage_with_its_modification_time_restored_is_found(tmp_path: Path) -> None:
    """The change time (which no call can set back) is part of the state: restoring the modification time of a file
    cut short does not make it trusted."""
    path = _filled(tmp_path)
    before = path.stat()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] + bytes(len(data) - len(data) // 2))  # same size, second half zeroed
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.warns(DamagedCacheWarning, match="moved aside"):
        cache = RequestCache(tmp_path)
    assert cache.get_many(["key2999"]) == {}
    cache.close()


def test_a_change_by_another_connection_while_open_is_not_recorded_as_trusted(
    tmp_path: Path, statements: list[str]
) -> None:
    path = _filled(tmp_path)
    cache = RequestCache(tmp_path)
    other = sqlite3.connect(path)  # another process's run, say: writes and moves its log into the file
    with other:
        other.execute("INSERT INTO answers VALUES ('x', '1', 'not checked')")
    other.execute("PRAGMA wal_checkpoint(PASSIVE)")
    other.close()
    cache.put_many({"key0": "again"})
    cache.close()
    statements.clear()
    cache = RequestCache(tmp_path)
    cache.close()
    assert _checks(statements) == 1


@pytest.mark.parametrize("where", ["a value", 0.3, 0.5, 0.7, 0.9])
def test_damage_the_recorded_state_cannot_show_is_a_miss_or_moved_aside_never_a_wrong_answer(
    tmp_path: Path, where: str | float
) -> None:
    """A failing disk flips bits without changing the file's metadata: the state then matches (here the sidecar is
    rewritten to match, as it would), the whole-file check is skipped, and the entries' checksums and the errors of
    reads and writes are what keeps a damaged cache from being used."""
    path = _filled(tmp_path)
    data = bytearray(path.read_bytes())
    if isinstance(where, str):  # one character of one answer: the page stays well-formed
        data[data.index(b"text 1500text") + 3] ^= 1
    else:  # a page's cells reversed: its structure is broken
        start = int(len(data) * where) // 4096 * 4096
        data[start + 100 : start + 4000] = bytes(reversed(data[start + 100 : start + 4000]))
    path.write_bytes(bytes(data))
    sidecar = tmp_path / (CACHE_FILE + CHECKED_SUFFIX)
    recorded = json.loads(sidecar.read_text())
    recorded["state"] = request_cache._file_state(path)
    sidecar.write_text(json.dumps(recorded))
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        cache = RequestCache(tmp_path)
        found = cache.get_many(list(ANSWERS))
        assert {key: value for key, value in found.items() if ANSWERS[key] != value} == {}
        cache.put_many({"new": "answer"})
        assert cache.get_many(["new"]) in ({"new": "answer"}, {})
        cache.close()
    moved = [w for w in warned if issubclass(w.category, DamagedCacheWarning)]
    if isinstance(where, str):
        assert not moved and "key1500" not in found and len(found) == len(ANSWERS) - 1  # that entry only: a miss
    else:
        assert moved  # sqlite3.DatabaseError in the read: moved aside like a failed check


def test_a_damaged_sidecar_only_means_the_file_is_checked(tmp_path: Path, statements: list[str]) -> None:
    _filled(tmp_path)
    sidecar = tmp_path / (CACHE_FILE + CHECKED_SUFFIX)
    sidecar.write_text('{"state": NaN')
    statements.clear()
    cache = RequestCache(tmp_path)
    cache.close()
    assert _checks(statements) == 1
    assert json.loads(sidecar.read_text())["state"] == request_cache._file_state(tmp_path / CACHE_FILE)
