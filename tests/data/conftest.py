"""Fixtures for the data tests: an isolated genbench cache and a loopback HTTP server that can misbehave."""

from __future__ import annotations

import contextlib
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.loopback import LoopbackServer, QuietHandler, drop_proxies


@pytest.fixture(autouse=True)
def genbench_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty genbench cache for every test (its ``downloads/`` folder holds the fetched files)."""
    cache = tmp_path / "genbench-cache"
    monkeypatch.setenv("GENBENCH_CACHE", str(cache))
    return cache


@dataclass
class FakeServer:
    """State of the loopback server: what it serves, which paths misbehave, and what it was asked."""

    files: dict[str, bytes] = field(default_factory=dict)
    # path -> "404" | "500" | "truncate" (a body shorter than its Content-Length, then the connection closes)
    # | "chunked-cut" (chunked body cut after its first line, without the final chunk)
    # | "no-length" (the body without Content-Length, ended by closing the connection)
    # | "html" (an HTML error page with status 200) | "endless" (valid lines forever) | "drip" (1 byte per 50 ms)
    # | "header-drip" (the headers 1 byte per 50 ms for ~3 s, then the body)
    # | "<fault>-once" (that fault for the first request, then the file).
    faults: dict[str, str] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    base_url: str = ""
    _loopback: LoopbackServer | None = None

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def serve(self, path: str, body: bytes) -> str:
        """Serve ``body`` at ``path``; return its URL."""
        self.files["/" + path.lstrip("/")] = body
        return self.url(path)

    def stop(self) -> None:
        """Shut the server down (a server that went away); the fixture does it at the end anyway."""
        if self._loopback is not None:
            self._loopback.stop()


class _Handler(QuietHandler):
    server_version = "FakeServer/1"

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        state: FakeServer = self.server.state  # type: ignore[attr-defined]
        path = urllib.parse.urlsplit(self.path).path
        state.requests.append(path)
        fault = state.faults.get(path)
        if fault is not None and fault.endswith("-once"):
            del state.faults[path]
            fault = fault[: -len("-once")]
        body = state.files.get(path)
        if fault == "500":
            self.send_error(500, "Internal Server Error")
            return
        if fault == "404" or body is None:
            self.send_error(404, "Not Found")
            return
        if fault in _STREAMING_FAULTS:
            _STREAMING_FAULTS[fault](self, body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/jsonl")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if fault == "truncate":
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)


def _chunked_cut(handler: _Handler, body: bytes) -> None:
    handler.protocol_version = "HTTP/1.1"
    handler.send_response(200)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    first_line = body[: body.index(b"\n") + 1]
    handler.wfile.write(b"%x\r\n%s\r\n" % (len(first_line), first_line))  # and never the final 0-chunk
    handler.wfile.flush()
    handler.close_connection = True


def _no_length(handler: _Handler, body: bytes) -> None:
    handler.send_response(200)  # HTTP/1.0 without Content-Length: the body ends when the connection closes
    handler.send_header("Content-Type", "application/jsonl")
    handler.end_headers()
    handler.wfile.write(body)


def _html(handler: _Handler, body: bytes) -> None:
    page = b"<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head><body>Try later</body></html>\n"
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(page)))
    handler.end_headers()
    handler.wfile.write(page)


def _endless(handler: _Handler, body: bytes) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/jsonl")
    handler.end_headers()
    line = b'{"input": "again", "target": "and again"}\n' * 1000
    with contextlib.suppress(OSError):  # the client hangs up at its limit
        for _ in range(10_000):  # bounded (~400 MB) so that the server stops by itself
            handler.wfile.write(line)


def _drip(handler: _Handler, body: bytes) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/jsonl")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    with contextlib.suppress(OSError):
        for byte in body[:200]:  # bounded: at most 10 s
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(0.05)


def _header_drip(handler: _Handler, body: bytes) -> None:
    """The status line, then one byte of a long header every 50 ms for ~3 s, then the whole body at once."""
    handler.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: application/jsonl\r\n")
    handler.wfile.flush()
    with contextlib.suppress(OSError):  # the client hangs up at its limit
        handler.wfile.write(b"X-Slow: ")
        for _ in range(60):  # bounded: the server ends by itself
            handler.wfile.write(b"a")
            handler.wfile.flush()
            time.sleep(0.05)
        handler.wfile.write(b"\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    handler.close_connection = True


_STREAMING_FAULTS = {
    "chunked-cut": _chunked_cut,
    "no-length": _no_length,
    "html": _html,
    "endless": _endless,
    "drip": _drip,
    "header-drip": _header_drip,
}


@pytest.fixture
def http_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """A threaded HTTP server on 127.0.0.1 (random port); only loopback, so the tests stay offline."""
    drop_proxies(monkeypatch)
    state = FakeServer()
    with LoopbackServer(_Handler, poll_interval=0.02) as server:
        server.httpd.state = state  # type: ignore[attr-defined]
        state.base_url, state._loopback = server.url, server
        yield state
