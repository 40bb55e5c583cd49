"""Results files (schema, validation), `genbench-cli compare`, `schema --results`, python: predictors, specs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.runs._compare import compare_results
from genbench.runs._errors import ModelRunError, ModelSpecError, ResultsFileError
from genbench.runs._execute import run
from genbench.runs._results import read_results, schema_problems
from genbench.runs._scoring import BootstrapSettings
from genbench.runs.specs import parse_model_spec

PREDICTORS = """
def first_option(requests, task, **options):
    if task == "loglikelihood":
        return [0.0 if c.strip() == requests[0][1].strip() else -1.0 for _, c in requests]
    raise NotImplementedError

def shortest_option(requests, task, **options):
    if task == "loglikelihood":
        return [-float(len(c)) for _, c in requests]
    raise NotImplementedError

def wrong_count(requests, task, **options):
    return ["x"]
"""
FAST = BootstrapSettings(resamples=100, statistic_resamples=10)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("compare")
    (root / "predictors.py").write_text(PREDICTORS)
    paths = []
    for name in ("first_option", "shortest_option"):
        (task_run,) = run(
            f"python:{root / 'predictors.py'}:{name}", "category_membership", output_dir=root / "out", limit=30,
            bootstrap=FAST,
        )  # fmt: skip
        paths.append(task_run.results_path)
    return paths[0], paths[1]


def test_results_files_follow_the_schema_and_name_their_samples(two_runs: tuple[Path, Path]) -> None:
    document, samples = read_results(two_runs[0])
    assert document["schema_version"] == 1
    assert document["model"]["kind"] == "python" and document["model"]["revision"] is None
    assert document["samples_file"] == "category_membership.samples.jsonl"
    assert len(document["task"]["fingerprint"]["data_sha256"]) >= 1
    entry = document["evaluations"][0]["metrics"]["hf_accuracy__accuracy"]
    values = [s["metrics"]["hf_accuracy__accuracy"] for s in samples or []]
    assert entry["value"] == pytest.approx(sum(values) / len(values))
    assert entry["ci_method"] == "bootstrap_mean" and entry["ci"][0] <= entry["value"] <= entry["ci"][1]


def test_compare_reports_the_paired_difference(two_runs: tuple[Path, Path]) -> None:
    a, b = two_runs
    comparisons = {c.metric: c for c in compare_results(a, b, resamples=200, permutations=500)}
    accuracy = comparisons["hf_accuracy__accuracy"]
    samples_a, samples_b = read_results(a)[1] or [], read_results(b)[1] or []
    diffs = [x["metrics"]["hf_accuracy__accuracy"] - y["metrics"]["hf_accuracy__accuracy"]
             for x, y in zip(samples_a, samples_b, strict=False)]  # fmt: skip
    assert accuracy.difference == pytest.approx(sum(diffs) / len(diffs))
    assert accuracy.low <= accuracy.difference <= accuracy.high and 0 < accuracy.p_value <= 1 and accuracy.n == 30

    result = CliRunner().invoke(cli, ["compare", str(a), str(b), "--permutations", "200"])
    assert result.exit_code == 0, result.output
    assert "hf_accuracy__accuracy" in result.output and "A - B" in result.output
    rows = json.loads(CliRunner().invoke(cli, ["compare", str(a), str(b), "--json"]).output)
    assert {row["metric"] for row in rows} >= {"hf_accuracy__accuracy"}
    # The bootstrap's option has run's name; --resamples, its former name, is the same option (with a note).
    named = [
        CliRunner().invoke(cli, ["compare", str(a), str(b), "--json", option, "50", "--permutations", "50"])
        for option in ("--bootstrap-resamples", "--resamples")
    ]
    assert named[0].stdout == named[1].stdout != CliRunner().invoke(cli, ["compare", str(a), str(b), "--json"]).stdout
    assert "--resamples is deprecated" in named[1].stderr and "--resamples" not in named[0].stderr


def test_compare_refuses_different_task_versions(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    document = json.loads(two_runs[1].read_text())
    document["task"]["fingerprint"]["sha256"] = "0" * 64
    copy = tmp_path / "category_membership.json"
    copy.write_text(json.dumps(document))
    (tmp_path / document["samples_file"]).write_text((two_runs[1].parent / document["samples_file"]).read_text())
    result = CliRunner().invoke(cli, ["compare", str(two_runs[0]), str(copy)])
    assert result.exit_code == 1 and "task fingerprints differ" in result.output


def test_invalid_results_and_samples_are_named(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    document = json.loads(two_runs[0].read_text())
    del document["seed"]
    document["evaluations"][0]["metrics"]["hf_accuracy__accuracy"]["ci"] = [0.1]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document))
    with pytest.raises(ResultsFileError, match=r"broken.json does not follow the results schema") as error:
        read_results(broken)
    assert "seed: 'seed' is required" in str(error.value) and "evaluations.0.metrics" in str(error.value)

    document = json.loads(two_runs[0].read_text())
    (tmp_path / "ok.json").write_text(json.dumps(document))
    lines = (two_runs[0].parent / document["samples_file"]).read_text().splitlines()
    lines[2] = json.dumps({"shots": 0})
    (tmp_path / document["samples_file"]).write_text("\n".join(lines) + "\n")
    with pytest.raises(ResultsFileError, match=r"samples.jsonl:3: .*_genbench_idx: '_genbench_idx' is required"):
        read_results(tmp_path / "ok.json")


def test_schema_command_prints_the_results_schema(two_runs: tuple[Path, Path]) -> None:
    result = CliRunner().invoke(cli, ["schema", "--results"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["properties"]["schema_version"] == {"const": 1}
    assert schema_problems(json.loads(two_runs[0].read_text())) == []


def test_python_predictor_contract_is_checked(tmp_path: Path) -> None:
    (tmp_path / "predictors.py").write_text(PREDICTORS)
    with pytest.raises(ModelRunError, match="returned 1 answers for 3 'generate' requests"):
        run(f"python:{tmp_path / 'predictors.py'}:wrong_count", "arithmetic_length", limit=3, bootstrap=FAST)


@pytest.mark.parametrize(
    ("spec", "args", "message"),
    [
        ("gpt2", None, "not KIND:TARGET"),
        ("vllm:x", None, "unknown model runner 'vllm': use one of hf, openai"),
        ("hff:x", None, "Did you mean 'hf'"),
        ("nope", None, "not KIND:TARGET with KIND one of hf, openai"),
        ("hf:gpt2", "dtype", "not KEY=VALUE"),
        ("hf:gpt2", "a=1,a=2", "gives 'a' twice"),
    ],
)
def test_model_spec_errors(spec: str, args: str | None, message: str) -> None:
    with pytest.raises(ModelSpecError, match=message):
        parse_model_spec(spec, args)


def test_run_command_checks_its_options(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "--model", "hf:x", "-t", "all", "--shots", "0,0", "-o", "out"])
    assert result.exit_code == 2 and "distinct non-negative integers" in result.output
    result = CliRunner().invoke(cli, ["run", "--model", "nope", "-t", "all", "-o", str(tmp_path)])
    assert result.exit_code == 1 and result.output.startswith("Error: Model spec 'nope'")


def test_task_run_model_goes_through_the_feature_seam(tmp_path: Path) -> None:
    from genbench import load_task

    (tmp_path / "predictors.py").write_text(PREDICTORS)
    task = load_task("category_membership")
    task_run = task.run_model(f"python:{tmp_path / 'predictors.py'}:shortest_option", limit=4, bootstrap=FAST)
    assert task_run.task_id == "category_membership" and len(task_run.samples) == 4
    assert task_run.results_path is None  # no output_dir: nothing written


def test_compare_says_which_settings_only_one_file_has(tmp_path: Path) -> None:
    # Regression: the 1-shot setting of A was dropped without a word.
    (tmp_path / "predictors.py").write_text(PREDICTORS)
    spec = f"python:{tmp_path / 'predictors.py'}:first_option"
    (a,) = run(spec, "category_membership", output_dir=tmp_path / "a", limit=10, shots=[0, 1], bootstrap=FAST)
    (b,) = run(spec, "category_membership", output_dir=tmp_path / "b", limit=10, shots=[0], bootstrap=FAST)
    result = CliRunner().invoke(cli, ["compare", str(a.results_path), str(b.results_path), "--permutations", "100"])
    assert result.exit_code == 0, result.output
    assert "Note: 1-shot only in A: not compared (the other file has no such setting)." in result.stderr
    assert "only in B" not in result.stderr


def test_a_python_predictor_run_says_nothing_of_a_cache_it_never_uses(tmp_path: Path) -> None:
    # Regression: its summary read "0/30 answers from the cache", though a python: predictor is never cached.
    (tmp_path / "predictors.py").write_text(PREDICTORS)
    result = CliRunner().invoke(
        cli,
        ["run", "--model", f"python:{tmp_path / 'predictors.py'}:first_option", "--task", "category_membership",
         "--limit", "5", "--output-dir", str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (summary,) = [line for line in result.stdout.splitlines() if line.startswith("category_membership (0-shot")]
    assert "cache" not in summary
    (path,) = (tmp_path / "out").rglob("category_membership.json")
    assert "cache" not in read_results(path)[0]["evaluations"][0]


def test_generation_settings_name_only_runs_that_generate(tmp_path: Path) -> None:
    # Regression: reranking (and log-likelihood multiple-choice) results sat under `...max-new-tokens-16`, a setting
    # that does not apply to them.
    (tmp_path / "predictors.py").write_text(
        "def answer(requests, task, **options):\n"
        "    scored = task in ('loglikelihood', 'score_pairs')\n"
        "    return [-float(len(r[1])) for r in requests] if scored else ['1' for _ in requests]\n"
    )
    spec = f"python:{tmp_path / 'predictors.py'}:answer"
    folders = {}
    for task_id in ("passage_reranking_shift", "category_membership", "arithmetic_length"):
        (task_run,) = run(spec, task_id, output_dir=tmp_path / "out", limit=3, max_new_tokens=16, bootstrap=FAST)
        folders[task_id] = task_run.results_path.parent.name
        generation = task_run.document["run_identity"]["generation"]
        assert (generation is not None) == (task_id == "arithmetic_length"), task_id
    assert folders == {
        "passage_reranking_shift": "seed-42.unprompted.limit-3",
        "category_membership": "seed-42.shots-0.limit-3",
        "arithmetic_length": "seed-42.shots-0.limit-3.max-new-tokens-16",
    }
