"""``openai:`` against a real OpenAI-compatible server: ``transformers serve`` (transformers' own, the ``serving``
extra) on 127.0.0.1 with a tiny chat model, against the ``hf:`` runner on the same model and prompts.

- ``/completions``: greedy generations equal the ``hf:`` runner's;
- ``/chat/completions`` with ``--apply-chat-template``: the server applies the model's template to the same messages,
  and the generations equal those of ``hf:`` with the template;
- log-likelihoods: ``transformers serve`` returns no prompt log-probabilities (it ignores ``echo`` and
  ``logprobs``), so multiple choice falls back to generation (``multiple_choice_method: "generation"``), and those
  generations equal the ``hf:`` runner's.

Skipped, saying why, only where the serving extra is not installed (``pip install 'genbench[dev]'`` installs it).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from genbench.runs._chat import ChatSettings
from genbench.runs._execute import run_model_on_task
from genbench.runs._hf import HFCausalLMRunner
from genbench.runs._openai import OpenAIRunner
from genbench.runs._scoring import BootstrapSettings
from genbench.runs._tiny_model import CHAT_TEMPLATE
from genbench.runs.specs import parse_model_spec
from tests.runs.plain_tasks import plain_task

FAST = BootstrapSettings(resamples=20, statistic_resamples=5)
HF_ARGS = "device=cpu,dtype=float32,batch_size=4"
PROMPTS = ["Q: 12 + 40\nA:", "the", "write one word per answer, separated by commas:\n", "1 + 2 = ", "("]


def _serve_command() -> list[str]:
    for module in ("fastapi", "uvicorn"):
        try:
            __import__(module)
        except ImportError:
            pytest.skip(
                f"transformers' serving extra is not installed ({module} is missing): "
                "pip install 'transformers[serving]' (part of genbench's dev extra)"
            )
    # the `transformers` command, run by this python (a venv that reuses another's packages has no script of its own)
    main = "import sys; from transformers.cli.transformers import main; sys.exit(main())"
    return [sys.executable, "-c", main, "serve"]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The parity test's byte-level BPE GPT-2 with the tiny chat model's template. Not the word-level tiny models:
    ``transformers serve`` cuts at stop strings with transformers' ``StopStringCriteria``, which fails on a word-level
    vocabulary ("substring not found", HTTP 500), as the ``hf:`` runner's docstring says."""
    from tests.runs.test_lmeval_parity import tiny_gpt2_bpe

    path = tiny_gpt2_bpe(tmp_path_factory.mktemp("tiny-gpt2-bpe-chat"))
    (path / "chat_template.jinja").write_text(CHAT_TEMPLATE, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server(model: Path) -> Iterator[str]:
    """``transformers serve MODEL`` on a free port of 127.0.0.1, until the module's tests are done: its base URL."""
    command = _serve_command()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen(
        [*command, str(model), "--host", "127.0.0.1", "--port", str(port), "--device", "cpu",
         "--dtype", "float32"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    output = process.communicate(timeout=5)[0] if process.poll() is not None else ""
                    pytest.fail(f"transformers serve did not start (exit {process.poll()}):\n{output[-3000:]}")
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _openai(url: str, served: Path, api: str) -> OpenAIRunner:
    return OpenAIRunner(parse_model_spec(f"openai:{url}", f"model={served},api={api},concurrency=1"))


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")


def test_completions_generations_equal_the_hf_runners(server: str, model: Path) -> None:
    hf = HFCausalLMRunner(parse_model_spec(f"hf:{model}", HF_ARGS))
    ours = _openai(server, model, "completions").generate(PROMPTS, max_new_tokens=8, stop=None)
    assert ours == hf.generate(PROMPTS, max_new_tokens=8, stop=None)
    assert len(set(ours)) > 1 and all(ours)  # real, varied texts
    cut = _openai(server, model, "completions").generate(PROMPTS, max_new_tokens=8, stop="|")
    assert cut == hf.generate(PROMPTS, max_new_tokens=8, stop="|")


def test_chat_completions_with_the_template_equal_the_hf_runners(server: str, model: Path) -> None:
    chat = ChatSettings("default", "Be brief.")
    options = {"shots": [0, 2], "limit": 4, "max_new_tokens": 8, "use_cache": False, "bootstrap": FAST, "chat": chat}
    task = plain_task("arithmetic_length")
    served = run_model_on_task(task, _openai(server, model, "chat"), **options)  # type: ignore[arg-type]
    local = run_model_on_task(task, f"hf:{model}", model_args=HF_ARGS, **options)  # type: ignore[arg-type]
    ours = [s["raw_output"] for s in served.samples]
    assert ours == [s["raw_output"] for s in local.samples]
    assert len(ours) == 8 and any(text.strip() for text in ours)


def test_multiple_choice_falls_back_to_generation_equal_to_the_hf_runners(server: str, model: Path) -> None:
    task = plain_task("category_membership")
    served = run_model_on_task(task, _openai(server, model, "completions"), limit=4, max_new_tokens=6,
                               use_cache=False, bootstrap=FAST)  # fmt: skip
    assert served.document["evaluations"][0]["multiple_choice_method"] == "generation"  # no prompt log-probabilities
    prompts = [s["prompt"] for s in served.samples]
    hf = HFCausalLMRunner(parse_model_spec(f"hf:{model}", HF_ARGS))
    stop = task.config.prompt_builder.stop_string or None
    assert [s["raw_output"] for s in served.samples] == hf.generate(prompts, max_new_tokens=6, stop=stop)
