"""A first model with no download (``models make-tiny``), and genbench's own message when the Hub is out of reach."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.runs._errors import ModelRunError
from genbench.runs._hf_hub import hub_load_mode
from tests.runs.hub_cache import cache_hub_model

GENBENCH_CLI = str(Path(sys.executable).parent / "genbench-cli")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_make_tiny_writes_a_model_that_run_takes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(cli, ["models", "make-tiny", "models/tiny-gpt2"])
    assert made.exit_code == 0, made.output
    assert "--model hf:./models/tiny-gpt2" in made.stdout
    assert (tmp_path / "models" / "tiny-gpt2" / "config.json").is_file()
    assert (tmp_path / "models" / "tiny-gpt2" / "tokenizer.json").is_file()
    ran = CliRunner().invoke(
        cli,
        ["run", "--model", "hf:./models/tiny-gpt2", "--task", "category_membership", "--limit", "4",
         "--output-dir", "results"],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    (results,) = (tmp_path / "results").rglob("category_membership.json")
    assert json.loads(results.read_text(encoding="utf-8"))["run_identity"]["model_spec"] == "hf:./models/tiny-gpt2"

    again = CliRunner().invoke(cli, ["models", "make-tiny", "models/tiny-gpt2"])
    assert again.exit_code == 2 and "is not empty" in again.output


def test_an_unreachable_hub_is_genbench_s_message_not_transformers(tmp_path: Path) -> None:
    # Regression: without HF_HUB_OFFLINE, `run -m hf:gpt2` offline retried for about 30 s and printed transformers'
    # "We couldn't connect to 'https://huggingface.co'".
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    env = {k: v for k, v in os.environ.items() if k not in {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"}}
    env.update({"HF_ENDPOINT": endpoint, "HF_HOME": str(tmp_path / "hf_home")})
    command = [GENBENCH_CLI, "run", "--model", "hf:gpt2", "--task", "category_membership", "--limit", "2",
               "--output-dir", str(tmp_path / "results")]  # fmt: skip
    process = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert process.returncode == 1
    output = " ".join(process.stderr.split())
    assert f"Error: hf:gpt2: the Hugging Face Hub ({endpoint}) cannot be reached" in output
    assert "not in the Hub cache" in output and "hf download gpt2" in output
    assert "genbench-cli models make-tiny" in output
    assert "couldn't connect" not in output and "Retry" not in output


def test_the_offline_hub_without_the_model_in_its_cache_says_how_to_get_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        cli, ["run", "--model", "hf:gpt2", "--task", "category_membership", "--output-dir", "results"],
        env={"HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert "hf:gpt2: the Hugging Face Hub is offline (HF_HUB_OFFLINE=1) and gpt2 is not in the Hub cache" in output
    assert "genbench-cli models make-tiny" in output


def test_a_cached_model_is_read_from_the_cache_when_the_hub_is_out_of_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    cache = cache_hub_model(tmp_path / "hub-cache", "gpt2")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    for variable in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.chdir(tmp_path)
    assert hub_load_mode("gpt2", None) is True  # local_files_only: no retries against the unreachable Hub
    with pytest.raises(ModelRunError, match="cannot be reached"):
        hub_load_mode("distilgpt2", None)
    (tmp_path / "distilgpt2").mkdir()
    assert hub_load_mode("distilgpt2", None) is False  # a local directory: the Hub is not asked
