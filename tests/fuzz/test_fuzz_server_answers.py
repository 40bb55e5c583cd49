"""Fuzzed answers of an OpenAI-compatible server (bodies, headers, timing): a run succeeds with text answers or raises
a GenBenchError, and a run that fails has cached nothing.

The loopback fake server of ``tests/runs`` answers every completion with what a case draws: a valid completion body
structurally mutated (values replaced, keys dropped or added, lists wrapped), JSON of any shape, bytes that are not
JSON (cut short, another encoding, binary), with headers that lie (content type, length, encoding, chunked framing),
sometimes one byte at a time, headers included. Each case runs one generation task (``/completions`` or
``/chat/completions``) or one multiple-choice task (prompt log-probabilities, falling back to generation).
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from genbench import load_task
from genbench.runs._execute import run_model_on_task
from genbench.runs._request_cache import CACHE_FILE
from genbench.runs._scoring import BootstrapSettings
from genbench.runs.specs import parse_model_spec
from tests.runs.fake_openai import FakeServer, fake_openai_server, fake_token_logprobs

from .harness import FUZZ, dumps, encoded, genbench_error_or_success, json_values, mutated

FAST = BootstrapSettings(resamples=10, statistic_resamples=5)
TIMEOUT = 1.0  # seconds per request attempt: the trickled cases end by it

COMPLETION = {
    "id": "x",
    "object": "text_completion",
    "created": 0,
    "model": "fake-model",
    "choices": [{"index": 0, "text": "42", "logprobs": None, "finish_reason": "stop"}],
}
CHAT = {
    "id": "x",
    "object": "chat.completion",
    "created": 0,
    "model": "fake-model",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "42"}, "finish_reason": "stop"}],
}
_tokens, _offsets, _values = fake_token_logprobs("Q: Which is a fruit?\nA: apple")
ECHO = {
    **COMPLETION,
    "choices": [
        {
            "index": 0,
            "text": "Q: Which is a fruit?\nA: applex",
            "logprobs": {"tokens": _tokens, "text_offset": _offsets, "token_logprobs": _values, "top_logprobs": None},
            "finish_reason": "length",
        }
    ],
}

HEADERS = [
    {},
    {},
    {"Content-Type": "text/plain"},
    {"Content-Type": "text/html; charset=utf-8"},
    {"Content-Type": "application/json; charset=latin-1"},
    {"Content-Type": "application/json; charset=no-such-charset"},
    {"Content-Type": ""},
    {"Content-Encoding": "gzip"},
    {"Content-Encoding": "br"},
    {"Transfer-Encoding": "chunked"},
    {"Content-Length": "0"},
    {"Content-Length": "3"},
    {"Content-Length": "100000"},
    {"Content-Length": "-1"},
    {"Content-Length": "abc"},
    {"Retry-After": "100000"},
    {"X-Request-Id": "\u00e9"},
]


@st.composite
def server_answers(draw: st.DrawFn, template: dict[str, Any]) -> dict[str, Any]:
    """What the server does for one case: its body, headers and timing."""
    kind = draw(st.sampled_from(["mutated", "mutated", "mutated", "json", "bytes", "cut"]))
    body: dict[str, Any] | bytes
    if kind == "mutated":
        body = draw(mutated(template, max_mutations=4))
    elif kind == "json":
        body = dumps(draw(json_values)).encode("utf-8", errors="surrogatepass")
    elif kind == "bytes":
        body = draw(encoded(dumps(draw(mutated(template, max_mutations=2)))) | st.binary(max_size=64))
    else:
        text = json.dumps(template).encode()
        body = text[: draw(st.integers(0, len(text) - 1))]
    timing = draw(st.sampled_from(["now", "now", "now", "trickle", "trickle-headers"]))
    return {
        "body": body,
        "headers": draw(st.sampled_from(HEADERS)),
        "trickle": 0.0 if timing == "now" else draw(st.sampled_from([0.002, 0.01, 0.05])),
        "trickle_headers": timing == "trickle-headers",
    }


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with fake_openai_server() as fake:
        yield fake


def _cached(cache: Path) -> int:
    if not (cache / CACHE_FILE).exists():
        return 0
    with sqlite3.connect(cache / CACHE_FILE) as db:
        return int(db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])


def _case(server: FakeServer, answer: dict[str, Any], task_id: str, api: str, name: str) -> None:
    from genbench.runs._openai import OpenAIRunner

    body = answer["body"]
    server.mutate = lambda _: body
    server.headers = answer["headers"]
    server.trickle, server.trickle_headers = answer["trickle"], answer["trickle_headers"]
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)

        def run() -> None:
            spec = parse_model_spec(f"openai:{server.url}", f"api={api},concurrency=2,max_retries=0,timeout={TIMEOUT}")
            task_run = run_model_on_task(load_task(task_id), OpenAIRunner(spec), limit=1, cache_dir=cache,
                                         bootstrap=FAST)  # fmt: skip
            assert all(isinstance(s["raw_output"], (str, dict)) for s in task_run.samples)

        try:
            outcome = genbench_error_or_success(name, run)
        finally:
            server.mutate, server.headers, server.trickle = None, {}, 0.0
        if outcome == "error":
            assert _cached(cache) == 0, "a run that failed on a broken answer cached answers"


@FUZZ
@given(answer=server_answers(COMPLETION))
def test_fuzzed_completion_answers(server: FakeServer, answer: dict[str, Any]) -> None:
    _case(server, answer, "arithmetic_length", "completions", "server completions")


@FUZZ
@given(answer=server_answers(CHAT))
def test_fuzzed_chat_answers(server: FakeServer, answer: dict[str, Any]) -> None:
    _case(server, answer, "arithmetic_length", "chat", "server chat")


@FUZZ
@given(answer=server_answers(ECHO))
def test_fuzzed_prompt_logprob_answers(server: FakeServer, answer: dict[str, Any]) -> None:
    _case(server, answer, "category_membership", "completions", "server logprobs")
