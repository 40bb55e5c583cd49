"""Data files by URI: remote files downloaded once into a cache, local files used in place.

Remote files (``https://``, ``http://``) are downloaded into ``<cache_dir()>/downloads/``, where
:func:`cache_dir` is ``$GENBENCH_CACHE`` or the user cache directory (``platformdirs``). A download is
written atomically: it streams into a hidden temporary file next to its final name, is checked against the
``Content-Length`` and the expected SHA-256, and only then renamed into place, so an interrupted or
corrupted download never looks like a usable file. A cached file is used without any request, which makes a
task work offline once its data has been fetched.

Local files (plain paths, ``file://`` URIs) are read in place, never copied. Relative paths resolve against
the task directory and must stay inside it, so a submitted task cannot read files elsewhere on the machine
by ``../`` tricks.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import urllib.parse
from pathlib import Path
from typing import IO

from genbench.errors import ChecksumMismatchError, DataLoadError, DataNotFoundError
from genbench.io import atomic_open

logger = logging.getLogger(__name__)

CACHE_ENV = "GENBENCH_CACHE"
"""Environment variable that overrides the cache directory."""

DOWNLOADS_SUBDIR = "downloads"

_CHUNK_BYTES = 1 << 20
_TIMEOUT_S = 60.0
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

    >>> cached_path("https://example.org/data/test.jsonl").name
    '1fb85834eb39ee14-test.jsonl'
    """
    uri_hash = hashlib.sha256(uri.encode("utf-8")).hexdigest()[:16]
    basename = urllib.parse.unquote(urllib.parse.urlsplit(uri).path).rstrip("/").rsplit("/", 1)[-1]
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


