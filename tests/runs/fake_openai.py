"""A loopback OpenAI-compatible server for tests (127.0.0.1 only, daemon threads, shut down by its fixture).

Completions answer ``"42\\n\\nQ: more"`` (so the stop string must cut it), or for a multiple-choice prompt the first
listed choice. With ``echo`` and ``logprobs`` it returns fake prompt log-probabilities: the text is split into
tokens by ``\\s*\\S+``, each scoring ``-0.1 * len(token.strip())`` (the first token has none, as real servers).
Faults are scripted by request number: ``faults={1: 429, 2: 500, 3: "slow"}``. ``mutate`` changes every completion
and chat completion body before it is sent (malformed answers; returning ``bytes`` sends them as they are),
``headers`` adds or replaces headers of those answers, and ``trickle=0.5`` sends them one byte every 0.5 s (the
headers too with ``trickle_headers``; ``pad`` spaces after the JSON make the body last). The API is served under
``/v1`` only (any other path answers 404, as a URL without the API's path does), ``GET /v1/models`` too unless
``models=False`` (a server that does not list its models: 404); ``refuse_key = True`` answers every ``GET`` 401 (a
wrong API key).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tests.loopback import LoopbackServer, QuietHandler


def fake_token_logprobs(text: str) -> tuple[list[str], list[int], list[float | None]]:
    tokens = re.findall(r"\s*\S+", text)
    offsets, position = [], 0
    for token in tokens:
        offsets.append(position)
        position += len(token)
    values: list[float | None] = [None] + [-0.1 * len(t.strip()) for t in tokens[1:]]
    return tokens, offsets, values


def fake_answer(prompt: str) -> str:
    choices = re.findall(r"^- (.+)$", prompt, flags=re.MULTILINE)
    return f" {choices[0]}\n\nQ:" if choices else "42\n\nQ: more"


class FakeServer:
    def __init__(
        self,
        *,
        logprobs: bool = True,
        faults: dict[int, Any] | None = None,
        delay: float = 0.0,
        mutate: Callable[[dict[str, Any]], dict[str, Any] | bytes] | None = None,
        models: bool = True,
        headers: dict[str, str] | None = None,
        trickle: float = 0.0,
        trickle_headers: bool = False,
        pad: int = 0,
    ):
        self.headers = dict(headers or {})
        self.trickle = trickle
        self.trickle_headers = trickle_headers
        self.pad = pad
        self.logprobs = logprobs
        self.models = models
        self.refuse_key = False  # answer every request 401 (a wrong API key)
        self.mutate = mutate
        self.faults = dict(faults or {})
        self.delay = delay
        self.requests: list[dict[str, Any]] = []
        self.gets: list[str] = []
        self.statuses: list[int] = []
        self.lock = threading.Lock()
        server = self

        class Handler(QuietHandler):
            def _send(
                self, status: int, body: dict[str, Any] | bytes, headers: dict[str, str] | None = None, *,
                completion: bool = False,
            ) -> None:  # fmt: skip
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                with server.lock:
                    server.statuses.append(status)
                if completion and server.trickle:
                    return self._trickle(data)
                try:
                    self.send_response(status)
                    sent = {"Content-Type": "application/json", "Content-Length": str(len(data))}
                    given = {key.lower(): key for key in headers or {}}
                    for key, value in [*[(k, v) for k, v in sent.items() if k.lower() not in given],
                                       *(headers or {}).items()]:  # fmt: skip
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

            def _trickle(self, data: bytes) -> None:
                data += b" " * server.pad
                head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                self.close_connection = True
                try:
                    if not server.trickle_headers:
                        self.wfile.write(head.encode())
                        self.wfile.flush()
                    for byte in (head.encode() if server.trickle_headers else b"") + data:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(server.trickle)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up
                    pass

            def _not_found(self) -> None:
                self._send(404, {"detail": "Not Found"})  # what FastAPI servers (vLLM) answer

            def do_GET(self) -> None:  # noqa: N802
                with server.lock:
                    server.gets.append(self.path)
                if server.refuse_key:
                    return self._send(401, {"error": {"message": "Incorrect API key provided"}})
                if self.path != "/v1/models" or not server.models:
                    return self._not_found()
                self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self.path.startswith("/v1/"):
                    return self._not_found()
                with server.lock:
                    server.requests.append({"path": self.path, **body})
                    number = len(server.requests)
                fault = server.faults.get(number)
                if fault == 429:
                    return self._send(429, {"error": {"message": "slow down"}}, {"retry-after-ms": "20"})
                if fault == 500:
                    return self._send(500, {"error": {"message": "boom"}}, {"retry-after-ms": "20"})
                if fault == "slow":
                    time.sleep(2.0)
                if server.delay:
                    time.sleep(server.delay)
                if self.path.endswith("/chat/completions"):
                    text = fake_answer(body["messages"][-1]["content"])
                    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    answer = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                              "choices": [choice]}  # fmt: skip
                    return self._send(200, server.mutate(answer) if server.mutate else answer, server.headers,
                                      completion=True)  # fmt: skip
                prompt = body["prompt"]
                if body.get("echo"):
                    if not server.logprobs:
                        return self._send(400, {"error": {"message": "echo is not supported"}})
                    tokens, offsets, values = fake_token_logprobs(prompt)
                    logprobs = {"tokens": tokens + ["x"], "text_offset": offsets + [len(prompt)],
                                "token_logprobs": values + [-1.0], "top_logprobs": None}  # fmt: skip
                    text = prompt + "x"
                else:
                    logprobs, text = None, fake_answer(prompt)
                    for stop in body.get("stop") or []:
                        text = text.split(stop, 1)[0]
                choice = {"index": 0, "text": text, "logprobs": logprobs, "finish_reason": "stop"}
                answer = {"id": "x", "object": "text_completion", "created": 0, "model": body["model"],
                          "choices": [choice]}  # fmt: skip
                self._send(200, server.mutate(answer) if server.mutate else answer, server.headers, completion=True)

        self.loopback = LoopbackServer(Handler)
        self.url = f"{self.loopback.url}/v1"

    def generation_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if not r.get("echo")]

    def wait_for_requests(self, count: int, process: subprocess.Popen[Any], timeout: float = 120) -> None:
        """Return once this server has seen ``count`` requests from ``process``, which must still be running then
        (the point at which a test interrupts or kills a run mid-way)."""
        deadline = time.monotonic() + timeout
        while len(self.requests) < count and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert process.poll() is None, "the run ended before it could be interrupted"

    def interrupt_cli_run(
        self, args: list[str], *, after: int, settle: float = 0.0, timeout: float = 60
    ) -> tuple[int, str, str]:
        """Run ``genbench-cli ARGS`` in a process (offline, with an API key), send it SIGINT once this server has seen
        ``after`` requests (and ``settle`` seconds more), and return its exit status, stdout and stderr. A process
        still running ``timeout`` seconds after the signal fails the test (it is killed)."""
        env = {**os.environ, "OPENAI_API_KEY": "test-key", "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
               "TRANSFORMERS_OFFLINE": "1"}  # fmt: skip
        process = subprocess.Popen(
            [sys.executable, "-c", "from genbench.cli import cli; cli()", *args],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            self.wait_for_requests(after, process)
            time.sleep(settle)
            process.send_signal(signal.SIGINT)
            stdout, stderr = process.communicate(timeout=timeout)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
        return process.returncode, stdout, stderr


def kill_cli_after_requests(server: FakeServer, args: list[str], count: int, env: dict[str, str]) -> None:
    """Run ``genbench-cli ARGS`` in a process and kill it (SIGKILL) once ``server`` has seen ``count`` requests."""
    process = subprocess.Popen(
        [sys.executable, "-c", "from genbench.cli import cli; cli()", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        server.wait_for_requests(count, process)
    finally:
        process.kill()
        process.wait(timeout=30)


@contextmanager
def fake_openai_server(**options: Any) -> Iterator[FakeServer]:
    server = FakeServer(**options)
    with server.loopback:
        yield server
