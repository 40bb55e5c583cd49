"""Clean subsets beyond one task's run: ``compare --subset clean``, a TaskDict's merged clean scores, and the
results path of a run with a shift report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from tests.contamination.shift_support import EVEN_SUMS_PREDICTOR, arithmetic_length_report

pytest.importorskip("infini_gram")

EVEN_RIGHT = EVEN_SUMS_PREDICTOR
ALL_RIGHT = """
import re

def predict(requests, task, **options):
    return [str(sum(int(n) for n in re.findall(r"(\\d+) \\+ (\\d+)", prompt)[-1])) for prompt in requests]
"""
CONTAINED = range(0, 40, 2)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return arithmetic_length_report(tmp_path_factory.mktemp("clean-compare"), CONTAINED)


def _predictor(folder: Path, name: str, source: str) -> str:
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return f"python:{path}:predict"


def _run(predictor: str, output: Path, *reports: Path, task: str = "arithmetic_length") -> Path:
    result = CliRunner().invoke(
        cli,
        ["run", "-m", predictor, "-t", task, "-o", str(output), "--bootstrap-resamples", "20", "--no-cache",
         *(f"--shift-report={report}" for report in reports)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "replaced" not in result.output.lower()
    (written,) = [
        line for line in result.output.splitlines() if line.startswith("Wrote ") and line.endswith(f"/{task}.json")
    ]
    return Path(written.removeprefix("Wrote "))


def _compare(a: Path, b: Path, subset: str) -> Any:
    result = CliRunner().invoke(
        cli,
        [
            "compare",
            str(a),
            str(b),
            "--subset",
            subset,
            "--json",
            "--bootstrap-resamples",
            "20",
            "--permutations",
            "20",
        ],
    )
    return result


def _flagged(report: Path) -> list[bool]:
    document = json.loads(report.read_text(encoding="utf-8"))
    lines = (report.parent / document["examples_file"]).read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["flagged"] for line in lines]


@pytest.fixture(scope="module")
def two_runs(report: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("two-runs")
    a = _run(_predictor(folder, "even", EVEN_RIGHT), folder / "a", report)
    b = _run(_predictor(folder, "all", ALL_RIGHT), folder / "b", report)
    return a, b


def test_compare_clean_pairs_only_the_examples_the_report_does_not_flag(
    report: Path, two_runs: tuple[Path, Path]
) -> None:
    a, b = two_runs
    flagged = _flagged(report)
    clean = _compare(a, b, "clean")
    assert clean.exit_code == 0, clean.output
    (row,) = [r for r in json.loads(clean.output) if r["metric"] == "hf_exact_match__exact_match"]
    document_a = json.loads(a.read_text(encoding="utf-8"))
    (evaluation,) = document_a["evaluations"]
    assert row["subset"] == "clean" and row["n"] == len(flagged) - sum(flagged)
    assert row["a"] == pytest.approx(evaluation["clean"]["metrics"]["hf_exact_match__exact_match"]["value"])
    assert row["b"] == 1.0
    everything = _compare(a, b, "all")
    assert everything.exit_code == 0, everything.output
    (full,) = [r for r in json.loads(everything.output) if r["metric"] == "hf_exact_match__exact_match"]
    assert full["n"] == len(flagged) == 180 and full["a"] != pytest.approx(row["a"])


def test_compare_clean_refuses_a_run_without_a_report_naming_it(
    report: Path, two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    plain = _run(_predictor(tmp_path, "all", ALL_RIGHT), tmp_path / "plain")
    result = _compare(two_runs[0], plain, "clean")
    assert result.exit_code == 1
    assert f"{plain} has no clean-subset scores (its run had no shift report)" in result.output


def test_compare_clean_refuses_runs_with_different_thresholds(
    report: Path, two_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    measured = CliRunner().invoke(
        cli,
        ["shift", "measure", "--index", str(report.parent / "index"), "-t", "arithmetic_length", "-o",
         str(tmp_path / "half"), "--ngram-size", "5", "--threshold", "0.5"],
    )  # fmt: skip
    assert measured.exit_code == 0, measured.output
    other = _run(_predictor(tmp_path, "all", ALL_RIGHT), tmp_path / "half-run", tmp_path / "half" / report.name)
    result = _compare(two_runs[0], other, "clean")
    assert result.exit_code == 1
    assert f"{two_runs[0]} and {other} scored clean subsets against different shift reports" in result.output
    assert "threshold 1.0 at n=5 vs" in result.output and "threshold 0.5 at n=5" in result.output


def test_a_run_with_a_report_does_not_replace_the_run_without(report: Path, tmp_path: Path) -> None:
    predictor = _predictor(tmp_path, "even", EVEN_RIGHT)
    plain = _run(predictor, tmp_path / "out")
    with_report = _run(predictor, tmp_path / "out", report)  # no "replaced" in its output either
    assert plain.is_file() and with_report.is_file()
    assert plain.parent.name == "seed-42.shots-0"
    assert with_report.parent.name.startswith("seed-42.shots-0.clean-")
    identity = json.loads(with_report.read_text(encoding="utf-8"))["run_identity"]
    assert identity["clean_subset"]["corpus"] == "tiny" and identity["clean_subset"]["threshold"] == 1
    assert "clean_subset" not in json.loads(plain.read_text(encoding="utf-8"))["run_identity"]


CRC_CHOICE = """
import zlib

