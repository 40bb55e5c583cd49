"""Streaming one HTTP(S) body into a file, within limits on size and time
(:class:`~genbench._core.errors.DataLoadError` past them), accepting only a body that ends cleanly. urllib rather
than a third-party client: one GET with a deadline and byte counting needs no other dependency. See
docs/data.md#the-download-cache.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from typing import IO, Any

from genbench._core.errors import DataLoadError
from genbench._core.progress import progress_bar
from genbench._core.urls import redact_url
from genbench._core.version import VERSION

MAX_BYTES_ENV = "GENBENCH_MAX_DOWNLOAD_BYTES"
"""Environment variable: the largest download accepted, in bytes."""
TIMEOUT_ENV = "GENBENCH_DOWNLOAD_TIMEOUT"
"""Environment variable: the longest a whole download may take, in seconds."""

DEFAULT_MAX_BYTES = 5 * 1024**3
DEFAULT_TIMEOUT_S = 3600.0
IDLE_TIMEOUT_S = 60.0
"""A server silent this long (or for the total timeout, when shorter) fails the download."""

_CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class DownloadLimits:
    """Bounds of one download: total bytes and total seconds."""

    max_bytes: int
    timeout_s: float

    @classmethod
    def from_environment(cls) -> DownloadLimits:
        """The limits set by ``$GENBENCH_MAX_DOWNLOAD_BYTES`` and ``$GENBENCH_DOWNLOAD_TIMEOUT``, else the defaults.

        Raises:
            DataLoadError: A variable is set to something that is not a positive number.

        >>> DownloadLimits.from_environment() == DownloadLimits(DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_S)
        True
        """
        return cls(
            max_bytes=int(_positive_number(MAX_BYTES_ENV, DEFAULT_MAX_BYTES, integer=True)),
            timeout_s=_positive_number(TIMEOUT_ENV, DEFAULT_TIMEOUT_S, integer=False),
        )


def _positive_number(variable: str, default: float, *, integer: bool) -> float:
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        value = -1
    if not value > 0 or value == float("inf"):
        kind = "a positive whole number of bytes" if integer else "a positive number of seconds"
        raise DataLoadError(f"${variable} must be {kind}, got {raw!r}; unset it to use the default ({default:g}).")
    return value


@dataclass(frozen=True)
class DownloadResult:
    """What :func:`download` received."""

    sha256: str
    size: int
    declared_size: int | None
    content_type: str
    close_delimited: bool = False
    """Neither ``Content-Length`` nor chunked: the body ended when the connection closed, so a cut at a line boundary
    cannot be told from the end (the cache keeps such a download as unverified)."""


def download(uri: str, out: IO[bytes], *, limits: DownloadLimits, progress_label: str | None = None) -> DownloadResult:
    """Stream the body at ``uri`` into ``out``, checking that it is complete and within ``limits``.

    Args:
        uri: An ``http://`` or ``https://`` URI.
        out: Binary file the body is written to.
        limits: Size and time bounds.
        progress_label: Show a tqdm progress bar with this label.

    Returns:
        The body's digest and size, the declared ``Content-Length`` (or None) and the ``Content-Type``.

    Raises:
        DataLoadError: HTTP error status, unreachable host, body over the size limit, transfer over the time
            limit, connection closed or reset before the body was complete. Messages name ``uri``; callers add
            the cache path and how to retry.
    """
    import http.client  # local: http.client and urllib.request cost ~30 ms to import
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + limits.timeout_s
    shown = redact_url(uri)  # messages never print a password given in the URL
    request = urllib.request.Request(uri, headers={"User-Agent": f"genbench/{VERSION}", "Accept-Encoding": "identity"})
    try:
        response = _deadline_opener(deadline).open(request, timeout=_wait_for(deadline))
    except urllib.error.HTTPError as exc:
        exc.close()
        raise DataLoadError(f"Could not download {shown}: HTTP {exc.code} {exc.reason}.") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        if _timed_out(exc) and time.monotonic() >= deadline:
            raise _too_slow(shown, limits, 0, "before the response headers were complete") from None
        raise _unreachable(shown, exc) from exc

    with response:
        chunked = bool(getattr(response, "chunked", False))
        header = response.headers.get("Content-Length")
        declared_size = int(header) if header and header.strip().isdigit() else None
        content_type = response.headers.get("Content-Type", "")
        if declared_size is not None and declared_size > limits.max_bytes:
            raise DataLoadError(
                f"Download of {shown} refused: the server announces {declared_size} bytes, more than the limit of "
                f"{limits.max_bytes} bytes (${MAX_BYTES_ENV})."
            )
        hasher = hashlib.sha256()
        size = 0
        bar = None
        if progress_label is not None:
            bar = progress_bar(total=declared_size, unit="B", unit_scale=True, desc=progress_label)
        try:
            while True:
                try:
                    # read1 returns what one socket read gives, so the deadline is checked even on a drip.
                    chunk = response.read1(_CHUNK_BYTES)
                except (http.client.HTTPException, OSError) as exc:  # TimeoutError is an OSError
                    if _timed_out(exc) and time.monotonic() >= deadline:
                        raise _too_slow(shown, limits, size, "") from None
                    raise DataLoadError(
                        f"Download of {shown} was interrupted after {size} bytes ({_describe(exc)})."
                    ) from exc
                if not chunk:
                    break
                size += len(chunk)
                if size > limits.max_bytes:
                    raise DataLoadError(
                        f"Download of {shown} stopped: the body passed the limit of {limits.max_bytes} bytes "
                        f"(${MAX_BYTES_ENV}); raise the limit if the file really is that large."
                    )
                out.write(chunk)
                hasher.update(chunk)
                if bar is not None:
                    bar.update(len(chunk))
                if time.monotonic() > deadline:
                    raise _too_slow(shown, limits, size, "")
        finally:
            if bar is not None:
                bar.close()
    if declared_size is not None and size != declared_size:
        raise DataLoadError(
            f"Download of {shown} is truncated: received {size} of {declared_size} bytes (the connection closed "
            "early)."
        )
    return DownloadResult(hasher.hexdigest(), size, declared_size, content_type, declared_size is None and not chunked)


def _too_slow(uri: str, limits: DownloadLimits, size: int, when: str) -> DataLoadError:
    where = f" {when}" if when else f" with {size} bytes received"
    return DataLoadError(
        f"Download of {uri} stopped after {limits.timeout_s:g} s (${TIMEOUT_ENV}){where}: the server is too slow "
        "or the body never ends."
    )


def _timed_out(exc: BaseException) -> bool:
    """Whether an error (or the one urllib wrapped in ``URLError.reason``) is a socket timeout."""
    return isinstance(exc, TimeoutError) or isinstance(getattr(exc, "reason", None), TimeoutError)


def _wait_for(deadline: float) -> float:
    """How long the next socket operation may wait: the time left, at most :data:`IDLE_TIMEOUT_S`.

    Raises:
        TimeoutError: the deadline has passed.
    """
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the download's time limit has passed")
    return min(left, IDLE_TIMEOUT_S)


def _deadline_opener(deadline: float) -> Any:
    """A urllib opener (proxies, redirects and TLS as usual) whose connections wait at most until ``deadline``.

    urllib gives a connection one fixed timeout per socket operation, so a server that sends one byte of its headers
    every few seconds would never trip it; here each read of the status line, headers and body first sets the
    socket's timeout to the time left (:func:`_wait_for`). The standard handlers are kept and only their connection
    class is wrapped, since urllib has no hook for the socket reads of a response.
    """
    import http.client
    import io
    import urllib.request

    class DeadlineReader(io.RawIOBase):
        """The response's socket reads, each within the time left."""

        def __init__(self, sock: Any) -> None:
            super().__init__()
            self._sock = sock
            self._raw = sock.makefile("rb", buffering=0)  # counts as a user of the socket, as http.client's does

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int | None:
            self._sock.settimeout(_wait_for(deadline))
            read: int | None = self._raw.readinto(buffer)
            return read

        def close(self) -> None:
            self._raw.close()
            super().close()

    class DeadlineResponse(http.client.HTTPResponse):
        def __init__(self, sock: Any, *args: Any, **kwargs: Any) -> None:
            super().__init__(sock, *args, **kwargs)
            self.fp.close()
            self.fp = io.BufferedReader(DeadlineReader(sock))

    def with_deadline(connection_class: type[http.client.HTTPConnection]) -> Any:
        def connect(host: str, **kwargs: Any) -> http.client.HTTPConnection:
            kwargs["timeout"] = _wait_for(deadline)  # connecting, the TLS handshake and sending the request
            connection = connection_class(host, **kwargs)
            connection.response_class = DeadlineResponse
            return connection

        return connect

    class DeadlineHTTPHandler(urllib.request.HTTPHandler):
        def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
            return super().do_open(with_deadline(http_class), req, **kwargs)

    class DeadlineHTTPSHandler(urllib.request.HTTPSHandler):
        def do_open(self, http_class: Any, req: Any, **kwargs: Any) -> Any:
            return super().do_open(with_deadline(http_class), req, **kwargs)

    return urllib.request.build_opener(DeadlineHTTPHandler, DeadlineHTTPSHandler)


def _describe(exc: BaseException) -> str:
    import http.client

    if isinstance(exc, http.client.IncompleteRead):
        return "the connection closed before the last chunk of the body"
    if isinstance(exc, TimeoutError):
        return "the server sent nothing for too long"
    return f"{type(exc).__name__}: {exc}"


def _unreachable(uri: str, exc: BaseException) -> DataLoadError:
    import ssl

    reason = redact_url(str(getattr(exc, "reason", exc)))
    if isinstance(getattr(exc, "reason", exc), ssl.SSLError):
        return DataLoadError(f"Could not download {uri}: TLS error: {reason}.")
    return DataLoadError(
        f"Could not download {uri}: {reason}. The host cannot be reached: the machine looks offline (or the host "
        "is down)."
    )
