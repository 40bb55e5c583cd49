"""Sharded runs: 4 shards (one killed and resumed), merged, write what one process writes; merges that cannot be."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.runs.shard_plan import Shard, deal
from tests.runs.fake_openai import fake_openai_server, kill_cli_after_requests

ENV = {**os.environ, "OPENAI_API_KEY": "test-key", "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
TIMES = re.compile(rb'"(created|run_seconds)": [^,}\n]+')
TIME_BLANKED = rb'"\1": "TIME"'  # still JSON


def _args(url: str, out: Path, *extra: str, limit: int = 8) -> list[str]:
    return [
        "run", "--model", f"openai:{url}", "--model-args", "model=fake-model,concurrency=1",
        "-t", "arithmetic_length", "-t", "category_membership", "--shots", "0,2", "--limit", str(limit),
        "-o", str(out), "--no-progress", "--bootstrap-resamples", "50", *extra,
    ]  # fmt: skip


def _results(out: Path) -> dict[str, bytes]:
    """Every results file and per-sample log under ``out`` (not the shards), with its times blanked."""
    files = sorted(p for p in out.rglob("*") if p.is_file() and "shards" not in p.relative_to(out).parts)
    return {str(p.relative_to(out)): TIMES.sub(TIME_BLANKED, p.read_bytes()) for p in files}


def _invoke(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args, env=ENV)
    assert result.exit_code == 0, result.output
    return result.output


def test_four_shards_one_killed_and_resumed_merge_to_the_files_of_one_process(tmp_path: Path) -> None:
    one, four = tmp_path / "one", tmp_path / "four"
    with fake_openai_server() as server:
        _invoke(_args(server.url, one, "--cache-dir", str(tmp_path / "cache")))
        single_process_requests = len(server.requests)

        server.requests.clear()
        server.delay = 0.2
        kill_cli_after_requests(server, _args(server.url, four, "--shard", "2/4"), 7, ENV)
        server.delay = 0.0
        answered_before_kill = {
            r["prompt"] if isinstance(r["prompt"], str) else r["prompt"][0] for r in server.requests
        }

        for index in (1, 3, 4):
            _invoke(_args(server.url, four, "--shard", f"{index}/4"))
        unfinished = CliRunner().invoke(cli, ["merge-shards", str(four / "shards"), "-o", str(four)], env=ENV)
        assert unfinished.exit_code == 1
        assert "Shard 2/4" in unfinished.output and "did not finish" in unfinished.output

        server.requests.clear()
        _invoke(_args(server.url, four, "--shard", "2/4"))  # resumes from its own cache
        resumed = [r["prompt"] if isinstance(r["prompt"], str) else r["prompt"][0] for r in server.requests]

        server.requests.clear()
        output = _invoke(["merge-shards", str(four / "shards"), "-o", str(four)])
        assert not server.requests  # the merge asks no model

    (shard_two,) = four.glob("shards/*/shard-2-of-4")
    manifest = json.loads((shard_two / "shard.json").read_text())
    assert manifest["complete"] and manifest["requests"] == single_process_requests
    # the resumed shard asked only for what the killed one had not stored (one probe request aside)
    assert 0 < len(resumed) < manifest["share"]
    assert len(set(resumed[1:]) & answered_before_kill) <= 1  # at most the chunk in flight when it was killed
    assert output.count("Wrote ") == 2
    expected, merged = _results(one), _results(four)
    assert sorted(expected) == sorted(merged) and len(expected) == 4  # 2 results files, 2 per-sample logs
    for name, content in expected.items():
        assert merged[name] == content, name


def test_merge_refuses_missing_shards_and_shards_of_different_runs(tmp_path: Path) -> None:
    with fake_openai_server() as server:
        _invoke(_args(server.url, tmp_path / "a", "--shard", "1/2", limit=4))
        _invoke(_args(server.url, tmp_path / "b", "--shard", "2/2", limit=5))
    (a1,) = (tmp_path / "a").glob("shards/*/shard-1-of-2")
    (b2,) = (tmp_path / "b").glob("shards/*/shard-2-of-2")

    missing = CliRunner().invoke(cli, ["merge-shards", str(a1), "-o", str(tmp_path / "out")], env=ENV)
    assert missing.exit_code == 1
    assert "Missing shard 2/2" in missing.output and "--shard 2/2" in missing.output

    mixed = CliRunner().invoke(cli, ["merge-shards", str(a1), str(b2), "-o", str(tmp_path / "out")], env=ENV)
    assert mixed.exit_code == 1
    assert f"{b2} and {a1} are shards of different runs (limit differ)" in mixed.output
    assert not (tmp_path / "out").exists()


def test_shards_are_balanced_by_tokens_and_cover_every_request_once() -> None:
    weights = [(f"k{i}", (i * 7) % 13 + 1) for i in range(40)]
    shares = deal(weights, 4)
    assert sorted(k for share in shares for k in share) == sorted(k for k, _ in weights)
    tokens = dict(weights)
    loads = [sum(tokens[k] for k in share) for share in shares]
    assert max(loads) - min(loads) <= max(tokens.values())
    assert deal(list(reversed(weights)), 4) == shares  # the order the requests come in does not matter


@pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b", "1/0"])
def test_a_shard_is_i_of_n(text: str) -> None:
    with pytest.raises(ValueError, match="expected I/N with 1 <= I <= N"):
        Shard.parse(text)


def test_a_run_sharded_four_ways_then_two_ways_reuses_the_answers_and_merges(tmp_path: Path) -> None:
    one, out = tmp_path / "one", tmp_path / "out"
    cache = tmp_path / "cache"
    with fake_openai_server() as server:
        _invoke(_args(server.url, one, "--cache-dir", str(cache)))
        requests_of_the_run = len(server.requests)
        server.requests.clear()
        for index in (1, 2, 3):  # shard 4/4 never runs: the first attempt is abandoned
            _invoke(_args(server.url, out, "--shard", f"{index}/4"))
        first_attempt = len(server.requests)
        server.requests.clear()
        for index in (1, 2):
            _invoke(_args(server.url, out, "--shard", f"{index}/2"))
        second_attempt = len(server.requests)
        output = _invoke(["merge-shards", str(out / "shards"), "-o", str(out)])  # the complete sharding: 2 ways

    assert output.count("Wrote ") == 2
    # the 2 shards asked only for what the 3 of 4 had not answered (each shard also asks one probe request)
    assert second_attempt <= requests_of_the_run - (first_attempt - 3) + 2
    expected, merged = _results(one), _results(out)
    assert sorted(expected) == sorted(merged)
    hits = 0
    for name, content in expected.items():
        if name.endswith(".samples.jsonl"):
            assert merged[name] == content, name
            continue
        one_document, merged_document = json.loads(content), json.loads(merged[name])
        for evaluation, merged_evaluation in zip(
            one_document["evaluations"], merged_document["evaluations"], strict=True
        ):
            total = evaluation["cache"]["hits"] + evaluation["cache"]["computed"]
            assert merged_evaluation["cache"]["hits"] + merged_evaluation["cache"]["computed"] == total
            hits += merged_evaluation["cache"]["hits"]
            evaluation.pop("cache"), merged_evaluation.pop("cache")
        assert merged_document == one_document  # but the cache counts: the earlier shards' answers are hits
    assert hits > 0

    (four,) = (out / "shards").iterdir()
    mixed = CliRunner().invoke(cli, ["merge-shards", *map(str, sorted(four.iterdir())), "-o", str(out)], env=ENV)
    assert mixed.exit_code == 1 and "The shards split the run 2 ways and 4 ways" in mixed.output
