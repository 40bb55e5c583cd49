"""Data files by URI: remote files downloaded once into a cache, local files used in place (:func:`fetch`).

A download is checked and renamed into place with a record of its URI, SHA-256 and size; a file without its record
is never trusted. The cache's other names (:mod:`~genbench.data._cache_location`, :mod:`~genbench.data._cache_records`,
:mod:`~genbench.data._checksums`, :mod:`~genbench.data._uris`) are importable from here too. See
docs/data.md#the-download-cache.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from genbench._core.errors import ChecksumMismatchError, DataLoadError
from genbench.data._cache_location import (
    CACHE_ENV,
    DOWNLOADS_SUBDIR,
    HUB_SUBDIR,
    RECORDS_SUBDIR,
    cache_dir,
    cached_path,
    remove_stale_downloads,
)
from genbench.data._cache_records import (
    CacheEntry,
    add_to_cache,
    cached_entry,
    forget,
    install_download,
    list_cache_entries,
    read_record,
    record_path,
    write_record,
)
from genbench.data._checksums import EMPTY_SHA256, file_sha256, normalise_sha256, verify_sha256
from genbench.data._download import DownloadLimits, download
from genbench.data._jsonl import validate_jsonl
from genbench.data._local_files import resolve_local_path
from genbench.data._staging import staged_file
from genbench.data._uris import file_uri_path, is_remote, uri_scheme

logger = logging.getLogger(__name__)

__all__ = [
    "CACHE_ENV",
    "DOWNLOADS_SUBDIR",
    "EMPTY_SHA256",
    "HUB_SUBDIR",
    "RECORDS_SUBDIR",
    "CacheEntry",
    "add_to_cache",
    "cache_dir",
    "cached_entry",
    "cached_path",
    "fetch",
    "file_sha256",
    "install_download",
    "is_remote",
    "list_cache_entries",
    "refetch_hint",
    "remove_stale_downloads",
]


def refetch_hint(uri: str) -> str:
    """The command that downloads ``uri`` again, for error messages.

    >>> refetch_hint("https://example.org/test.jsonl")
    'run `genbench-cli data fetch --refresh https://example.org/test.jsonl` to download it again'
    """
    return f"run `genbench-cli data fetch --refresh {uri}` to download it again"


def fetch(
    uri: str,
    *,
    base_dir: str | os.PathLike[str],
    sha256: str | None = None,
    progress: bool = False,
    refresh: bool = False,
    field: str | None = None,
) -> Path:
    """Return a local path to the file at ``uri``, downloading it into the cache if needed.

    A download is validated as JSONL before it enters the cache (complete, parseable, not an HTML page, not
    empty unless ``sha256`` is the empty file's digest) and stays within the limits of
    :class:`~genbench.data._download.DownloadLimits`.

    Args:
        uri: ``https://`` or ``http://`` URI (downloaded once, then served from the cache with no request);
            ``file://`` URI or absolute path (used in place); or a path relative to ``base_dir``.
        base_dir: The task directory; relative paths resolve against it and must stay inside it.
        sha256: Expected SHA-256 of the file (64 hex digits). Downloads, cached copies and local files are
            verified against it; a cached copy that no longer matches is downloaded again.
        progress: Show a tqdm progress bar while downloading.
        refresh: Download again even when the cache has a copy (the copy stays until the new one is valid).
        field: The config field ``uri`` comes from (``data_source.test``), named in error messages.

    Returns:
        The path of the file: the cache entry for a remote URI, the file itself for a local one.

    Raises:
        DataNotFoundError: A local file does not exist.
        ChecksumMismatchError: The file does not match ``sha256`` (a download is not kept).
        DataLoadError: Download failed (HTTP status, unreachable host, truncated body, not JSONL, over the size
            or time limit), unsupported URI scheme, relative path escaping ``base_dir``, malformed ``sha256``.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as task_dir:
    ...     _ = pathlib.Path(task_dir, "test.jsonl").write_text('{"input": "1+1", "target": "2"}\\n')
    ...     fetch("test.jsonl", base_dir=task_dir).name
    'test.jsonl'
    """
    expected = normalise_sha256(uri, sha256)
    scheme = uri_scheme(uri)
    if scheme in ("http", "https"):
        return _fetch_remote(uri, expected=expected, progress=progress, refresh=refresh)
    if scheme == "file":
        path = resolve_local_path(file_uri_path(uri), Path(base_dir), uri, field)
    elif scheme is None:
        path = resolve_local_path(uri, Path(base_dir), uri, field)
    else:
        raise DataLoadError(
            f"Unsupported URI scheme {scheme!r} in {uri!r}: use https://, http://, file:// or a path relative "
            "to the task directory."
        )
    if expected is not None:
        verify_sha256(path, uri, expected)
    return path


def _fetch_remote(uri: str, *, expected: str | None, progress: bool, refresh: bool) -> Path:
    target = cached_path(uri)
    stale_note = None
    entry = None if refresh else cached_entry(uri)
    if entry is not None:
        if expected is None and not entry.verified:
            return _revalidate(uri, target, progress=progress)
        if expected is None:
            return target
        actual = file_sha256(target)
        if actual == expected:
            return target
        logger.warning(
            "Cached copy %s of %s has SHA-256 %s, expected %s; downloading it again.", target, uri, actual, expected
        )
        stale_note = f"the cached copy {target} had SHA-256 {actual} instead of {expected} and was removed"
        forget(target)
    elif not refresh and target.is_file():
        actual = file_sha256(target)
        if read_record(target) is None:
            stale_note = (
                f"the cached file {target} (SHA-256 {actual}) has no record of a complete download (an interrupted "
                "run or an older genbench) and is not used"
            )
        else:
            stale_note = (
                f"the cached copy {target} (SHA-256 {actual}) changed size since it was downloaded and was removed"
            )
            forget(target)
    _download(uri, target, expected=expected, progress=progress, stale_note=stale_note)
    return target


def _revalidate(uri: str, target: Path, *, progress: bool) -> Path:
    """Download again a cached copy whose end could not be checked; without the server, use it with a warning.

    A conditional request (``If-None-Match``) is not enough: a ``304 Not Modified`` says the server's file is
    unchanged, not that the cached copy of it is whole, so it would keep a cut copy forever.
    """
    try:
        _download(uri, target, expected=None, progress=progress, stale_note=None)
    except DataLoadError as exc:
        logger.warning(
            "Using the cached copy %s of %s although it was never verified complete (the server sent no "
            "Content-Length) and could not be downloaded again now: %s Pin its sha256 in the task's config, or run "
            "`genbench-cli data fetch --refresh %s` once the server answers.",
            target,
            uri,
            str(exc).split(". Nothing was cached")[0] + ".",
            uri,
        )
    return target


def _download(uri: str, target: Path, *, expected: str | None, progress: bool, stale_note: str | None) -> None:
    limits = DownloadLimits.from_environment()
    remove_stale_downloads()
    try:
        with staged_file(target) as (out, staged):
            result = download(
                uri, out, limits=limits, progress_label=target.name.split("-", 1)[-1] if progress else None
            )
            if expected is not None and result.sha256 != expected:
                raise ChecksumMismatchError(
                    f"SHA-256 mismatch for {uri}: expected {expected}, got {result.sha256}. The file on the server "
                    "changed since the sha256 was recorded, or the sha256 in the config is wrong"
                )
            out.flush()
            if result.close_delimited and expected is None:
                logger.warning(
                    "%s came without a Content-Length: a body cut at a line boundary would look complete, so it is "
                    "cached as unverified and downloaded again when used online (pin its sha256 to verify it).",
                    uri,
                )
            validate_jsonl(
                staged.read_bytes(),
                source=f"Download of {uri}",
                content_type=result.content_type,
                allow_empty=expected == EMPTY_SHA256,
            )
            # The old record goes before the new file replaces the old one: a crash in between leaves a file
            # without a record, which is never trusted, rather than a new file under the old record.
            record_path(target).unlink(missing_ok=True)
    except DataLoadError as exc:
        raise type(exc)(_with_cache_state(str(exc), uri, target, stale_note)) from exc.__cause__
    write_record(
        uri, target, result.sha256, result.size, "download", verified=not (result.close_delimited and expected is None)
    )
    logger.info("Downloaded %s to %s (%d bytes).", uri, target, result.size)


def _with_cache_state(message: str, uri: str, target: Path, stale_note: str | None) -> str:
    message = message.rstrip(".")
    if stale_note:
        state = stale_note
    elif cached_entry(uri) is not None:
        state = f"the cache keeps its previous copy {target}"
    else:
        state = f"the genbench cache has no copy of it ({target})"
    advice = f"{refetch_hint(uri)[0].upper()}{refetch_hint(uri)[1:]}"
    if "offline" in message:
        advice = (
            f"Run `genbench-cli data fetch --refresh {uri}` on a machine with network access (then `genbench-cli "
            f"data export`/`import`), or `genbench-cli data add {uri} FILE` with a local copy; the cache is "
            f"${CACHE_ENV}"
        )
    return f"{message}. Nothing was cached: {state}. {advice}."
