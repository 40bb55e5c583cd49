"""An interrupted run resumes from the request cache: a real `genbench-cli run` process is killed half-way."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from genbench.cli import cli
from genbench.runs._request_cache import CACHE_FILE, RequestCache
from genbench.runs._results import read_results
from tests.runs.fake_openai import fake_openai_server, kill_cli_after_requests

N = 12  # examples; the runner commits answers in chunks of 4 (concurrency 1)


def _args(url: str, cache: Path, out: Path) -> list[str]:
    return [
        "run", "--model", f"openai:{url}", "--model-args", "model=fake-model,concurrency=1", "--task",
        "arithmetic_length", "--limit", str(N), "--cache-dir", str(cache), "-o", str(out), "--no-progress",
        "--bootstrap-resamples", "50",
    ]  # fmt: skip


def test_killed_run_resumes_without_repeating_cached_requests(tmp_path: Path) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out"
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    with fake_openai_server(delay=0.2) as server:
        kill_cli_after_requests(server, _args(server.url, cache, out), 6, env)
        first_prompts = [r["prompt"] for r in server.requests]
        with sqlite3.connect(cache / CACHE_FILE) as db:
            cached = db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        assert 4 <= cached < N and cached % 4 == 0  # whole chunks only
        assert not list(out.rglob("*.json"))  # no results file from the killed run

        server.requests.clear()
        result = CliRunner().invoke(cli, _args(server.url, cache, out), env=env)
        assert result.exit_code == 0, result.output
        resumed_prompts = [r["prompt"] for r in server.requests]

    # requests run one at a time in order: the first `cached` prompts were answered and stored before the kill
    assert len(resumed_prompts) == N - cached
    assert not set(first_prompts[:cached]) & set(resumed_prompts)
    (results_path,) = out.rglob("arithmetic_length.json")
    document, samples = read_results(results_path)
    assert document["evaluations"][0]["cache"] == {"hits": cached, "computed": N - cached}
    assert len(samples or []) == N


def test_a_corrupted_cache_entry_is_answered_again(tmp_path: Path) -> None:
    cache = RequestCache(tmp_path)
    cache.put_many({"a": "fine", "b": "tampered"})
    with sqlite3.connect(tmp_path / CACHE_FILE) as db:
        db.execute("UPDATE answers SET value = ? WHERE key = 'b'", ('"changed"',))
    assert cache.get_many(["a", "b"]) == {"a": "fine"}
    cache.close()


def test_no_cache_writes_no_cache(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "test-key"}
    with fake_openai_server() as server:
        args = _args(server.url, tmp_path / "cache", tmp_path / "out") + ["--no-cache", "--limit", "2"]
        result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "cache").exists()
    assert "hf_exact_match__exact_match" in result.output
