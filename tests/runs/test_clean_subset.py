"""``run --shift-report``: every task scored on all examples and on those the report's corpus does not contain."""

from __future__ import annotations

import hashlib
import json
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import genbench
from genbench._leaderboard import build_leaderboard
from genbench.cli import cli
from genbench.contamination._errors import ContaminationError
from genbench.task import Task
from genbench.task._factory import load_task
from tests.contamination.shift_support import EVEN_SUMS_PREDICTOR, arithmetic_length_report

pytest.importorskip("infini_gram")

PREDICTOR = EVEN_SUMS_PREDICTOR
CONTAINED = range(0, 40, 2)  # test examples copied verbatim into the corpus


def _test_split() -> Any:
    task = load_task("arithmetic_length")
    assert isinstance(task, Task)
    return task.get_datasets_raw()["test"]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shift report of arithmetic_length against a corpus holding some of its test examples verbatim."""
    return arithmetic_length_report(tmp_path_factory.mktemp("clean"), CONTAINED)


@pytest.fixture
def predictor(tmp_path: Path) -> str:
    path = tmp_path / "predictor.py"
    path.write_text(PREDICTOR, encoding="utf-8")
    return f"python:{path}:predict"


def _flagged(report: Path) -> list[bool]:
    document = json.loads(report.read_text(encoding="utf-8"))
    lines = (report.parent / document["examples_file"]).read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["flagged"] for line in lines]


def test_run_scores_the_clean_subset_and_records_the_report(report: Path, predictor: str, tmp_path: Path) -> None:
    flagged = _flagged(report)
    assert all(flagged[i] for i in CONTAINED) and 0 < sum(flagged) < len(flagged)  # others may share 5-byte windows
    result = CliRunner().invoke(
        cli,
        ["run", "-m", predictor, "-t", "arithmetic_length", "--shift-report", str(report), "-o", str(tmp_path),
         "--bootstrap-resamples", "20", "--no-cache"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"clean subset ({len(flagged) - sum(flagged)} examples, {sum(flagged)} contained left out)" in result.output
    (path,) = tmp_path.rglob("arithmetic_length.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    (evaluation,) = document["evaluations"]
    clean = evaluation["clean"]
    assert evaluation["num_examples"] == len(flagged) == 180
    assert clean["num_examples"] == 180 - sum(flagged) and clean["excluded"] == sum(flagged)
    # The predictor is right exactly on the even sums: the clean score is their share among unflagged examples.
    targets = _test_split()["target"]
    kept = [int(target) for target, contained in zip(targets, flagged, strict=True) if not contained]
    key = evaluation["primary_metric"]
    assert clean["primary_metric"] == key
    assert clean["metrics"][key]["value"] == pytest.approx(sum(t % 2 == 0 for t in kept) / len(kept))
    everything = sum(int(t) % 2 == 0 for t in targets) / len(targets)
    assert evaluation["metrics"][key]["value"] == pytest.approx(everything)
    assert everything != pytest.approx(clean["metrics"][key]["value"])  # leaving them out changes the score
    assert clean["metrics"][key]["ci"] is not None
    shift = json.loads(report.read_text(encoding="utf-8"))
    assert document["shift_report"] == {
        "file": report.name,
        "sha256": hashlib.sha256(report.read_bytes()).hexdigest(),
        "corpus": "tiny",
        "index_sha256": shift["corpus"]["index_sha256"],
        "threshold": 1,
        "threshold_ngram": 5,
    }


def _copy(report: Path, folder: Path) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    document = json.loads(report.read_text(encoding="utf-8"))
    examples = [
        json.loads(line) for line in (report.parent / document["examples_file"]).read_text("utf-8").splitlines()
    ]
    return folder / report.name, document, examples


def _write(path: Path, document: dict[str, Any], examples: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(example, ensure_ascii=False) + "\n" for example in examples)
    (path.parent / document["examples_file"]).write_text(text, encoding="utf-8")
    document["examples_sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    path.write_text(json.dumps(document), encoding="utf-8")


def test_a_report_of_another_task_is_an_error_naming_the_file(report: Path, predictor: str, tmp_path: Path) -> None:
    path, document, examples = _copy(report, tmp_path)
    document["test_set"]["name"] = "category_membership"
    _write(path, document, examples)
    with pytest.raises(ContaminationError, match=rf"{path}.*of 'category_membership', which this run does not score"):
        genbench.evaluate(model=predictor, tasks=["arithmetic_length"], shift_report=path, use_cache=False)


def test_a_report_of_other_examples_is_an_error_naming_the_file(report: Path, predictor: str, tmp_path: Path) -> None:
    path, document, examples = _copy(report, tmp_path)
    examples[3]["text_sha256"] = examples[4]["text_sha256"]
    _write(path, document, examples)
    with pytest.raises(ContaminationError, match=rf"{path}: example 3 is not the text of test example 3"):
        genbench.evaluate(model=predictor, tasks=["arithmetic_length"], shift_report=path, use_cache=False)
    del examples[0]["text_sha256"]
    _write(path, document, examples)
    with pytest.raises(ContaminationError, match=rf"{path}: its examples record no text_sha256 \(an older report\)"):
        genbench.evaluate(model=predictor, tasks=["arithmetic_length"], shift_report=path, use_cache=False)
    _write(path, document, examples[:-1])
    with pytest.raises(ContaminationError, match=rf"{path} measured 179 examples, but the test split .* has 180"):
        genbench.evaluate(model=predictor, tasks=["arithmetic_length"], shift_report=path, use_cache=False)


SHORTEST = """
def predict(requests, task, **options):
    if task == "generate":
        return ["true" for _ in requests]
    return [-float(len(continuation)) for _, continuation in requests]