def fetch(uri: str, *, base_dir: str | os.PathLike[str], sha256: str | None = None, progress: bool = False) -> Path:
    """Return a local path to the file at ``uri``, downloading it into the cache if needed.

    Args:
        uri: ``https://`` or ``http://`` URI (downloaded once, then served from the cache with no request);
            ``file://`` URI or absolute path (used in place); or a path relative to ``base_dir``.
        base_dir: The task directory; relative paths resolve against it and must stay inside it.
        sha256: Expected SHA-256 of the file (64 hex digits). Downloads, cached copies and local files are
            verified against it; a cached copy that no longer matches is downloaded again.
        progress: Show a tqdm progress bar while downloading.

    Returns:
        The path of the file: the cache entry for a remote URI, the file itself for a local one.

    Raises:
        DataNotFoundError: A local file does not exist.
        ChecksumMismatchError: The file does not match ``sha256`` (a download is not kept).
        DataLoadError: Download failed (HTTP status, unreachable host, truncated body), unsupported URI
            scheme, relative path escaping ``base_dir``, malformed ``sha256``.

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
        return _fetch_remote(uri, expected=expected, progress=progress)
    if scheme == "file":
        path = _resolve_local(_file_uri_path(uri), Path(base_dir), uri)
    elif scheme is None:
        path = _resolve_local(uri, Path(base_dir), uri)
    else:
        raise DataLoadError(
            f"Unsupported URI scheme {scheme!r} in {uri!r}: use https://, http://, file:// or a path relative "
            "to the task directory."
        )
    if expected is not None:
        _verify(path, uri, expected)
    return path


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


def _resolve_local(raw: str, base_dir: Path, uri: str) -> Path:
    candidate = Path(raw)
    if candidate.is_absolute():
        path = candidate
    else:
        root = base_dir.resolve()
        # resolve() follows symlinks too, so a link inside the task directory cannot point outside it.
        path = (root / candidate).resolve()
        if not path.is_relative_to(root):
            raise DataLoadError(
                f"Data path {uri!r} leaves the task directory {root} (it resolves to {path}); relative paths "
                "must stay inside the task directory. Use an absolute path or a file:// URI for data stored "
                "elsewhere."
            )
    if not path.exists():
        error = DataNotFoundError(f"Data file not found: {path}" + (f" (from {uri!r})" if str(path) != uri else ""))
        error.filename = str(path)
        raise error
    if not path.is_file():
        raise DataLoadError(f"Data path {path} is not a file.")
    return path


def _verify(path: Path, uri: str, expected: str) -> None:
    actual = file_sha256(path)
    if actual != expected:
        raise ChecksumMismatchError(
            f"SHA-256 mismatch for {uri} ({path}): expected {expected}, got {actual}. The file changed since "
            "the sha256 was recorded, or the sha256 in the config is wrong."
        )


def _fetch_remote(uri: str, *, expected: str | None, progress: bool) -> Path:
    target = cached_path(uri)
    stale_note = None
    if target.is_file():
        if expected is None:
            return target
        actual = file_sha256(target)
        if actual == expected:
            return target
        logger.warning(
            "Cached copy %s of %s has SHA-256 %s, expected %s; downloading it again.", target, uri, actual, expected
        )
        stale_note = f"the cached copy {target} had SHA-256 {actual} instead of {expected} and was removed"
        target.unlink(missing_ok=True)
    _download(uri, target, expected=expected, progress=progress, stale_note=stale_note)
    return target


def _download(uri: str, target: Path, *, expected: str | None, progress: bool, stale_note: str | None) -> None:
    # atomic_open streams into a hidden temporary file next to `target` and renames it into place only when
    # the block succeeds; any exception (KeyboardInterrupt included) removes the temporary file.
    with atomic_open(target, "wb") as out:
        actual, size, declared_size = _stream(uri, out, progress=progress, target=target, stale_note=stale_note)
        if declared_size is not None and size != declared_size:
            raise DataLoadError(
                f"Download of {uri} is truncated: received {size} of {declared_size} bytes (the connection "
                "closed early); nothing was cached. Try again."
            )
        if expected is not None and actual != expected:
            raise ChecksumMismatchError(
                f"SHA-256 mismatch for {uri}: expected {expected}, got {actual}. The file on the server changed "
                "since the sha256 was recorded, or the sha256 in the config is wrong; nothing was cached."
            )
    logger.info("Downloaded %s to %s (%d bytes).", uri, target, size)


def _stream(
    uri: str, out: IO[bytes], *, progress: bool, target: Path, stale_note: str | None
) -> tuple[str, int, int | None]:
    """Copy the body at ``uri`` into ``out``; return (sha256, bytes received, Content-Length or None)."""
    import http.client  # local: http.client and urllib.request cost ~30 ms to import
    import ssl
    import urllib.error
    import urllib.request

    from genbench import __version__

    request = urllib.request.Request(
        uri, headers={"User-Agent": f"genbench/{__version__}", "Accept-Encoding": "identity"}
    )
    try:
        response = urllib.request.urlopen(request, timeout=_TIMEOUT_S)
    except urllib.error.HTTPError as exc:
        exc.close()
        note = f" ({stale_note})" if stale_note else ""
        raise DataLoadError(f"Could not download {uri}: HTTP {exc.code} {exc.reason}{note}.") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, ssl.SSLError):
            raise DataLoadError(f"Could not download {uri}: TLS error: {reason}.") from exc
        cache_state = stale_note or f"the genbench cache has no copy of it ({target})"
        raise DataLoadError(
            f"Could not download {uri}: {reason}. {cache_state[0].upper()}{cache_state[1:]}, and the host cannot "
            "be reached: the machine looks offline (or the host is down). Run once with network access to fill "
            f"the cache (${CACHE_ENV}), or point the config to a local copy."
        ) from exc

    with response:
        header = response.headers.get("Content-Length")
        declared_size = int(header) if header and header.strip().isdigit() else None
        hasher = hashlib.sha256()
        size = 0
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=declared_size, unit="B", unit_scale=True, desc=target.name.split("-", 1)[-1])
        try:
            while True:
                try:
                    chunk = response.read(_CHUNK_BYTES)
                except (http.client.HTTPException, OSError) as exc:  # TimeoutError is an OSError
                    raise DataLoadError(
                        f"Download of {uri} was interrupted after {size} bytes: {exc!r}; nothing was cached."
                    ) from exc
                if not chunk:
                    break
                out.write(chunk)
                hasher.update(chunk)
                size += len(chunk)
                if bar is not None:
                    bar.update(len(chunk))
        finally:
            if bar is not None:
                bar.close()
    return hasher.hexdigest(), size, declared_size
