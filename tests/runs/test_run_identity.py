"""Results files are identified by what they are: different seeds, shots or limits sit side by side; rerunning the
same run replaces its file and says so; nothing is overwritten silently (issue 18)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench._leaderboard.collect import find_results_files
from genbench.cli import cli
from genbench.runs._execute import run
from genbench.runs._results import read_results, results_path, run_identity, save_results, settings_folder
from genbench.runs._scoring import BootstrapSettings

PREDICTOR = """
def first_option(requests, task, **options):
    if task == "loglikelihood":
        return [0.0 if c.strip() == requests[0][1].strip() else -1.0 for _, c in requests]
    if task == "generate":
        return ["1" for _ in requests]
    raise NotImplementedError
"""
FAST = BootstrapSettings(resamples=50, statistic_resamples=10)


@pytest.fixture
def spec(tmp_path: Path) -> str:
    (tmp_path / "predictor.py").write_text(PREDICTOR)
    return f"python:{tmp_path / 'predictor.py'}:first_option"


def _run(spec: str, out: Path, task_id: str = "category_membership", **options):
    (task_run,) = run(spec, task_id, output_dir=out, bootstrap=FAST, **options)
    return task_run


def test_different_seeds_shots_and_limits_sit_side_by_side(spec: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    runs = [
        _run(spec, out, seed=1, limit=8),
        _run(spec, out, seed=2, limit=8),
        _run(spec, out, seed=1, limit=8, shots=[0, 1]),
        _run(spec, out, seed=1, limit=9),
    ]
    paths = [r.results_path for r in runs]
    assert len(set(paths)) == 4 and all(p.is_file() for p in paths) and all(r.replaced is None for r in runs)
    assert [p.parent.name for p in paths] == [
        "seed-1.shots-0.limit-8", "seed-2.shots-0.limit-8", "seed-1.shots-0-1.limit-8", "seed-1.shots-0.limit-9",
    ]  # fmt: skip
    assert {p.name for p in paths} == {"category_membership.json"}
    keys = {read_results(p)[0]["run_identity"]["key"] for p in paths}
    assert len(keys) == 4
    identity = runs[0].document["run_identity"]
    assert identity["seed"] == 1 and identity["limit"] == 8 and identity["shots"] == [0]
    assert identity["model_spec"] == spec and identity["generation"] is None  # log-likelihoods: nothing generated
    assert identity["task_fingerprint"] == runs[0].document["task"]["fingerprint"]["sha256"]
    found, _ = find_results_files([out])  # the leaderboard finds every one of them
    assert sorted(found) == sorted(paths)


def test_generation_settings_and_model_arguments_are_part_of_the_identity(spec: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    plain = _run(spec, out, "arithmetic_length", limit=5)
    shorter = _run(spec, out, "arithmetic_length", limit=5, max_new_tokens=16)
    assert plain.document["run_identity"]["generation"] == {"max_new_tokens": 128, "decoding": "greedy"}
    assert shorter.results_path.parent.name == "seed-42.shots-0.limit-5.max-new-tokens-16"
    assert plain.document["run_identity"]["key"] != shorter.document["run_identity"]["key"]
    identity = dict(plain.document["run_identity"], model_args={"dtype": "float16"})
    assert results_path(out, identity).parent.parent != plain.results_path.parent.parent


def test_rerunning_the_same_run_replaces_it_and_says_so(spec: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _run(spec, out, seed=3, limit=6)
    again = _run(spec, out, seed=3, limit=6)
    assert again.results_path == first.results_path
    assert again.replaced is not None and again.replaced.startswith("replaced results of category_membership by")
    assert "seed 3" in again.replaced and "limit 6" in again.replaced and "changed" not in again.replaced
    assert len(list(out.rglob("*.json"))) == 1

    result = CliRunner().invoke(
        cli, ["run", "--model", spec, "--task", "category_membership", "--seed", "3", "--limit", "6", "-o", str(out),
              "--no-progress", "--bootstrap-resamples", "50"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"Replaced results of category_membership by {spec} (seed 3, shots 0, limit 6) in" in result.output


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_replacing_a_different_run_warns_naming_what_changed(spec: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _run(spec, out, limit=4)
    document = json.loads(first.results_path.read_text())
    document["run_identity"]["model_revision"] = "0" * 40  # as if the model had been updated since
    document["run_identity"]["task_fingerprint"] = "1" * 64
    first.results_path.write_text(json.dumps(document))
    handler = _Records()  # genbench's logger does not propagate (as the original framework's), so no caplog
    logger = logging.getLogger("genbench.runs._results")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        again = _run(spec, out, limit=4)
        same = _run(spec, out, limit=4)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert again.replaced is not None
    assert again.replaced.endswith("(a different run: model revision, task fingerprint changed)")
    levels = [(r.levelno, r.getMessage()) for r in handler.records]
    assert levels[0][0] == logging.WARNING and levels[0][1].startswith("Replaced results of category_membership")
    assert same.replaced is not None and levels[1][0] == logging.INFO


def test_files_written_before_run_identities_are_still_read_and_replaced_with_a_note(
    spec: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    first = _run(spec, out, limit=4)
    legacy = json.loads(first.results_path.read_text())
    del legacy["run_identity"]
    first.results_path.write_text(json.dumps(legacy))
    document, samples = read_results(first.results_path)  # an older file is valid
    assert "run_identity" not in document and samples
    again = _run(spec, out, limit=4, write_samples=False)
    assert again.replaced is not None and again.replaced.endswith("(a file written before run identities)")
    # the replaced run's per-sample log is gone, not left to be taken for this run's
    assert read_results(again.results_path)[1] is None
    assert not list(again.results_path.parent.glob("*.samples.jsonl"))


def test_settings_folder_and_identity_are_stable() -> None:
    model = {"spec": "hf:gpt2", "args": {"dtype": "float16"}, "revision": "abc"}
    a = run_identity(model, "t", "f" * 64, shots=[0, 5], seed=1, limit=None, generation={"max_new_tokens": 128})
    b = run_identity(model, "t", "f" * 64, shots=[0, 5], seed=1, limit=None, generation={"max_new_tokens": 128})
    c = run_identity(model, "t", "f" * 64, shots=[0, 5], seed=2, limit=None, generation={"max_new_tokens": 128})
    assert a == b and a["key"] != c["key"]
    assert settings_folder(a) == "seed-1.shots-0-5"


def test_save_results_refuses_nothing_silently(spec: str, tmp_path: Path) -> None:
    first = _run(spec, tmp_path / "out", limit=3)
    saved = save_results(dict(first.document), tmp_path / "out", None)
    assert saved.path == first.results_path and saved.replaced is not None
