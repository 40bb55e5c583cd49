"""The kinds of data URI a config may give: downloaded (``http(s)://``), or read in place (``file://``, a path)."""

from __future__ import annotations

import re
from urllib.parse import unquote

_URI_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def uri_scheme(uri: str) -> str | None:
    """The lowercased scheme of ``uri``, or None for a plain path.

    >>> uri_scheme("HTTPS://example.org/test.jsonl"), uri_scheme("data/test.jsonl")
    ('https', None)
    """
    match = _URI_SCHEME.match(uri)
    return match.group(1).lower() if match else None


def is_remote(uri: str) -> bool:
    """Whether ``uri`` is downloaded into the cache (``http://`` or ``https://``) rather than read in place.

    >>> is_remote("https://example.org/test.jsonl"), is_remote("data/test.jsonl")
    (True, False)
    """
    return uri_scheme(uri) in ("http", "https")


def file_uri_path(uri: str) -> str:
    """The path of a ``file://`` URI.

    The original framework stripped ``file://`` and used the rest as a path, so ``file://data/x.jsonl`` meant the
    relative path ``data/x.jsonl``; that is kept, and ``file:///abs`` and ``file://localhost/abs`` read as RFC 8089.

    >>> file_uri_path("file://data/x.jsonl"), file_uri_path("file://localhost/srv/x%20y.jsonl")
    ('data/x.jsonl', '/srv/x y.jsonl')
    """
    from urllib.request import url2pathname  # urllib.request imports http.client: only for file:// URIs

    rest = uri[len("file://") :]
    if rest.startswith("localhost/"):
        rest = rest[len("localhost") :]
    return url2pathname(rest) if rest.startswith("/") else unquote(rest)
