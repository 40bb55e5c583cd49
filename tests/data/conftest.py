"""Fixtures for the data tests: an isolated genbench cache and a loopback HTTP server that can misbehave."""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


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
    faults: dict[str, str] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    base_url: str = ""
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def serve(self, path: str, body: bytes) -> str:
        """Serve ``body`` at ``path``; return its URL."""
        self.files["/" + path.lstrip("/")] = body
        return self.url(path)

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(timeout=5)
            self._httpd = None


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeServer/1"

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        state: FakeServer = self.server.state  # type: ignore[attr-defined]
        path = urllib.parse.urlsplit(self.path).path
        state.requests.append(path)
        fault = state.faults.get(path)
        body = state.files.get(path)
        if fault == "500":
            self.send_error(500, "Internal Server Error")
            return
        if fault == "404" or body is None:
            self.send_error(404, "Not Found")
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

    def log_message(self, format: str, *args: object) -> None:  # keep the test output clean
        pass


@pytest.fixture
def http_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """A threaded HTTP server on 127.0.0.1 (random port); only loopback, so the tests stay offline."""
    for variable in _PROXY_VARIABLES:  # a proxy would intercept loopback requests
        monkeypatch.delenv(variable, raising=False)
    state = FakeServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    httpd.state = state  # type: ignore[attr-defined]
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    state._httpd = httpd
    state._thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-http-server", daemon=True
    )
    state._thread.start()
    yield state
    state.stop()
