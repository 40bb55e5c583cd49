"""Per-sample logs are read once per build, hashed and parsed in the same pass; a log that does not match its
results file's recorded SHA-256 is never used (an error naming both files), also when its results file is stale."""

from __future__ import annotations

import builtins
import hashlib
import io
import json
import os
from collections import Counter
from pathlib import Path

import pytest

import genbench.runs._results
from genbench._leaderboard import build_leaderboard, collect
from genbench._leaderboard.sample_logs import SampleLog, SampleLogs
from genbench.runs._errors import ResultsFileError
from tests.leaderboard.fixtures import write_document


def scores(count: int, ones: int) -> list[float]:
    return [1.0] * ones + [0.0] * (count - ones)


def test_a_build_reads_each_per_sample_log_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for model in ("hf:a", "hf:b"):
        for task in ("t1", "t2"):
            write_document(tmp_path / f"results/{model[3:]}/{task}.json", task, model, scores(20, 7))
    opened: Counter[str] = Counter()

    def counting(real):  # type: ignore[no-untyped-def]
        def wrapper(path, *args, **kwargs):  # type: ignore[no-untyped-def]
            if str(path).endswith(".samples.jsonl"):
                opened[str(Path(path).relative_to(tmp_path))] += 1
            return real(path, *args, **kwargs)

        return wrapper

    # Every way a file is opened: os.open (genbench's strict readers), io.open and open() (Path.open, Python's open).
    monkeypatch.setattr(os, "open", counting(os.open))
    monkeypatch.setattr(io, "open", counting(io.open))
    monkeypatch.setattr(builtins, "open", counting(builtins.open))
    site = build_leaderboard([tmp_path / "results"], tmp_path / "site", resamples=50)
    assert len(site.standings.models) == 2 and all(s.overall.score for s in site.standings.models)
    assert len(opened) == 4 and set(opened.values()) == {1}, opened


def test_the_ranking_uses_the_rows_read_when_collecting(tmp_path: Path) -> None:
    path = write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", scores(10, 3))
    board = collect([tmp_path / "results"])
    log = path.with_name("t1.samples.jsonl")
    log.unlink()  # read already: the ranking does not go back to the file
    (run,) = board.cells[next(iter(board.cells))].runs.values()
    assert board.logs.scores(run.sample_logs[0], 0, "hf_accuracy__accuracy") == scores(10, 3)


def test_a_stale_files_log_of_another_run_is_still_an_error(tmp_path: Path) -> None:
    write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", scores(10, 3), created="2026-02-01T00:00:00+00:00")
    old = write_document(
        tmp_path / "results/old/t1.json", "t1", "hf:a", scores(10, 5), fingerprint="old", seed=1
    )  # an older version of the task: left out as stale
    other = write_document(tmp_path / "elsewhere/t1.json", "t1", "hf:a", scores(10, 9))
    old.with_name("t1.samples.jsonl").write_bytes(other.with_name("t1.samples.jsonl").read_bytes())
    with pytest.raises(ResultsFileError, match=r"old/t1\.json and its per-sample log .* are not from the same run"):
        collect([tmp_path / "results"])


def test_a_log_whose_digest_matches_but_has_a_broken_line_names_the_line(tmp_path: Path) -> None:
    path = write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", scores(4, 2))
    log = path.with_name("t1.samples.jsonl")
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(lines[0] + b'{"shots": 0}\n' + b"".join(lines[2:]))
    document = json.loads(path.read_text())
    document["samples_sha256"] = hashlib.sha256(log.read_bytes()).hexdigest()  # as if written so
    path.write_text(json.dumps(document))
    with pytest.raises(ResultsFileError, match=r"t1\.samples\.jsonl:2: a sample must be an object with 'metrics'"):
        collect([tmp_path / "results"])


def test_an_unused_log_is_checked_not_kept(tmp_path: Path) -> None:
    path = write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", scores(4, 2))
    log = SampleLog.of(json.loads(path.read_text()), path)
    assert log is not None and log.tied
    logs = SampleLogs()
    logs.check(log)
    path.with_name("t1.samples.jsonl").write_text("")  # emptied after the check: rows() reads it now, and refuses it
    with pytest.raises(ResultsFileError, match="not from the same run"):
        logs.rows(log)


def test_read_results_still_checks_the_pairing_with_and_without_samples(tmp_path: Path) -> None:
    path = write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", scores(4, 2))
    path.with_name("t1.samples.jsonl").write_text("")
    for with_samples in (True, False):
        with pytest.raises(ResultsFileError, match="not from the same run"):
            genbench.runs._results.read_results(path, with_samples=with_samples)