"""


def test_the_docs_show_the_real_clean_subset_lines(tmp_path: Path) -> None:
    """docs/shift.md's clean-subset example: its commands, run here, print the clean-subset lines the page shows."""
    tasks = Path(__file__).resolve().parents[2] / "src" / "genbench" / "tasks" / "negation_consistency"
    runner = CliRunner()
    index, reports = tmp_path / "index", tmp_path / "shift-reports"
    built = runner.invoke(
        cli,
        ["shift", "build", *(str(tasks / sub / "data" / "train.jsonl") for sub in ("affirmative", "negated")),
         "--text-field", "statement", "--tokenizer", "words", "--index-dir", str(index), "--name", "negation-train"],
    )  # fmt: skip
    assert built.exit_code == 0, built.output
    measured = runner.invoke(
        cli,
        ["shift", "measure", "--index", str(index), "-t", "negation_consistency", "--ngram-size", "3",
         "--ngram-size", "5", "--threshold", "0.5", "--threshold-ngram", "3", "-o", str(reports)],
    )  # fmt: skip
    assert measured.exit_code == 0, measured.output
    predictor = tmp_path / "shortest.py"
    predictor.write_text(SHORTEST, encoding="utf-8")
    result = runner.invoke(
        cli,
        ["run", "-m", f"python:{predictor}:predict", "-t", "negation_consistency", "-o", str(tmp_path / "results"),
         "--no-cache", *(f"--shift-report={reports / f'negation_consistency.{sub}.shift.json'}"
                         for sub in ("affirmative", "negated"))],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    printed = [line.strip() for line in result.output.splitlines() if line.startswith("  clean subset")]
    page = (Path(__file__).resolve().parents[2] / "docs" / "shift.md").read_text(encoding="utf-8")
    shown = [line.strip() for line in page.splitlines() if line.startswith("  clean subset")]
    assert len(printed) == 3 and printed == shown  # the two subtasks' and the task's merged clean subset
    site = build_leaderboard([tmp_path / "results"], tmp_path / "site")
    (merged_page,) = [p for p in site.task_pages if p.name == "negation_consistency.html"]
    # the merged clean score, on the task's page, measured against the subtasks' corpus
    assert "clean 0.500 (128 of 200; corpus negation-train)" in unescape(merged_page.read_text())
    card = runner.invoke(
        cli,
        ["eval-card", "-t", "negation_consistency", "--shift-report",
         str(reports / "negation_consistency.affirmative.shift.json")],
    )  # fmt: skip
    assert card.exit_code == 0, card.output
    (sentence,) = [line for line in card.output.splitlines() if line.startswith("Measured shift")]
    assert sentence.split() == page[page.index("Measured shift between") :].partition("```")[0].split()
