"""Data files by URI: remote files downloaded once into a cache, local files used in place.

Remote files (``https://``, ``http://``) are downloaded into ``<cache_dir()>/downloads/``, where
:func:`cache_dir` is ``$GENBENCH_CACHE`` or the user cache directory (``platformdirs``). A download is
written atomically: it streams into a hidden temporary file next to its final name, is checked (complete body,
size and time limits, expected SHA-256, valid JSONL), and only then renamed into place, with a record of its URI,
SHA-256 and size in ``<cache_dir()>/download-records/``; a file without its record is never trusted. So an
interrupted, truncated or corrupted download never looks like a usable file. A cached file is used without any
request, which makes a task work offline once its data has been fetched (``genbench-cli data fetch``).

Local files (plain paths, ``file://`` URIs) are read in place, never copied. Relative paths resolve against
the task directory and must stay inside it, so a submitted task cannot read files elsewhere on the machine
by ``../`` tricks.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genbench.core.errors import ChecksumMismatchError, DamagedFileError, DataLoadError, DataNotFoundError
from genbench.core.files import write_json_atomic
from genbench.core.json_files import read_json_file
from genbench.data.download import DownloadLimits, download
from genbench.data.jsonl import validate_jsonl
from genbench.data.staging import remove_stale_temporaries, staged_file

logger = logging.getLogger(__name__)

CACHE_ENV = "GENBENCH_CACHE"
"""Environment variable that overrides the cache directory."""

DOWNLOADS_SUBDIR = "downloads"
RECORDS_SUBDIR = "download-records"
"""Per cached file, a JSON record (URI, SHA-256, size) written only once the file was validated."""

HUB_SUBDIR = "hf"
"""Hub datasets saved by genbench (see :mod:`genbench.data.hub`)."""

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
"""The SHA-256 of an empty file: pinning it declares a split empty, the one case where an empty body is kept."""

_CHUNK_BYTES = 1 << 20
_URI_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def cache_dir() -> Path:
    """The root of genbench's cache: ``$GENBENCH_CACHE`` if set, else the user cache directory.

    Downloads live in its ``downloads/`` subfolder. The directory is not created here.

    Returns:
        The cache root.

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"GENBENCH_CACHE": "/tmp/genbench-cache"}):
    ...     cache_dir()
    PosixPath('/tmp/genbench-cache')
    """
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("genbench"))


def cached_path(uri: str) -> Path:
    """Where :func:`fetch` keeps the download of ``uri``.

    The name joins a hash of the full URI (so different URIs never collide, even with the same basename)
    and the URI's own basename (so a person browsing the cache can tell the files apart).

    Args:
        uri: An ``https://`` or ``http://`` URI.

    Returns:
        The path inside ``<cache_dir()>/downloads/``; it exists only once the file has been downloaded.

    Raises:
        DataLoadError: ``uri`` cannot be parsed as a URL.

    >>> cached_path("https://example.org/data/test.jsonl").name
    '1fb85834eb39ee14-test.jsonl'
    """
    try:
        uri_hash = hashlib.sha256(uri.encode("utf-8")).hexdigest()[:16]
        basename = urllib.parse.unquote(urllib.parse.urlsplit(uri).path).rstrip("/").rsplit("/", 1)[-1]
    except ValueError as exc:  # urlsplit: "Invalid IPv6 URL"; encode: a lone surrogate
        raise DataLoadError(f"{uri!r} is not a valid URL ({exc}).") from None
    basename = _UNSAFE_NAME_CHARS.sub("_", basename).lstrip(".")[:100] or "download"
    return cache_dir() / DOWNLOADS_SUBDIR / f"{uri_hash}-{basename}"


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 digest of a file, as the 64 lowercase hex digits a config's ``sha256`` expects.

    Args:
        path: The file.

    Returns:
        The hex digest (the same as ``sha256sum FILE``).

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     file = pathlib.Path(tmp, "empty.jsonl")
    ...     _ = file.write_bytes(b"")
    ...     file_sha256(file)
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    """
    hasher = hashlib.sha256()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(_CHUNK_BYTES), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def refetch_hint(uri: str) -> str:
    """The command that downloads ``uri`` again, for error messages.

    >>> refetch_hint("https://example.org/test.jsonl")
    'run `genbench-cli data fetch --refresh https://example.org/test.jsonl` to download it again'
    """
    return f"run `genbench-cli data fetch --refresh {uri}` to download it again"


