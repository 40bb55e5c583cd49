"""A sharded run with a shift report: the report is part of the run's record, the merge scores the clean subsets and
writes what one process writes; a report missing or changed by the merge is refused."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from tests.contamination.shift_support import arithmetic_length_report
from tests.runs.fake_openai import fake_openai_server

pytest.importorskip("infini_gram")

ENV = {**os.environ, "OPENAI_API_KEY": "test-key", "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
TIMES = re.compile(rb'"(created|run_seconds)": [^,}\n]+')


def _args(url: str, out: Path, report: Path, *extra: str) -> list[str]:
    return [
        "run", "--model", f"openai:{url}", "--model-args", "model=fake-model,concurrency=1", "-t", "arithmetic_length",
        "--limit", "40", "-o", str(out), "--no-progress", "--bootstrap-resamples", "50", "--shift-report",
        str(report), *extra,
    ]  # fmt: skip


def _invoke(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args, env=ENV)
    assert result.exit_code == 0, result.output
    return result.output


def _results(out: Path) -> dict[str, bytes]:
    files = sorted(p for p in out.rglob("*") if p.is_file() and "shards" not in p.relative_to(out).parts)
    return {str(p.relative_to(out)): TIMES.sub(rb'"\1": "TIME"', p.read_bytes()) for p in files}


def test_a_sharded_run_with_a_shift_report_merges_to_the_clean_scores_of_one_process(tmp_path: Path) -> None:
    (tmp_path / "report").mkdir()
    report = arithmetic_length_report(tmp_path / "report", range(0, 40, 2))
    one, two = tmp_path / "one", tmp_path / "two"
    with fake_openai_server() as server:
        _invoke(_args(server.url, one, report, "--cache-dir", str(tmp_path / "cache")))
        for index in (1, 2):
            _invoke(_args(server.url, two, report, "--shard", f"{index}/2"))
        (shard_one,) = two.glob("shards/*/shard-1-of-2")
        recorded = json.loads((shard_one / "shard.json").read_text())["run"]["shift_reports"]
        assert recorded == [
            {"task_id": "arithmetic_length", "file": str(report.resolve()), "sha256": recorded[0]["sha256"]}
        ]
        _invoke(["merge-shards", str(two / "shards"), "-o", str(two)])
    single, merged = _results(one), _results(two)
    assert single == merged and len(merged) == 2
    (path,) = two.rglob("arithmetic_length.json")
    assert ".clean-" in path.parent.name
    (evaluation,) = json.loads(path.read_text())["evaluations"]
    assert (
        evaluation["clean"]["excluded"] >= 20
        and evaluation["clean"]["num_examples"] == 40 - evaluation["clean"]["excluded"]
    )

    # the merge reads the report again: a changed one, or none where the shards recorded it, is refused
    kept = report.read_bytes()
    report.write_bytes(kept.replace(b"{", b"{ ", 1))
    changed = CliRunner().invoke(cli, ["merge-shards", str(two / "shards"), "-o", str(tmp_path / "again")], env=ENV)
    assert changed.exit_code == 1
    assert f"{report.resolve()}, the shift report of 'arithmetic_length', changed since the shards ran" in " ".join(
        changed.output.split()
    )
    shutil.move(report, tmp_path / "moved.json")
    missing = CliRunner().invoke(cli, ["merge-shards", str(two / "shards"), "-o", str(tmp_path / "again")], env=ENV)
    assert missing.exit_code == 1 and "is missing" in missing.output and str(report.resolve()) in missing.output
    assert not (tmp_path / "again").exists()


def test_a_shard_checks_its_report_against_the_task_before_answering(tmp_path: Path) -> None:
    (tmp_path / "report").mkdir()
    report = arithmetic_length_report(tmp_path / "report", range(0, 40, 2))
    document = json.loads(report.read_text())
    examples_file = report.parent / document["examples_file"]
    lines = examples_file.read_text().splitlines()
    examples_file.write_text("\n".join(lines[:-1]) + "\n")  # one example short: no longer the task's test split
    document["examples_sha256"] = hashlib.sha256(examples_file.read_bytes()).hexdigest()
    report.write_text(json.dumps(document))
    with fake_openai_server() as server:
        result = CliRunner().invoke(cli, _args(server.url, tmp_path / "out", report, "--shard", "1/2"), env=ENV)
        assert not server.requests
    assert result.exit_code == 1
    assert f"{report} measured 179 examples, but the test split of 'arithmetic_length' has 180" in " ".join(
        result.output.split()
    )
