"""A loopback OpenAI-compatible server for tests (127.0.0.1 only, daemon threads, shut down by its fixture).

Completions answer ``"42\\n\\nQ: more"`` (so the stop string must cut it), or for a multiple-choice prompt the first
listed choice. With ``echo`` and ``logprobs`` it returns fake prompt log-probabilities: the text is split into
tokens by ``\\s*\\S+``, each scoring ``-0.1 * len(token.strip())`` (the first token has none, as real servers).
Faults are scripted by request number: ``faults={1: 429, 2: 500, 3: "slow"}``; ``mutate`` changes every completion
body before it is sent (malformed answers). The API is served under ``/v1`` only (any other path answers 404, as a
URL without the API's path does), ``GET /v1/models`` too unless ``models=False`` (a server that does not list its
models: 404); ``refuse_key = True`` answers every ``GET`` 401 (a wrong API key).
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
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
        mutate: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        models: bool = True,
    ):
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
            def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                with server.lock:
                    server.statuses.append(status)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    self.send_json(status, body, headers)

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
                    return self._send(200, {"id": "x", "object": "chat.completion", "created": 0,
                                            "model": body["model"], "choices": [choice]})  # fmt: skip
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
                self._send(200, server.mutate(answer) if server.mutate else answer)

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


@contextmanager
def fake_openai_server(**options: Any) -> Iterator[FakeServer]:
    server = FakeServer(**options)
    with server.loopback:
        yield server
