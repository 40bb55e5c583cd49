"""The request cache: every model answer on disk, so an interrupted run resumes where it stopped.

An answer is keyed by the SHA-256 of (model spec, revision and output-affecting arguments, request kind, request,
generation settings). The store is SQLite (standard library): each chunk of answers is committed in one
transaction, so a run killed half-way loses at most the chunk in flight and never leaves a half-written entry.
Each entry also stores the SHA-256 of its value, checked on read: an entry that fails the check, or that is not
valid JSON, is ignored (and answered again), never trusted. A ``-inf`` answer (a log-likelihood of an impossible
continuation) is stored as ``-Infinity`` and read back as ``-inf``; NaN is never stored.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

CACHE_FILE = "requests.sqlite"


def request_key(identity: dict[str, Any], kind: str, request: Any, settings: dict[str, Any]) -> str:
    """The cache key of one request (stable across runs and machines).

    >>> a = request_key({"spec": "hf:m"}, "generate", "2+2=", {"max_new_tokens": 8})
    >>> a == request_key({"spec": "hf:m"}, "generate", "2+2=", {"max_new_tokens": 9})
    False
    """
    document = {"model": identity, "kind": kind, "request": request, "settings": settings}
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass
class CacheStats:
    """Requests answered from the cache (``hits``) and by the model (``computed``)."""

    hits: int = 0
    computed: int = 0


class RequestCache:
    """A SQLite file of answers, keyed by :func:`request_key`.

    Args:
        directory: Where ``requests.sqlite`` lives (created if missing).
    """

    def __init__(self, directory: str | Path):
        self.path = Path(directory) / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT, sha256 TEXT)")
        self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]:
        """The valid cached answers among ``keys``."""
        found: dict[str, Any] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f"SELECT key, value, sha256 FROM answers WHERE key IN ({marks})", chunk)  # noqa: S608
            for key, value, checksum in rows:
                if hashlib.sha256(value.encode("utf-8")).hexdigest() != checksum:
                    logger.warning(
                        "Request cache %s: entry %s fails its checksum; answering it again.", self.path, key
                    )
                    continue
                try:
                    found[key] = json.loads(value)
                except ValueError:
                    logger.warning("Request cache %s: entry %s is not JSON; answering it again.", self.path, key)
        return found

    def put_many(self, answers: dict[str, Any]) -> None:
        """Store answers in one transaction."""
        rows = []
        for key, answer in answers.items():
            if _has_nan(answer):
                raise ValueError(f"Request cache {self.path}: the answer of {key} is or contains NaN: never cached.")
            # -inf (a valid log-likelihood) is written as JSON's common extension -Infinity, which json.loads reads
            value = json.dumps(answer, ensure_ascii=False, allow_nan=True)
            rows.append((key, value, hashlib.sha256(value.encode("utf-8")).hexdigest()))
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", rows)

    def count(self) -> int:
        """The number of answers stored."""
        return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        self._db.close()


def _has_nan(value: Any) -> bool:
    """Whether an answer is, or contains, a float NaN."""
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, (list, tuple)):
        return any(_has_nan(item) for item in value)
    if isinstance(value, dict):
        return any(_has_nan(item) for item in value.values())
    return False


def answer_with_cache(
    requests: Sequence[Any],
    compute: Callable[[list[Any]], list[Any]],
    *,
    cache: RequestCache | None,
    keys: Sequence[str],
    chunk_size: int,
    stats: CacheStats,
    on_progress: Callable[[int], None] | None = None,
) -> list[Any]:
    """Answer ``requests`` in order: cached ones from the cache, the others by ``compute`` in chunks.

    Each computed chunk is stored before the next starts, so an interruption keeps every finished chunk.
    """
    answers: dict[str, Any] = cache.get_many(keys) if cache is not None else {}
    stats.hits += sum(1 for key in keys if key in answers)
    if on_progress is not None and answers:
        on_progress(sum(1 for key in keys if key in answers))
    missing = [i for i, key in enumerate(keys) if key not in answers]
    # one model call per distinct request
    distinct = list(dict.fromkeys(keys[i] for i in missing))
    first_index: dict[str, int] = {}
    for i in missing:
        first_index.setdefault(keys[i], i)
    for start in range(0, len(distinct), max(1, chunk_size)):
        chunk_keys = distinct[start : start + chunk_size]
        results = compute([requests[first_index[key]] for key in chunk_keys])
        computed = dict(zip(chunk_keys, results, strict=True))
        if cache is not None:
            cache.put_many(computed)
        answers.update(computed)
        stats.computed += len(chunk_keys)
        if on_progress is not None:
            on_progress(sum(1 for i in missing if keys[i] in computed))
    return [answers[key] for key in keys]
