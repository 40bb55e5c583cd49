"""A damaged request cache is moved aside and rebuilt with a warning; a NULL entry is a miss (issue 20)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from genbench.runs._request_cache import CACHE_FILE, CacheStats, DamagedCacheWarning, RequestCache, answer_with_cache

ANSWERS = {f"key{i}": [i, -float("inf"), f"text {i}" * 20] for i in range(3000)}


def _filled(directory: Path) -> Path:
    cache = RequestCache(directory)
    cache.put_many(ANSWERS)
    cache.close()
    return directory / CACHE_FILE


def test_a_cache_cut_short_is_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    """The reproducer: `requests.sqlite` cut short used to fail every later run with a raw DatabaseError."""
    path = _filled(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.warns(DamagedCacheWarning, match=r"requests.sqlite is damaged .* moved aside to .*damaged-"):
        cache = RequestCache(tmp_path)
    assert cache.get_many(list(ANSWERS)[:10]) == {}
    cache.put_many({"key0": "again"})
    assert cache.get_many(["key0"]) == {"key0": "again"}
    cache.close()
    aside = [p for p in tmp_path.iterdir() if ".damaged-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 1 and aside[0].read_bytes() == data[: len(data) // 2]


def test_a_file_that_is_not_a_database_is_moved_aside(tmp_path: Path) -> None:
    (tmp_path / CACHE_FILE).write_bytes(b"not a database at all" * 100)
    with pytest.warns(DamagedCacheWarning):
        cache = RequestCache(tmp_path)
    stats = CacheStats()
    answers = answer_with_cache(["a", "b"], lambda chunk: [x.upper() for x in chunk], cache=cache, keys=["ka", "kb"],
                                chunk_size=4, stats=stats)  # fmt: skip
    assert answers == ["A", "B"] and stats.computed == 2
    cache.close()


def test_a_null_entry_is_a_miss_and_repaired(tmp_path: Path) -> None:
    """The reproducer: an entry with a NULL value crashed with AttributeError."""
    path = _filled(tmp_path)
    db = sqlite3.connect(path)
    db.execute("UPDATE answers SET value = NULL WHERE key = 'key1'")
    db.execute("UPDATE answers SET sha256 = NULL WHERE key = 'key2'")
    db.execute("UPDATE answers SET value = X'FFFE00' WHERE key = 'key3'")  # not UTF-8 (a flipped byte, say)
    db.commit()
    db.close()
    cache = RequestCache(tmp_path)
    found = cache.get_many(["key0", "key1", "key2", "key3"])
    assert found == {"key0": ANSWERS["key0"]}
    remaining = {row[0] for row in cache._db.execute("SELECT key FROM answers WHERE key IN ('key1','key2','key3')")}
    assert remaining == set()  # deleted: the next put writes them afresh
    cache.close()


def test_a_healthy_cache_opens_without_warning(tmp_path: Path, recwarn: pytest.WarningsRecorder) -> None:
    _filled(tmp_path)
    cache = RequestCache(tmp_path)
    assert cache.get_many(["key5"]) == {"key5": ANSWERS["key5"]}
    cache.close()
    assert not [w for w in recwarn if issubclass(w.category, DamagedCacheWarning)]


def test_a_changed_format_version_in_the_header_is_damage_not_a_read_only_cache(tmp_path: Path) -> None:
    """Found by the fuzz: byte 18 of the header changed made SQLite open the cache read-only (a raw
    OperationalError at the first write); quick_check does not look at it."""
    path = _filled(tmp_path)
    data = bytearray(path.read_bytes())
    data[18] ^= 1
    path.write_bytes(bytes(data))
    with pytest.warns(DamagedCacheWarning, match="file format versions"):
        cache = RequestCache(tmp_path)
    cache.put_many({"key0": "again"})
    assert cache.get_many(["key0"]) == {"key0": "again"}
    cache.close()


def test_a_schema_text_that_is_not_utf8_is_damage_not_a_decoding_error(tmp_path: Path) -> None:
    """Found by the fuzz: a flipped byte in the stored CREATE TABLE text raised UnicodeDecodeError on open."""
    path = _filled(tmp_path)
    data = bytearray(path.read_bytes())
    where = data.index(b"CREATE TABLE answers")
    data[where + 7] = 0xCB  # a lone UTF-8 lead byte
    path.write_bytes(bytes(data))
    with pytest.warns(DamagedCacheWarning):
        cache = RequestCache(tmp_path)
    assert cache.get_many(["key0"]) == {}
    cache.close()


def test_an_unsupported_schema_format_is_damage(tmp_path: Path) -> None:
    """Found by the fuzz: byte 47 (the schema format number) changed gave a raw 'unsupported file format'."""
    path = _filled(tmp_path)
    data = bytearray(path.read_bytes())
    data[47] ^= 1
    path.write_bytes(bytes(data))
    with pytest.warns(DamagedCacheWarning, match="unsupported file format"):
        cache = RequestCache(tmp_path)
    assert cache.get_many(["key0"]) == {}
    cache.close()
