"""Messages of `genbench-cli run` that name the fix: a missing hf: directory, an unreachable openai: server, Ctrl-C."""

from __future__ import annotations

import socket
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.cli._run import interrupted_message
from genbench.runs._errors import ModelSpecError
from genbench.runs._hf import HFCausalLMRunner, check_cached_hub_id, looks_like_path
from genbench.runs._request_cache import CACHE_FILE, RequestCache
from genbench.runs.specs import parse_model_spec
from tests.runs.fake_openai import fake_openai_server
from tests.runs.hub_cache import cache_hub_model

OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def _run(args: list[str], tmp_path: Path) -> Any:
    env = {**OFFLINE, "OPENAI_API_KEY": "test-key"}
    arguments = ["run", *args, "--task", "arithmetic_length", "-o", str(tmp_path / "out")]
    return CliRunner().invoke(cli, arguments, env=env)


def test_a_missing_hf_directory_says_so_and_how_to_use_a_hub_id(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir"
    result = _run(["--model", f"hf:{missing}"], tmp_path)
    assert result.exit_code == 1
    assert f"no such directory: {missing}" in result.output
    assert "hf:gpt2" in result.output and "HF_HUB_OFFLINE" in result.output
    assert "Repo id must be in the form" not in result.output


def test_a_file_given_as_hf_directory_is_not_a_directory(tmp_path: Path) -> None:
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"")
    with pytest.raises(ModelSpecError, match="not a directory"):
        HFCausalLMRunner(parse_model_spec(f"hf:{weights}"))


def test_a_directory_without_config_json_is_not_a_model_directory(tmp_path: Path) -> None:
    # transformers failed instead: "You need to have sentencepiece or tiktoken installed ..." (hf:), "Unrecognized
    # model in ... Should have a `model_type` key in its config.json" (cross-encoder:, sentence-transformers:)
    from genbench.runs._rerank import PairScorerRunner

    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelSpecError, match=r"^hf:.*empty holds no config.json, so it is not a model directory"):
        HFCausalLMRunner(parse_model_spec(f"hf:{tmp_path / 'empty'}"))
    for kind in ("cross-encoder", "sentence-transformers"):
        with pytest.raises(ModelSpecError, match=rf"^{kind}:.*empty holds no config.json") as raised:
            PairScorerRunner(parse_model_spec(f"{kind}:{tmp_path / 'empty'}"))
        assert "make-tiny" not in str(raised.value)  # it writes a GPT-2, not a pair scorer


def test_hub_ids_are_not_taken_for_paths() -> None:
    assert not looks_like_path("gpt2") and not looks_like_path("openai-community/gpt2")
    assert looks_like_path("/no/such/dir") and looks_like_path("./gpt2") and looks_like_path("models/org/name")


def test_an_org_name_spec_that_is_neither_a_directory_nor_cached_names_both_readings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: hf:models/gpt2 (a relative directory that does not exist) was only read as a hub id.
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    monkeypatch.chdir(tmp_path)
    result = _run(["--model", "hf:models/gpt2"], tmp_path)
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert f"no directory models/gpt2 relative to the working directory {tmp_path}" in output
    assert "hf:./models/gpt2" in output  # the fix for the directory reading
    assert "no cached hub model models/gpt2 and the hub is offline (HF_HUB_OFFLINE=1)" in output
    assert "hf download models/gpt2" in output  # the fix for the hub reading


def test_a_cached_hub_id_passes_the_offline_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    cache = cache_hub_model(tmp_path / "hub-cache", "org/name")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    check_cached_hub_id("org/name", None)  # cached: left to transformers
    with pytest.raises(ModelSpecError, match="no cached hub model org/other"):
        check_cached_hub_id("org/other", None)
    (tmp_path / "org" / "other").mkdir(parents=True)
    check_cached_hub_id("org/other", None)  # an existing directory is not a hub id


def test_an_org_name_spec_the_online_hub_does_not_know_names_both_readings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import transformers

    def not_on_the_hub(target: str, **kwargs: Any) -> Any:  # what transformers raises for an unknown repository
        raise OSError(f"{target} is not a local folder and is not a valid model identifier listed on the Hub")

    for variable in OFFLINE:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", not_on_the_hub)
    monkeypatch.setattr("genbench.runs._hf_hub.hub_unreachable", lambda endpoint: None)  # the hub answers
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelSpecError) as caught:
        HFCausalLMRunner(parse_model_spec("hf:models/gpt2"))
    message = str(caught.value)
    assert "no directory models/gpt2 relative to the working directory" in message
    assert "the hub has no model models/gpt2" in message and "check the id" in message


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_openai_server_is_named_with_its_password_redacted(tmp_path: Path) -> None:
    port = _free_port()  # bound, then released: nobody listens there
    result = _run(["--model", f"openai:http://user:s3cret@127.0.0.1:{port}/v1", "--no-cache"], tmp_path)
    assert result.exit_code == 1
    assert f"openai:http://user:***@127.0.0.1:{port}/v1: cannot reach the server" in result.output
    assert "s3cret" not in result.output
    assert "Check that it is running" in result.output


class _HangingUpServer:
    """A port that accepts connections and closes them at once, without an HTTP answer; counts the connections."""

    def __init__(self) -> None:
        self.connections = 0
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen()
        self._socket.settimeout(0.1)
        self.port = int(self._socket.getsockname()[1])
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._socket.accept()
            except OSError:  # the accept timed out: look at the stop flag again
                continue
            self.connections += 1
            connection.close()

    def __enter__(self) -> _HangingUpServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._socket.close()


def test_the_openai_preflight_is_one_request_without_retries(tmp_path: Path) -> None:
    with _HangingUpServer() as server:
        url = f"http://127.0.0.1:{server.port}/v1"
        # with max_retries=5 the client would try 6 times, with back-off, for each request after the pre-flight
        result = _run(["--model", f"openai:{url}", "--model-args", "model=m,max_retries=5", "--no-cache"], tmp_path)
    assert result.exit_code == 1
    assert f"openai:{url}: cannot reach the server" in result.output
    assert server.connections == 1


def test_ctrl_c_exits_130_saying_what_is_cached_and_that_rerunning_resumes(tmp_path: Path) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out"
    with fake_openai_server(delay=0.2) as server:
        args = [
            "run", "--model", f"openai:{server.url}", "--model-args", "model=fake-model,concurrency=1", "--task",
            "arithmetic_length", "--limit", "12", "--cache-dir", str(cache), "-o", str(out), "--no-progress",
        ]  # fmt: skip
        # the marker: the server has seen the 6th request, so the first chunk of 4 answers is committed
        returncode, stdout, stderr = server.interrupt_cli_run(args, after=6)
    with sqlite3.connect(cache / CACHE_FILE) as db:
        cached = db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    assert returncode == 130, stderr
    assert cached >= 4
    assert f"Interrupted. {cached} answers are in the request cache ({cache / CACHE_FILE})" in stderr
    assert "rerunning the same command resumes" in stderr
    assert "Aborted!" not in stderr + stdout and "Traceback" not in stderr
    assert not list(out.rglob("*.json"))


def test_the_interruption_message_counts_the_cached_answers_or_says_nothing_was_cached(tmp_path: Path) -> None:
    assert "Nothing was cached (--no-cache): rerunning the same command starts over" in interrupted_message(None)
    assert interrupted_message(tmp_path / "empty").startswith("Interrupted. 0 answers are in the request cache")
    cache = RequestCache(tmp_path / "cache")
    cache.put_many({"a": 1.0})
    cache.close()
    assert interrupted_message(tmp_path / "cache").startswith("Interrupted. 1 answer is in the request cache")
