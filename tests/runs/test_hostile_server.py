"""A hostile or broken OpenAI-compatible server (issue 31): a body that trickles in, Ctrl-C while one does, malformed
completions (``"text": null``, choices out of order, a 200 that is not JSON). Each is a deadline or a broken answer:
nothing is cached, no results file is written, and the message names the server, the task and the request."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from genbench import load_task
from genbench.cli import cli
from genbench.runs._errors import ModelAnswerError, ModelRunError
from genbench.runs._execute import run_model_on_task
from genbench.runs._request_cache import CACHE_FILE
from genbench.runs._scoring import BootstrapSettings
from genbench.runs.specs import parse_model_spec
from tests.runs.fake_openai import fake_openai_server

FAST = BootstrapSettings(resamples=50, statistic_resamples=10)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")


def _runner(url: str, args: str = "max_retries=0") -> Any:
    from genbench.runs._openai import OpenAIRunner

    return OpenAIRunner(parse_model_spec(f"openai:{url}", f"concurrency=1,{args}"))


@pytest.mark.parametrize("trickle_headers", [False, True], ids=["body", "headers-and-body"])
def test_an_answer_that_trickles_in_ends_at_the_wall_clock_deadline(trickle_headers: bool) -> None:
    # one byte every 0.25 s: each read is well within the timeout, the whole answer (~60 s) is far beyond it
    with fake_openai_server(trickle=0.25, pad=60, trickle_headers=trickle_headers) as server:
        runner = _runner(server.url, "timeout=2,max_retries=0")
        with pytest.raises(ModelRunError, match=rf"openai:{server.url}: APITimeoutError: Request timed out") as error:
            run_model_on_task(load_task("arithmetic_length"), runner, limit=1, use_cache=False, bootstrap=FAST)
    assert "no complete answer within the request's 2 seconds" in repr(error.value.__cause__.__cause__)


def test_a_timed_out_attempt_is_retried_as_any_timeout() -> None:
    with fake_openai_server(trickle=0.25, pad=60) as server:
        runner = _runner(server.url, "timeout=1,max_retries=1")
        with pytest.raises(ModelRunError, match="APITimeoutError"):
            run_model_on_task(load_task("arithmetic_length"), runner, limit=1, use_cache=False, bootstrap=FAST)
    assert len(server.requests) == 2


def test_ctrl_c_ends_a_run_whose_requests_hang_with_status_130(tmp_path: Path) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out"
    # an answer that would take hours; the default timeout (120 s) is far away
    with fake_openai_server(trickle=0.5, pad=20_000) as server:
        args = [
            "run", "--model", f"openai:{server.url}", "--model-args", "model=fake-model,concurrency=2", "--task",
            "arithmetic_length", "--limit", "4", "--cache-dir", str(cache), "-o", str(out), "--no-progress",
        ]  # fmt: skip
        # both workers are inside a request that trickles in; on a hang the process is killed and the test fails
        returncode, _, stderr = server.interrupt_cli_run(args, after=2, settle=0.5)
    assert returncode == 130, stderr
    assert "Interrupted. 0 answers are in the request cache" in stderr and "Traceback" not in stderr
    assert not list(out.rglob("*.json"))


def _null_text(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "choices": [{**body["choices"][0], "text": None}]}


def _null_chat_content(body: dict[str, Any]) -> dict[str, Any]:
    choice = body["choices"][0]
    return {**body, "choices": [{**choice, "message": {**choice["message"], "content": None}}]}


@pytest.mark.parametrize(
    ("api", "mutate", "message"),
    [
        ("completions", _null_text, r"answered choices\[0\]\.text = None \(NoneType\): expected a str"),
        ("chat", _null_chat_content, r"answered choices\[0\]\.message\.content = None \(NoneType\): expected a str"),
        (
            "completions",
            lambda body: b'{"choices": [{"index": 0, "text": "4',
            r"was answered by openai:\S+ with HTTP 200 and a body that is not JSON \(JSONDecodeError: Unterminated",
        ),
        (
            "completions",
            lambda body: {**body, "choices": [{**body["choices"][0], "index": 1}, {**body["choices"][0], "index": 2}]},
            r"was answered with 2 choices of indices \[1, 2\]: expected one choice of index 0",
        ),
    ],
    ids=["text-null", "chat-content-null", "invalid-json", "no-choice-0"],
)
def test_a_malformed_completion_is_a_broken_answer_not_cached_not_written(
    api: str, mutate: Any, message: str, tmp_path: Path
) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out"
    with fake_openai_server(mutate=mutate) as server:
        args = ["run", "--model", f"openai:{server.url}", "--model-args", f"concurrency=1,max_retries=0,api={api}",
                "-t", "arithmetic_length", "--limit", "3", "--cache-dir", str(cache), "-o", str(out),
                "--no-progress"]  # fmt: skip
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    prefix = rf"Error: Model openai:{server.url}, task 'arithmetic_length' \(0-shot\): 'generate' request \d \(prompt "
    assert re.match(prefix + r"'Add the two numbers.*'\) " + message, result.output), result.output
    with sqlite3.connect(cache / CACHE_FILE) as db:
        assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 0
    assert not out.exists() or not list(out.rglob("*.json"))


def test_a_200_that_is_not_json_to_a_loglikelihood_request_names_the_request() -> None:
    with fake_openai_server(mutate=lambda body: b"<html>busy</html>") as server:
        runner = _runner(server.url)
        with pytest.raises(ModelAnswerError) as error:
            run_model_on_task(load_task("category_membership"), runner, limit=1, use_cache=False, bootstrap=FAST)
    assert re.match(
        rf"Model openai:{server.url}, task 'category_membership' \(0-shot\): 'loglikelihood' request \d \(context "
        rf"'.*', continuation '.*'\) was answered by openai:{server.url} with HTTP 200 and a body that is not JSON",
        str(error.value),
    ), str(error.value)


def test_choices_listed_out_of_order_are_taken_by_their_index() -> None:
    def two_choices(body: dict[str, Any]) -> dict[str, Any]:
        right = body["choices"][0]
        return {**body, "choices": [{**right, "index": 1, "text": "7"}, right]}

    with fake_openai_server(mutate=two_choices) as server:
        task_run = run_model_on_task(
            load_task("arithmetic_length"), _runner(server.url), limit=2, use_cache=False, bootstrap=FAST
        )
    assert [sample["raw_output"] for sample in task_run.samples] == ["42", "42"]  # index 0's text, not the first's


def test_a_broken_answer_message_never_shows_a_password_in_the_server_url() -> None:
    with fake_openai_server(mutate=_null_text) as server:
        url = server.url.replace("http://", "http://user:Sup3r-secret@")
        with pytest.raises(ModelAnswerError, match=r"answered choices\[0\]\.text = None") as error:
            run_model_on_task(load_task("arithmetic_length"), _runner(url), limit=1, use_cache=False, bootstrap=FAST)
    assert "Sup3r-secret" not in str(error.value)


def test_an_httpx_that_keeps_its_connections_otherwise_is_refused_not_run_without_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the deadline wraps the network backend of httpx's connection pool (private attributes): a release laid out
    # otherwise must stop the run with a clear message, not run it with no deadline at all
    from genbench.runs import _http_deadline

    transport = _http_deadline.DeadlineTransport(3.0)
    assert isinstance(transport._pool._network_backend, _http_deadline._DeadlineBackend)  # type: ignore[attr-defined]

    original_init = _http_deadline.httpx.HTTPTransport.__init__

    def init_without_backend(self: Any, **options: Any) -> None:
        original_init(self, **options)
        self._pool = object()  # type: ignore[assignment]

    monkeypatch.setattr(_http_deadline.httpx.HTTPTransport, "__init__", init_without_backend)
    with pytest.raises(RuntimeError, match="per-request deadline of openai: runs cannot be set"):
        _http_deadline.DeadlineTransport(3.0)
