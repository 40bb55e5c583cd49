"""Where genbench's cache lives: its root (``$GENBENCH_CACHE`` or the user cache directory), its folders, the file a
downloaded URI is kept in, and the sweep of temporaries that killed runs left there.

The cache's entries (records of validated files) are :mod:`genbench.data._cache_records`; downloading into it is
:func:`genbench.data._cache.fetch`.
"""

from __future__ import annotations

import hashlib
import os
import re
import urllib.parse
from pathlib import Path

from genbench._core.errors import DataLoadError
from genbench.data._staging import remove_stale_temporaries

CACHE_ENV = "GENBENCH_CACHE"
"""Environment variable that overrides the cache directory."""

DOWNLOADS_SUBDIR = "downloads"
RECORDS_SUBDIR = "download-records"
"""Per cached file, a JSON record (URI, SHA-256, size) written only once the file was validated."""

HUB_SUBDIR = "hf"
"""Hub datasets saved by genbench (see :mod:`genbench.data._hub`)."""

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
    """Where :func:`~genbench.data._cache.fetch` keeps the download of ``uri``.

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


def remove_stale_downloads() -> list[Path]:
    """Remove temporary files and folders that killed runs left in the cache (see :mod:`genbench.data._staging`).

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
