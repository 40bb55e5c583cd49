"""The one HTTP server of the tests' fakes: a threaded ``http.server`` on 127.0.0.1, at a free port, in a thread.

Each fake brings its own request handler, the API it stands in for: the GitHub API (``tests/authoring``), an
OpenAI-compatible server (``tests/runs/fake_openai.py``), Elasticsearch (``tests/contamination/es_recorder.py``) and
a file server that can misbehave (``tests/data/conftest.py``). Only loopback, so the tests stay offline.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
"""Environment variables of a proxy, which would intercept requests to 127.0.0.1."""


def drop_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset the proxy variables for the test, so that its requests reach the loopback server."""
    for variable in PROXY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


class LoopbackServer:
    """``with LoopbackServer(Handler) as server:`` serves ``Handler`` at ``server.url`` until the block ends.

    ``server.httpd`` is the ``ThreadingHTTPServer`` (handlers reach it as ``self.server``); ``stop()`` shuts it down
    early, as a server that went away (stopping twice is harmless).
    """

    def __init__(self, handler: type[BaseHTTPRequestHandler], *, poll_interval: float = 0.05) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": poll_interval}, name="loopback", daemon=True
        )
        self._running = False

    def start(self) -> LoopbackServer:
        self._thread.start()
        self._running = True
        return self

    def stop(self) -> None:
        if self._running:
            self._running = False
            self.httpd.shutdown()
            self.httpd.server_close()
            self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing (clean test output) and answers JSON with :meth:`send_json`."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        pass

    def send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        """Answer ``status`` with ``body`` as JSON (``bytes`` are sent as they are), its length and ``headers``."""
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