def predict(requests, task, **options):
    if task == "generate":
        return ["true" for _ in requests]
    return [
        (1.0 if zlib.crc32(prompt.encode()) % 3 == 0 else -1.0) * len(continuation)
        for prompt, continuation in requests
    ]
"""
SHORTEST = """
def predict(requests, task, **options):
    if task == "generate":
        return ["true" for _ in requests]
    return [-float(len(continuation)) for _, continuation in requests]
"""


@pytest.fixture(scope="module")
def negation_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """negation_consistency's subtasks measured against their own training statements (as docs/shift.md does)."""
    folder = tmp_path_factory.mktemp("negation")
    tasks = Path(__file__).resolve().parents[2] / "src" / "genbench" / "tasks" / "negation_consistency"
    runner = CliRunner()
    built = runner.invoke(
        cli,
        ["shift", "build", *(str(tasks / sub / "data" / "train.jsonl") for sub in ("affirmative", "negated")),
         "--text-field", "statement", "--tokenizer", "words", "--index-dir", str(folder / "index"), "--name", "neg"],
    )  # fmt: skip
    assert built.exit_code == 0, built.output
    measured = runner.invoke(
        cli,
        ["shift", "measure", "--index", str(folder / "index"), "-t", "negation_consistency", "--ngram-size", "3",
         "--threshold", "0.5", "--threshold-ngram", "3", "-o", str(folder / "reports")],
    )  # fmt: skip
    assert measured.exit_code == 0, measured.output
    return {sub: folder / "reports" / f"negation_consistency.{sub}.shift.json" for sub in ("affirmative", "negated")}


def test_a_task_dict_merges_its_subtasks_clean_scores(negation_reports: dict[str, Path], tmp_path: Path) -> None:
    predictor = _predictor(tmp_path, "crc", CRC_CHOICE)
    merged_path = _run(predictor, tmp_path / "a", *negation_reports.values(), task="negation_consistency")
    merged = json.loads(merged_path.read_text(encoding="utf-8"))
    (evaluation,) = merged["evaluations"]
    subtasks = {
        sub: json.loads((merged_path.parent / f"negation_consistency.{sub}.json").read_text(encoding="utf-8"))
        for sub in ("affirmative", "negated")
    }
    cleans = {sub: doc["evaluations"][0]["clean"] for sub, doc in subtasks.items()}
    key = "hf_accuracy__accuracy"
    affirmative, negated = (cleans[sub]["metrics"][key]["value"] for sub in ("affirmative", "negated"))
    assert affirmative != pytest.approx(negated)  # else the merge below could not tell subsets apart
    clean = evaluation["clean"]
    assert clean["num_examples"] == sum(c["num_examples"] for c in cleans.values())
    assert clean["excluded"] == sum(c["excluded"] for c in cleans.values()) > 0
    assert clean["primary_metric"] == key
    assert clean["metrics"][key]["value"] == pytest.approx((affirmative + negated) / 2)
    assert clean["metrics"][f"negation_gap__{key}"]["value"] == pytest.approx(affirmative - negated)
    assert clean["metrics"][key]["value"] != pytest.approx(evaluation["metrics"][key]["value"])
    low, high = clean["metrics"][key]["ci"]
    assert low < clean["metrics"][key]["value"] < high
    assert clean["metrics"][key]["ci_method"] == "bootstrap_merged"
    # compare --subset clean on the merged results re-applies the merge to the clean examples only
    other = _run(_predictor(tmp_path, "shortest", SHORTEST), tmp_path / "b", *negation_reports.values(),
                 task="negation_consistency")  # fmt: skip
    result = _compare(merged_path, other, "clean")
    assert result.exit_code == 0, result.output
    (row,) = [r for r in json.loads(result.output) if r["metric"] == f"negation_gap__{key}"]
    assert row["a"] == pytest.approx(affirmative - negated) and row["note"] == ""
    assert row["n"] == clean["num_examples"]


def test_a_task_dict_needs_a_report_for_every_subtask_or_none(
    negation_reports: dict[str, Path], tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        cli,
        ["run", "-m", _predictor(tmp_path, "shortest", SHORTEST), "-t", "negation_consistency", "-o", str(tmp_path),
         "--no-cache", f"--shift-report={negation_reports['affirmative']}"],
    )  # fmt: skip
    assert result.exit_code == 1
    assert (
        "Task 'negation_consistency' has subtasks; shift reports were given for negation_consistency:affirmative "
        "but not for negation_consistency:negated"
    ) in " ".join(result.output.split())
    assert not list(tmp_path.rglob("*.json"))  # refused before anything ran
