"""Sharded runs: 4 shards (one killed and resumed), merged, write what one process writes (chat runs too); merges
that cannot be."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import genbench
from genbench.cli import cli
from genbench.runs._chat import ChatSettings
from genbench.runs._shard_merge import merge_shards
from genbench.runs._shard_plan import Shard, deal
from tests.runs.fake_openai import fake_openai_server, kill_cli_after_requests

ENV = {**os.environ, "OPENAI_API_KEY": "test-key", "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
TIMES = re.compile(rb'"(created|run_seconds)": [^,}\n]+')
TIME_BLANKED = rb'"\1": "TIME"'  # still JSON


def _args(url: str, out: Path, *extra: str, limit: int = 8, model_args: str = "") -> list[str]:
    return [
        "run", "--model", f"openai:{url}", "--model-args", f"model=fake-model,concurrency=1{model_args}",
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


CHAT = ("--apply-chat-template", "--system-instruction", "Answer with a number or a word.")


def test_a_chat_run_sharded_two_ways_merges_to_the_files_of_one_process(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    with fake_openai_server() as server:
        _invoke(_args(server.url, one, *CHAT, "--cache-dir", str(tmp_path / "cache"), model_args=",api=chat"))
        asked_by_one = sorted(json.dumps(r["messages"]) for r in server.requests)
        server.requests.clear()
        for index in (1, 2):
            _invoke(_args(server.url, two, *CHAT, "--shard", f"{index}/2", model_args=",api=chat"))
        asked_by_shards = [json.dumps(r["messages"]) for r in server.requests]
        server.requests.clear()
        output = _invoke(["merge-shards", str(two / "shards"), "-o", str(two)])
        assert not server.requests  # the merge asks no model

        # shards of the same run without the chat settings are another run
        _invoke(_args(server.url, tmp_path / "plain", "--shard", "2/2", model_args=",api=chat"))

    # the shards asked the conversations one process asks (each of the first asked by both shards' probes aside)
    assert set(asked_by_shards) == set(asked_by_one) and len(asked_by_shards) <= len(asked_by_one) + 2
    assert output.count("Wrote ") == 2
    expected, merged = _results(one), _results(two)
    assert sorted(expected) == sorted(merged) and len(expected) == 4
    assert all(".chat-" in name for name in expected)
    for name, content in expected.items():
        assert merged[name] == content, name
    (chat_shard,) = two.glob("shards/*/shard-1-of-2")
    assert json.loads((chat_shard / "shard.json").read_text())["run"]["chat"] == {
        "template": "default", "template_sha256": None, "system_instruction": CHAT[2], "fewshot_as_multiturn": None,
    }  # fmt: skip

    (plain_shard,) = (tmp_path / "plain").glob("shards/*/shard-2-of-2")
    mixed = CliRunner().invoke(cli, ["merge-shards", str(chat_shard), str(plain_shard), "-o", str(tmp_path / "x")])
    assert mixed.exit_code == 1
    assert f"{plain_shard} and {chat_shard} are shards of different runs (chat differ)" in mixed.output
    assert not (tmp_path / "x").exists()


def test_a_chat_run_of_a_local_model_merges_with_its_shards_renderings(tiny_gpt2_chat: Path, tmp_path: Path) -> None:
    # batch_size=1: a batch of other requests (another shard's mix) may change float results in the last bits
    options: dict = dict(
        model=f"hf:{tiny_gpt2_chat}", tasks=["arithmetic_length", "category_membership"],
        model_args="device=cpu,dtype=float32,batch_size=1", shots=[0, 2], limit=3, max_new_tokens=4,
        bootstrap_resamples=20, chat=ChatSettings("default", "Be brief.", None),
    )  # fmt: skip
    genbench.evaluate(**options, output_dir=tmp_path / "one", cache_dir=tmp_path / "cache")
    for index in (1, 2):
        genbench.evaluate(**options, output_dir=tmp_path / "two", shard=f"{index}/2")
    (run_folder,) = (tmp_path / "two" / "shards").iterdir()
    renders = json.loads((run_folder / "shard-1-of-2" / "chat.json").read_text())["renders"]
    # the template's texts (the merge loads no tokenizer)
    assert renders and all(str(text).startswith("<s><|system|>\nBe brief.") for text in renders.values())

    merged = merge_shards([run_folder], tmp_path / "two")

    assert [r.document["run_identity"]["chat"]["system_instruction"] for r in merged] == ["Be brief."] * 2
    expected, written = _results(tmp_path / "one"), _results(tmp_path / "two")
    assert sorted(expected) == sorted(written) and len(expected) == 4
    for name, content in expected.items():
        assert written[name] == content, name


def test_a_chat_run_with_an_unprompted_task_keys_each_tasks_answers_as_planned(
    tiny_gpt2_chat: Path, tmp_path: Path
) -> None:
    # an unprompted (reranking) task planned last leaves no chat record on the runner: the shards must still answer
    # the chat tasks' requests under their chat record, or the merge finds none of them
    options: dict = dict(
        model=f"hf:{tiny_gpt2_chat}", tasks=["arithmetic_length", "passage_reranking_shift"],
        model_args="device=cpu,dtype=float32,batch_size=1", shots=[0], limit=3, max_new_tokens=4,
        bootstrap_resamples=20, chat=ChatSettings("default", None, None),
    )  # fmt: skip
    genbench.evaluate(**options, output_dir=tmp_path / "one", cache_dir=tmp_path / "cache")
    for index in (1, 2):
        genbench.evaluate(**options, output_dir=tmp_path / "two", shard=f"{index}/2")
    (run_folder,) = (tmp_path / "two" / "shards").iterdir()

    merged = merge_shards([run_folder], tmp_path / "two")

    assert sorted(r.document["task"]["id"] for r in merged) == ["arithmetic_length", "passage_reranking_shift"]
    expected, written = _results(tmp_path / "one"), _results(tmp_path / "two")
    assert sorted(expected) == sorted(written) and len(expected) == 4
    for name, content in expected.items():
        assert written[name] == content, name


def test_a_password_in_the_server_url_is_written_to_no_shard_file(tmp_path: Path) -> None:
    two = tmp_path / "two"
    with fake_openai_server() as server:
        url = server.url.replace("http://", "http://user:s3cret-pw@")
        for index in (1, 2):
            _invoke(_args(url, two, "--shard", f"{index}/2", limit=3))
        assert server.requests  # the server was asked, through the URL with its password
    output = _invoke(["merge-shards", str(two / "shards"), "-o", str(two)])

    assert output.count("Wrote ") == 2
    written = [p for p in two.rglob("*") if p.is_file()]
    assert any(p.name == "shard.json" for p in written) and any(p.name.endswith(".sqlite") for p in written)
    assert [p for p in written if b"s3cret-pw" in p.read_bytes()] == []
    (shard,) = two.glob("shards/*/shard-1-of-2")
    assert json.loads((shard / "shard.json").read_text())["run"]["model_spec"].startswith("openai:http://user:***@")