def is_remote(uri: str) -> bool:
    """Whether ``uri`` is downloaded into the cache (``http://`` or ``https://``) rather than read in place.

    >>> is_remote("https://example.org/test.jsonl"), is_remote("data/test.jsonl")
    (True, False)
    """
    match = _URI_SCHEME.match(uri)
    return match is not None and match.group(1).lower() in ("http", "https")


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
            cut at a line boundary looks complete) and whose sha256 was not pinned: :func:`fetch` downloads it again
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
    :func:`fetch` downloads it again.
    """
    path = cached_path(uri)
    record = _read_record(path)
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


def _record_path(path: Path) -> Path:
    return cache_dir() / RECORDS_SUBDIR / f"{path.name}.json"


def _read_record(path: Path) -> dict[str, Any] | None:
    try:  # a damaged record (cut short, NaN, nested, a FIFO) means the file is not trusted: downloaded again
        record = read_json_file(_record_path(path), what="download record", max_bytes=1 << 20)
    except (OSError, DamagedFileError):
        return None
    return record if isinstance(record, dict) else None


def _write_record(uri: str, path: Path, sha256: str, size: int, origin: str, *, verified: bool = True) -> CacheEntry:
    record: dict[str, Any] = {"uri": uri, "sha256": sha256, "size": size, "origin": origin}
    if not verified:
        record["verified"] = False
    write_json_atomic(_record_path(path), record)
    return CacheEntry(uri, path, sha256, size, origin, verified)


def _forget(path: Path) -> None:
    _record_path(path).unlink(missing_ok=True)
    path.unlink(missing_ok=True)


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
    :class:`~genbench.data.download.DownloadLimits`.

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
    expected = _normalise_sha256(uri, sha256)
    match = _URI_SCHEME.match(uri)
    scheme = match.group(1).lower() if match else None
    if scheme in ("http", "https"):
        return _fetch_remote(uri, expected=expected, progress=progress, refresh=refresh)
    if scheme == "file":
        path = _resolve_local(_file_uri_path(uri), Path(base_dir), uri, field)
    elif scheme is None:
        path = _resolve_local(uri, Path(base_dir), uri, field)
    else:
        raise DataLoadError(
            f"Unsupported URI scheme {scheme!r} in {uri!r}: use https://, http://, file:// or a path relative "
            "to the task directory."
        )
    if expected is not None:
        _verify(path, uri, expected)
    return path


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
    expected = _normalise_sha256(uri, sha256)
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
        _record_path(target).unlink(missing_ok=True)
    return _write_record(uri, target, actual, len(data), origin)


def install_download(uri: str, staged: Path, sha256: str, size: int, origin: str) -> CacheEntry:
    """Move a verified file (``staged``, on the cache's file system) into the cache as the copy of ``uri``."""
    target = cached_path(uri)
    target.parent.mkdir(parents=True, exist_ok=True)
    _record_path(target).unlink(missing_ok=True)
    os.replace(staged, target)
    return _write_record(uri, target, sha256, size, origin)


def remove_stale_downloads() -> list[Path]:
    """Remove temporary files and folders that killed runs left in the cache (see :mod:`genbench.data.staging`).

    Runs once per process and cache directory before the first download; returns what it removed.
    """
    root = cache_dir()
    if root in _swept:
        return []
    _swept.add(root)
    # the root itself holds `data import`'s scratch folders (.scratch.<random>.tmp), not descended into here
    removed = remove_stale_temporaries(root, recursive=False)
    for subdir in (DOWNLOADS_SUBDIR, RECORDS_SUBDIR, HUB_SUBDIR):
        removed += remove_stale_temporaries(root / subdir)
    return removed


_swept: set[Path] = set()


def _normalise_sha256(uri: str, sha256: str | None) -> str | None:
    if sha256 is None:
        return None
    digest = sha256.strip().lower()
    if not _SHA256.match(digest):
        raise DataLoadError(f"{uri}: sha256 must be 64 hexadecimal digits, got {sha256!r}.")
    return digest


def _file_uri_path(uri: str) -> str:
    # The original framework stripped "file://" and used the rest as a path, so "file://data/x.jsonl" meant
    # the relative path "data/x.jsonl"; keep that, and read "file:///abs" and "file://localhost/abs" as RFC 8089.
    import urllib.request

    rest = uri[len("file://") :]
    if rest.startswith("localhost/"):
        rest = rest[len("localhost") :]
    return urllib.request.url2pathname(rest) if rest.startswith("/") else urllib.parse.unquote(rest)


def _resolve_local(raw: str, base_dir: Path, uri: str, field: str | None) -> Path:
    candidate = Path(raw)
    where = f"{field}: " if field else ""
    if candidate.is_absolute():
        path = candidate
    else:
        root = base_dir.resolve()
        # resolve() follows symlinks too, so a link inside the task directory cannot point outside it.
        path = (root / candidate).resolve()
        if not path.is_relative_to(root):
            raise DataLoadError(
                f"{where}data path {uri!r} leaves the task directory {root} (it resolves to {path}); relative "
                "paths must stay inside the task directory. Use an absolute path or a file:// URI for data stored "
                "elsewhere."
            )
    try:
        exists = path.exists()
    except OSError as exc:  # e.g. a name longer than the file system allows
        shown = uri if len(uri) <= 200 else uri[:200] + "..."
        raise DataLoadError(f"{where}data path {shown!r} cannot be used: {exc.strerror or exc}.") from None
    if not exists:
        origin = f" (from {uri!r})" if str(path) != uri else ""
        fix = (
            f"relative paths resolve against the task directory {base_dir.resolve()}"
            if not candidate.is_absolute()
            else "the path is absolute"
        )
        raise DataNotFoundError(
            f"{where}{'d' if field else 'D'}ata file not found: {path}{origin}. Create the file, or correct "
            f"{field or 'the data path'} in config.jsonnet ({fix}).",
            filename=str(path),
        )
    if not path.is_file():
        raise DataLoadError(f"{where}data path {path} is not a file.")
    return path


def _verify(path: Path, uri: str, expected: str) -> None:
    actual = file_sha256(path)
    if actual != expected:
        raise ChecksumMismatchError(
            f"SHA-256 mismatch for {uri} ({path}): expected {expected}, got {actual}. The file changed since "
            "the sha256 was recorded, or the sha256 in the config is wrong."
        )


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
        _forget(target)
    elif not refresh and target.is_file():
        actual = file_sha256(target)
        if _read_record(target) is None:
            stale_note = (
                f"the cached file {target} (SHA-256 {actual}) has no record of a complete download (an interrupted "
                "run or an older genbench) and is not used"
            )
        else:
            stale_note = (
                f"the cached copy {target} (SHA-256 {actual}) changed size since it was downloaded and was removed"
            )
            _forget(target)
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
            _record_path(target).unlink(missing_ok=True)
    except DataLoadError as exc:
        raise type(exc)(_with_cache_state(str(exc), uri, target, stale_note)) from exc.__cause__
    _write_record(
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
