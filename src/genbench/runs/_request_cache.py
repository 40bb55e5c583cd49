"""The request cache: every model answer on disk, so an interrupted run resumes where it stopped.

A SQLite file keyed by the SHA-256 of everything that changes an answer; answers are committed a chunk per
transaction, and each entry's checksum is verified on read, so a damaged entry is answered again, never trusted.
The whole file is checked when opened unless a sidecar shows it unchanged since genbench last checked or wrote it
(:class:`RequestCache`). See docs/running_models.md#the-request-cache-resuming-a-run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import sqlite3
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from genbench._core.errors import DamagedFileError, OutputError
from genbench._core.files import write_json_atomic
from genbench._core.json_files import read_json_file

logger = logging.getLogger(__name__)

CACHE_FILE = "requests.sqlite"
CHECKED_SUFFIX = ".checked"
"""``requests.sqlite.checked``: the state of ``requests.sqlite`` that genbench checked or wrote last (see
:class:`RequestCache`)."""
CHECKPOINT_BYTES = 16 << 20
"""Answers written are moved from SQLite's write-ahead log into the database file once the log is this large."""


def request_key(identity: dict[str, Any], kind: str, request: Any, settings: dict[str, Any]) -> str:
    """The cache key of one request (stable across runs and machines).

    >>> a = request_key({"spec": "hf:m"}, "generate", "2+2=", {"max_new_tokens": 8})
    >>> a == request_key({"spec": "hf:m"}, "generate", "2+2=", {"max_new_tokens": 9})
    False
    """
    document = {"model": identity, "kind": kind, "request": request, "settings": settings}
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class AnswerStore(Protocol):
    """What the executor needs of a request cache: :class:`RequestCache` is one, a merge of shards' answers another."""

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]: ...

    def put_many(self, answers: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


@dataclass
class CacheStats:
    """Requests answered from the cache (``hits``) and by the model (``computed``)."""

    hits: int = 0
    computed: int = 0


class RequestCache:
    """A SQLite file of answers, keyed by :func:`request_key`.

    Opening it checks the database (``PRAGMA quick_check``, linear in its size: about a second per gigabyte) unless
    the file is in the state genbench last left it in: a damaged file (cut short, overwritten) is moved aside to
    ``requests.sqlite.damaged-<time>`` with a warning and an empty cache is built in its place, so the run answers
    those requests again instead of failing. The same happens when damage shows up later, in a read or a write. An
    entry whose value or checksum is missing (NULL) or wrong is a miss: it is deleted and answered again.

    Why skipping the check of an unchanged file is safe: the sidecar ``requests.sqlite.checked`` records the file's
    size, modification and change times (nanoseconds), inode and device, and is written only (a) right after a
    check passed, and (b) after this process's own checkpoints, when the file was in the recorded state just before
    them (automatic checkpoints are off: this class moves the write-ahead log into the file itself, so it knows every
    change it made). Any other change (cut short, overwritten, copied back, a concurrent run's checkpoint, even
    with its modification time restored: the change time cannot be set) gives another state, so the next open
    checks the whole file again. What a state cannot show is damage that changes no metadata (a failing disk's
    flipped bits): it is caught where it matters, as before the check existed: every entry carries a checksum of its
    key and value (a damaged one is a miss, never a wrong answer), and a ``sqlite3.DatabaseError`` raised by a read
    or a write moves the file aside like a failed check. A sidecar that is missing, damaged or unwritable (a
    read-only folder) only means the check runs.

    Args:
        directory: Where ``requests.sqlite`` lives (created if missing).
        verify: Check the whole file on open even when it is unchanged.
    """

    def __init__(self, directory: str | Path, *, verify: bool = False):
        self.path = Path(directory) / CACHE_FILE
        self.verify = verify
        self._trusted_state: dict[str, int] | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = self._open()
        except _DAMAGE_ERRORS as exc:
            if not _is_damage(exc):
                raise _unusable(self.path, exc) from exc
            self._move_aside(exc)
            self._db = self._open_fresh()

    def _open_fresh(self) -> sqlite3.Connection:
        """Open the new, empty cache that replaces a damaged one (an error now is not damage: it is reported)."""
        try:
            return self._open()
        except _DAMAGE_ERRORS as exc:
            raise _unusable(self.path, exc) from exc

    def _open(self) -> sqlite3.Connection:
        _check_header(self.path)
        db = sqlite3.connect(self.path, timeout=30)
        db.text_factory = bytes  # decoded here: a flipped byte in a value must be a miss, not a decoding error
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints are this class's own: see _checkpoint
            state = _file_state(self.path)
            checked = self.verify or state is None or state != self._recorded_state()
            if checked:
                verdict = db.execute("PRAGMA quick_check").fetchone()
                if verdict is None or verdict[0] != b"ok":
                    found = verdict[0].decode("utf-8", "replace") if verdict else "no answer"
                    raise sqlite3.DatabaseError(f"integrity check failed: {found}")
            db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT, sha256 TEXT)")
            columns = [row[1].decode("utf-8", "replace") for row in db.execute("PRAGMA table_info(answers)")]
            if columns[:3] != ["key", "value", "sha256"]:
                raise sqlite3.DatabaseError(f"table 'answers' has the columns {columns}, not (key, value, sha256)")
            db.commit()
        except BaseException:
            db.close()
            raise
        # The state just checked (or found recorded), unless the file changed meanwhile (another run's checkpoint):
        # the statements above wrote only to the write-ahead log, never to the database file itself.
        after = _file_state(self.path)
        self._trusted_state = after if after == state else None
        if checked and self._trusted_state is not None:
            self._record_state()
        return db

    def _recorded_state(self) -> dict[str, int] | None:
        """The state the sidecar records (None: no readable sidecar)."""
        try:
            recorded = read_json_file(self._sidecar, what="request cache sidecar", max_bytes=4096, max_depth=2)
        except (OSError, DamagedFileError):
            return None
        return recorded.get("state") if isinstance(recorded, dict) else None

    @property
    def _sidecar(self) -> Path:
        return self.path.with_name(CACHE_FILE + CHECKED_SUFFIX)

    def _record_state(self) -> None:
        """Record the trusted state in the sidecar; where it cannot be written the next open checks the file."""
        try:
            write_json_atomic(self._sidecar, {"file": CACHE_FILE, "state": self._trusted_state})
        except OSError as exc:
            logger.debug("Request cache %s: the sidecar cannot be written (%s); the next open checks the file.",
                         self.path, exc)  # fmt: skip

    def _forget_state(self) -> None:
        self._trusted_state = None
        with contextlib.suppress(OSError):
            self._sidecar.unlink()

    def _checkpoint(self) -> None:
        """Move the write-ahead log into the database file, keeping the trusted state when only this changed it.

        The state is compared just before: when the file changed since it was trusted (another process's
        checkpoint, anything else), it is no longer trusted, and the next open checks it (only a change in the
        instant between that comparison and the checkpoint's own writes would pass unseen: then the entries'
        checksums still stand). ``PASSIVE``: never waits for another run's readers (what they still read stays in
        the log, for a later checkpoint).
        """
        before = _file_state(self.path)
        self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        if self._trusted_state is not None:
            self._trusted_state = _file_state(self.path) if before == self._trusted_state else None

    def _checkpoint_when_large(self) -> None:
        try:
            wal_bytes = os.stat(f"{self.path}-wal").st_size
        except OSError:
            return
        if wal_bytes >= CHECKPOINT_BYTES:
            try:
                self._checkpoint()
            except sqlite3.OperationalError as exc:
                if _is_damage(exc):
                    raise
                self._trusted_state = None  # busy: a later checkpoint (or SQLite's, at close) moves the log

    def _move_aside(self, exc: Exception) -> None:
        """Move the damaged database (and its WAL files) aside, keeping it for inspection, and warn."""
        self._forget_state()
        aside = self.path.with_name(f"{CACHE_FILE}.damaged-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
        for suffix in ("", "-wal", "-shm"):
            part = Path(f"{self.path}{suffix}")
            if part.exists():
                os.replace(part, f"{aside}{suffix}")
        warnings.warn(
            f"The request cache {self.path} is damaged ({exc}); it was moved aside to {aside} and an empty cache was "
            "started: the requests it held are answered again. Delete the damaged copy when you no longer need it.",
            DamagedCacheWarning,
            stacklevel=3,
        )

    def _rebuild(self, exc: Exception) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        self._move_aside(exc)
        self._db = self._open_fresh()

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]:
        """The valid cached answers among ``keys`` (a damaged database is rebuilt empty: every key a miss)."""
        try:
            return self._get_many(keys)
        except _DAMAGE_ERRORS as exc:
            if not _is_damage(exc):
                raise _unusable(self.path, exc) from exc
            self._rebuild(exc)
            return {}

    def _get_many(self, keys: Sequence[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        broken: list[bytes] = []
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f"SELECT key, value, sha256 FROM answers WHERE key IN ({marks})", chunk)  # noqa: S608
            for key, value, checksum in rows.fetchall():
                answer = _checked_answer(key, value, checksum)
                if answer is _BROKEN:
                    logger.warning(
                        "Request cache %s: entry %r is damaged (missing value, failed checksum or not JSON); "
                        "answering it again.",
                        self.path,
                        key,
                    )
                    broken.append(key)
                else:
                    found[key.decode("utf-8")] = answer  # it matched a requested key: valid text
        if broken:
            with self._db:
                self._db.executemany("DELETE FROM answers WHERE key = ?", [(key.decode("utf-8"),) for key in broken])
        return found

    def put_many(self, answers: dict[str, Any]) -> None:
        """Store answers in one transaction (a damaged database is rebuilt, then written)."""
        rows = []
        for key, answer in answers.items():
            if _has_nan(answer):
                raise ValueError(f"Request cache {self.path}: the answer of {key} is or contains NaN: never cached.")
            # -inf (a valid log-likelihood) is written as JSON's common extension -Infinity, which json.loads reads
            value = json.dumps(answer, ensure_ascii=False, allow_nan=True)
            rows.append((key, value, entry_checksum(key.encode("utf-8"), value.encode("utf-8"))))
        try:
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", rows)
            self._checkpoint_when_large()
        except _DAMAGE_ERRORS as exc:
            if not _is_damage(exc):
                raise _unusable(self.path, exc) from exc
            self._rebuild(exc)
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", rows)

    def count(self) -> int:
        """The number of answers stored."""
        return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        """Write the answers into the database file, record its state (see the class) and close it."""
        try:
            self._checkpoint()
        except sqlite3.Error:  # busy (another run reads it) or damaged: the next open checks the file
            self._trusted_state = None
        self._db.close()
        if self._trusted_state is not None and _file_state(self.path) == self._trusted_state:
            self._record_state()


class DamagedCacheWarning(UserWarning):
    """A damaged request cache was moved aside and rebuilt empty (its answers are computed again)."""


_BROKEN = object()


def entry_checksum(key: bytes, value: bytes) -> str:
    """The checksum stored with an entry: SHA-256 of its key, a newline and its value.

    The key is part of it because ``PRAGMA quick_check`` does not compare indexes with their table: a damaged index
    could hand one key another key's row, whose value-only checksum would still match.
    """
    return hashlib.sha256(key + b"\n" + value).hexdigest()


def _checked_answer(key: Any, value: Any, checksum: Any) -> Any:
    """The answer stored in an entry (read as bytes), or ``_BROKEN`` when its value or checksum is missing or
    wrong. Entries written before the key was checksummed (the value's SHA-256 alone) are still read."""
    if not isinstance(key, bytes) or not isinstance(value, bytes) or not isinstance(checksum, bytes):
        return _BROKEN
    if checksum.decode("ascii", "replace") not in (entry_checksum(key, value), hashlib.sha256(value).hexdigest()):
        return _BROKEN
    try:
        return json.loads(value.decode("utf-8"))
    except (ValueError, RecursionError):
        return _BROKEN


def _file_state(path: Path) -> dict[str, int] | None:
    """What tells one state of a file from another without reading it (None: there is no file)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return {
        "size": found.st_size,
        "mtime_ns": found.st_mtime_ns,
        "ctime_ns": found.st_ctime_ns,
        "inode": found.st_ino,
        "device": found.st_dev,
    }


def _check_header(path: Path) -> None:
    """Check the header fields that SQLite reads without complaint but that change how it opens the file.

    A changed file-format write version (byte 18) makes SQLite open a healthy-looking file read-only, so every write
    would fail with "attempt to write a readonly database"; quick_check does not look at it.
    """
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
    except FileNotFoundError:
        return
    if (
        len(header) == 100
        and header.startswith(b"SQLite format 3\0")
        and not (header[18] in (1, 2) and header[19] in (1, 2))
    ):
        raise sqlite3.DatabaseError(f"file format versions {header[18]}/{header[19]} in the header are not 1 or 2")


_DAMAGE_ERRORS = (sqlite3.DatabaseError, UnicodeDecodeError)
"""What a damaged database raises: SQLite's errors, and the decoding error of a schema text that is not UTF-8."""


def _is_damage(exc: Exception) -> bool:
    """Whether a database error means a damaged file (moved aside), not a busy or unwritable one (raised).

    ``OperationalError`` covers both (damage shows as "unsupported file format", "no such table", ...), so the
    conditions of a healthy file that cannot be used now are listed, and everything else counts as damage: moving a
    healthy file aside by mistake costs recomputed answers (and the file is kept), trusting a damaged one costs a
    failed run.
    """
    if not isinstance(exc, sqlite3.OperationalError):
        return True  # SQLITE_CORRUPT, SQLITE_NOTADB, our checks, a schema text that is not UTF-8
    message = str(exc).lower()
    return not any(sign in message for sign in _NOT_DAMAGE)


_NOT_DAMAGE = (
    "locked",
    "busy",
    "unable to open",
    "readonly",
    "disk i/o",
    "disk is full",
    "out of memory",
    "interrupt",
)
"""Signs, in an ``OperationalError``'s message, of a healthy cache that cannot be used now."""


def _unusable(path: Path, exc: Exception) -> OutputError:
    """The error for a healthy cache that cannot be used now (busy, read-only, a full disk)."""
    return OutputError(
        f"The request cache {path} cannot be used: {exc}. Another run may hold it, or it is not writable; wait for "
        "the other run, or choose another folder with --cache-dir (or run with --no-cache)."
    )


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
    cache: AnswerStore | None,
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
