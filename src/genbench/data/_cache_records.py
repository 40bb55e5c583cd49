"""The entries of the download cache: a file in ``downloads/`` is trusted only with its record in
``download-records/`` (URI, SHA-256, size, origin), written once the file was validated.

A file without its record (an interrupted run, an older genbench, a file copied in by hand) is never used. Entries
come from downloads (:func:`genbench.data._cache.fetch`, then :func:`install_download` for a bundle's files) and from
local copies (:func:`add_to_cache`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genbench._core.errors import ChecksumMismatchError, DamagedFileError, DataLoadError, DataNotFoundError
from genbench._core.files import write_json_atomic
from genbench._core.json_files import read_json_file
from genbench.data._cache_location import RECORDS_SUBDIR, cache_dir, cached_path
from genbench.data._checksums import EMPTY_SHA256, normalise_sha256
from genbench.data._jsonl import validate_jsonl
from genbench.data._staging import staged_file
from genbench.data._uris import is_remote


@dataclass(frozen=True)
class CacheEntry:
    """One file in the download cache, with the record written when it was validated.

    Attributes:
        uri: The URI the file was downloaded from (or added for).
        path: The cached file.
        sha256: Its SHA-256 when it entered the cache.
        size: Its size in bytes.
        origin: How it entered the cache: ``download``, ``add`` or ``import``.
        verified: False for a download whose end could not be checked (no ``Content-Length``, not chunked: a body
            cut at a line boundary looks complete) and whose sha256 was not pinned: ``fetch`` downloads it again
            when it is used online, and uses it with a warning when the server cannot be reached.
    """

    uri: str
    path: Path
    sha256: str
    size: int
    origin: str
    verified: bool = True


def cached_entry(uri: str) -> CacheEntry | None:
    """The cache entry of ``uri``: None unless the file and its record exist and the size still matches.

    A file without a record (an interrupted run, an older genbench, a file copied in by hand) is not trusted:
    ``fetch`` downloads it again.
    """
    path = cached_path(uri)
    record = read_record(path)
    if record is None or record.get("uri") != uri or not path.is_file():
        return None
    try:
        entry = CacheEntry(
            uri,
            path,
            str(record["sha256"]),
            int(record["size"]),
            str(record.get("origin", "")),
            record.get("verified", True) is not False,
        )
    except (KeyError, TypeError, ValueError):
        return None
    return entry if path.stat().st_size == entry.size else None


def list_cache_entries() -> list[CacheEntry]:
    """Every valid entry of the download cache, sorted by URI."""
    records = cache_dir() / RECORDS_SUBDIR
    entries = []
    for record_file in sorted(records.glob("*.json")) if records.is_dir() else []:
        with contextlib.suppress(OSError, DamagedFileError, AttributeError):
            uri = read_json_file(record_file, what="download record", max_bytes=1 << 20).get("uri")
            entry = cached_entry(uri) if isinstance(uri, str) else None
            if entry is not None:
                entries.append(entry)
    return sorted(entries, key=lambda entry: entry.uri)


def record_path(path: Path) -> Path:
    """The record of the cached file ``path``."""
    return cache_dir() / RECORDS_SUBDIR / f"{path.name}.json"


def read_record(path: Path) -> dict[str, Any] | None:
    """The record of the cached file ``path``; None when it is missing or damaged."""
    try:  # a damaged record (cut short, NaN, nested, a FIFO) means the file is not trusted: downloaded again
        record = read_json_file(record_path(path), what="download record", max_bytes=1 << 20)
    except (OSError, DamagedFileError):
        return None
    return record if isinstance(record, dict) else None


def write_record(uri: str, path: Path, sha256: str, size: int, origin: str, *, verified: bool = True) -> CacheEntry:
    """Record the validated file ``path`` as the copy of ``uri`` (written atomically); returns its entry."""
    record: dict[str, Any] = {"uri": uri, "sha256": sha256, "size": size, "origin": origin}
    if not verified:
        record["verified"] = False
    write_json_atomic(record_path(path), record)
    return CacheEntry(uri, path, sha256, size, origin, verified)


def forget(path: Path) -> None:
    """Remove the cached file ``path`` and its record (its record first: a file without one is never trusted)."""
    record_path(path).unlink(missing_ok=True)
    path.unlink(missing_ok=True)


def add_to_cache(
    uri: str, file: str | os.PathLike[str], *, sha256: str | None = None, origin: str = "add"
) -> CacheEntry:
    """Put a local copy of the file at ``uri`` into the cache, as if it had been downloaded.

    The copy is validated like a download (JSONL, and ``sha256`` when given) before it replaces any cached
    copy, so a machine without internet can be seeded from a file carried over by hand.

    Args:
        uri: The ``http(s)://`` URI the file stands for (as written in the task's config).
        file: The local copy.
        sha256: Expected SHA-256 (e.g. the one pinned in the config).
        origin: Recorded as how the file entered the cache.

    Returns:
        The new cache entry.

    Raises:
        DataNotFoundError: ``file`` does not exist.
        ChecksumMismatchError: ``file`` does not match ``sha256``.
        DataLoadError: ``uri`` is not an http(s) URI, or ``file`` is not valid JSONL.
    """
    if not is_remote(uri):
        raise DataLoadError(f"{uri!r} is not an http:// or https:// URI; only downloads are cached.")
    expected = normalise_sha256(uri, sha256)
    source = Path(file)
    if not source.is_file():
        raise DataNotFoundError(f"{source}: no such file (the local copy of {uri}).", filename=str(source))
    data = source.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if expected is not None and actual != expected:
        raise ChecksumMismatchError(
            f"SHA-256 mismatch for {source} (a copy of {uri}): expected {expected}, got {actual}; nothing was cached."
        )
    # empty only when the pinned sha256 says so: an empty copy of an unpinned URL is far likelier a failed download
    validate_jsonl(data, source=f"{source} (a copy of {uri})", allow_empty=expected == EMPTY_SHA256)
    target = cached_path(uri)
    with staged_file(target) as (out, _):
        out.write(data)
        record_path(target).unlink(missing_ok=True)
    return write_record(uri, target, actual, len(data), origin)


def install_download(uri: str, staged: Path, sha256: str, size: int, origin: str) -> CacheEntry:
    """Move a verified file (``staged``, on the cache's file system) into the cache as the copy of ``uri``."""
    target = cached_path(uri)
    target.parent.mkdir(parents=True, exist_ok=True)
    record_path(target).unlink(missing_ok=True)
    os.replace(staged, target)
    return write_record(uri, target, sha256, size, origin)
