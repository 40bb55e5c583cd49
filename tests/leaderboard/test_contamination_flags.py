"""The measured shift on the leaderboard, and contamination flags derived from it: a model is flagged on a task
exactly when it declares a training corpus (``--model-info``) that the task's shift report measured and found test
examples in; the flag links to the report. A report whose SHA-256 is not the recorded one is never used."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from genbench._leaderboard import LeaderboardError, build_leaderboard
from genbench._leaderboard.model_info import ModelInfo, read_model_info
from genbench.cli import cli
from genbench.contamination._testsets import TestSet
from genbench.contamination.shift import measure_shift
from genbench.contamination.shift._infinigram import build_infinigram_index
from genbench.runs._clean_subset import read_shift_flags
from tests.contamination.shift_support import write_corpus
from tests.leaderboard.fixtures import write_document

pytest.importorskip("infini_gram")

CORPUS = ["the quick brown fox jumps over the lazy dog", "a stitch in time saves nine"]
CONTAINED = ["the quick brown fox jumps", "fresh words nowhere else", "a stitch in time saves"]
NOT_CONTAINED = ["fresh words nowhere else", "zebras quietly juggle plums", "purple kites over oslo"]
SCORES = [1.0, 0.0, 1.0]


def _report(tmp_path: Path, name: str, texts: list[str], corpus_name: str = "toyweb") -> Path:
    """A shift report of task ``toy_task`` measured against a byte-level index of :data:`CORPUS`."""
    corpus = write_corpus(tmp_path / f"corpus-{name}", CORPUS, files=1)
    index = build_infinigram_index([corpus], tmp_path / f"index-{name}", name=corpus_name)
    [result] = measure_shift(
        TestSet.from_texts("toy_task", texts),
        corpus=index,
        output_dir=tmp_path / f"reports-{name}",
        ngram_sizes=(8,),
        threshold=0.5,
    )
    assert result.path is not None
    return result.path


def _results(path: Path, spec: str, report: Path | None) -> Path:
    """A results file of ``spec`` on ``toy_task``, scored with ``report`` (its ``shift_report`` and ``clean``)."""
    write_document(path, "toy_task", spec, SCORES)
    if report is not None:
        document: dict[str, Any] = json.loads(path.read_text())
        document["shift_report"] = read_shift_flags(report).record
        evaluation = document["evaluations"][0]
        metric = evaluation["primary_metric"]
        evaluation["clean"] = {
            "num_examples": 1,
            "excluded": 2,
            "primary_metric": metric,
            "metrics": {metric: {"value": 0.0, "ci": [0.0, 0.0], "ci_method": "bootstrap_mean"}},
        }
        path.write_text(json.dumps(document))
    return path


def _pages(site_dir: Path) -> tuple[str, str]:
    return (
        unescape((site_dir / "index.html").read_text()),
        unescape((site_dir / "tasks" / "toy_task.html").read_text()),
    )


@pytest.fixture(scope="module")
def contained_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _report(tmp_path_factory.mktemp("contained"), "contained", CONTAINED)


def test_a_model_trained_on_the_measured_corpus_is_flagged_with_a_link_to_the_report(
    tmp_path: Path, contained_report: Path
) -> None:
    runs = tmp_path / "runs"
    _results(runs / "a" / "t.json", "python:trained", contained_report)
    _results(runs / "b" / "t.json", "python:undeclared", contained_report)
    _results(runs / "c" / "t.json", "python:other_corpus", contained_report)
    info = {"python:trained": {"training_corpora": ["toyweb"]}, "python:other_corpus": {"training_corpora": ["c4"]}}
    (tmp_path / "models.yaml").write_text(json.dumps(info))
    site = build_leaderboard(
        [runs], tmp_path / "site", shift_reports=[contained_report], model_info=tmp_path / "models.yaml"
    )
    overview, task = _pages(tmp_path / "site")
    flag = "trained on toyweb: 2 of 3 examples found"
    # Once on each page: the model that declares toyweb; not the undeclared one, nor the one trained on c4.
    assert task.count(flag) == 1 and overview.count(flag) == 1
    assert "python:trained" in task.split(flag)[0].rsplit("<tr>", 1)[1]
    # The clean score beside the flag on the overview.
    assert f"{flag} (report); clean 0.000 (1 of 3; corpus toyweb)" in re.sub(r"<[^>]+>", "", overview)
    # The link goes to a copy of that very report (and its examples) inside the site.
    sha256 = read_shift_flags(contained_report).record["sha256"]
    link = f"shift/{sha256[:16]}/{contained_report.name}"
    assert f'href="{link}"' in overview and f'href="../{link}"' in task
    assert (tmp_path / "site" / link).read_bytes() == contained_report.read_bytes()
    assert (tmp_path / "site" / "shift" / sha256[:16] / "toy_task.shift.examples.jsonl").is_file()
    # The measured shift, corpus named, on both pages.
    for page in (overview, task):
        assert "corpus toyweb (" in page and "8-gram hit share" in page
        assert "2 of 3 examples (66.7%) flagged" in page
    assert site.unknown_model_info == []
    data = json.loads(site.data.read_text())
    assert data["contamination_flags"] == [
        {"model": "python:trained", "task": "toy_task", "corpus": "toyweb", "found": 2, "examples": 3, "report": link}
    ]
    [shown] = data["measured_shift"]["toy_task"]
    assert shown["shown"] and shown["flagged"] == 2 and shown["corpus"] == "toyweb" and shown["link"] == link


def test_no_flag_when_the_report_flags_no_example(tmp_path: Path) -> None:
    report = _report(tmp_path, "clean", NOT_CONTAINED)
    _results(tmp_path / "runs" / "t.json", "python:trained", report)
    build_leaderboard(
        [tmp_path / "runs"],
        tmp_path / "site",
        shift_reports=[report],
        model_info={"python:trained": ModelInfo(training_corpora=["toyweb"])},
    )
    overview, task = _pages(tmp_path / "site")
    assert "0 of 3 examples (0.0%) flagged" in task and "0 of 3 examples (0.0%) flagged" in overview
    assert 'class="gb-flag"' not in task and 'class="gb-flag"' not in overview


def test_no_flag_without_a_measurement(tmp_path: Path) -> None:
    _results(tmp_path / "runs" / "t.json", "python:trained", None)
    build_leaderboard(
        [tmp_path / "runs"], tmp_path / "site", model_info={"python:trained": ModelInfo(training_corpora=["toyweb"])}
    )
    overview, task = _pages(tmp_path / "site")
    assert (
        'class="gb-flag"' not in overview + task and "shift" not in overview.split("gb-tasks")[1].split("</table>")[0]
    )


def test_a_report_next_to_the_results_is_found(tmp_path: Path, contained_report: Path) -> None:
    runs = tmp_path / "runs"
    _results(runs / "t.json", "python:trained", contained_report)
    (runs / contained_report.name).write_bytes(contained_report.read_bytes())
    examples = "toy_task.shift.examples.jsonl"
    (runs / examples).write_bytes((contained_report.parent / examples).read_bytes())
    site = build_leaderboard(
        [runs], tmp_path / "site", model_info={"label-or-spec-of-nobody": ModelInfo(training_corpora=["toyweb"])}
    )
    overview, task = _pages(tmp_path / "site")
    assert "2 of 3 examples (66.7%) flagged" in task
    assert 'class="gb-flag"' not in task  # nobody declares it
    assert site.unknown_model_info == ["label-or-spec-of-nobody"]
    assert site.skipped == [runs / contained_report.name]  # the report is not a results file


def test_a_report_whose_sha256_differs_is_not_used_and_the_page_says_so(
    tmp_path: Path, contained_report: Path
) -> None:
    runs = tmp_path / "runs"
    _results(runs / "t.json", "python:trained", contained_report)
    changed = tmp_path / "given" / contained_report.name
    changed.parent.mkdir()
    changed.write_text(contained_report.read_text() + "\n")  # same report, other bytes
    info = {"python:trained": ModelInfo(training_corpora=["toyweb"])}
    build_leaderboard([runs], tmp_path / "site", shift_reports=[changed], model_info=info)
    overview, task = _pages(tmp_path / "site")
    for page in (overview, task):
        assert "not shown" in page and "SHA-256 differs" in page
        assert 'class="gb-flag"' not in page and "hit share" not in page
    assert not (tmp_path / "site" / "shift").exists()


def test_a_report_not_found_is_named_and_not_used(tmp_path: Path, contained_report: Path) -> None:
    _results(tmp_path / "runs" / "t.json", "python:trained", contained_report)
    info = {"python:trained": ModelInfo(training_corpora=["toyweb"])}
    build_leaderboard([tmp_path / "runs"], tmp_path / "site", model_info=info)
    overview, task = _pages(tmp_path / "site")
    for page in (overview, task):
        assert f"Shift report {contained_report.name} (corpus toyweb) not shown: not found next to t.json" in page
        assert "--shift-report" in page and 'class="gb-flag"' not in page


def test_the_cli_takes_reports_and_model_info(tmp_path: Path, contained_report: Path) -> None:
    _results(tmp_path / "runs" / "t.json", "python:trained", contained_report)
    (tmp_path / "models.yaml").write_text(
        "python:trained:\n  training_corpora: [toyweb]\nnobody:\n  training_corpora: []\n"
    )
    result = CliRunner().invoke(
        cli,
        [
            "leaderboard",
            str(tmp_path / "runs"),
            "-o",
            str(tmp_path / "site"),
            "--shift-report",
            str(contained_report),
            "--model-info",
            str(tmp_path / "models.yaml"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "no model of these results is named 'nobody'" in result.output
    assert "trained on toyweb: 2 of 3 examples found" in _pages(tmp_path / "site")[1]


def test_a_bad_model_info_file_names_the_file_and_model(tmp_path: Path) -> None:
    path = tmp_path / "models.yaml"
    path.write_text("hf:gpt2:\n  training_corpus: [c4]\n")
    with pytest.raises(
        LeaderboardError,
        match=r"models\.yaml, model 'hf:gpt2': expected exactly the key training_corpora, got training_corpus",
    ):
        read_model_info(path)
    path.write_text("hf:gpt2:\n  training_corpora: c4\n")
    with pytest.raises(LeaderboardError, match=r"training_corpora must be a list of corpus names"):
        read_model_info(path)
    path.write_text("- hf:gpt2\n")
    with pytest.raises(LeaderboardError, match=r"models\.yaml: a model-info file maps model labels"):
        read_model_info(path)


def test_a_report_whose_examples_file_is_missing_is_not_used(tmp_path: Path, contained_report: Path) -> None:
    runs = tmp_path / "runs"
    _results(runs / "t.json", "python:trained", contained_report)
    (runs / contained_report.name).write_bytes(contained_report.read_bytes())  # without its examples file
    site = build_leaderboard(
        [runs], tmp_path / "site", model_info={"python:trained": ModelInfo(training_corpora=["toyweb"])}
    )
    overview, task = _pages(tmp_path / "site")
    for page in (overview, task):
        assert "not shown:" in page and "toy_task.shift.examples.jsonl is missing" in page
        assert 'class="gb-flag"' not in page
    [recorded] = json.loads(site.data.read_text())["measured_shift"]["toy_task"]
    assert not recorded["shown"] and "is missing" in recorded["why_not"]


def test_a_given_report_that_no_results_file_records_is_named(tmp_path: Path, contained_report: Path) -> None:
    _results(tmp_path / "runs" / "t.json", "python:unmeasured", None)
    recorded = _results(tmp_path / "other" / "t.json", "python:measured", contained_report)
    site = build_leaderboard([tmp_path / "runs"], tmp_path / "site", shift_reports=[contained_report])
    assert site.unused_shift_reports == [contained_report]
    result = CliRunner().invoke(
        cli,
        ["leaderboard", str(tmp_path / "runs"), "-o", str(tmp_path / "s2"), "--shift-report", str(contained_report)],
    )
    assert result.exit_code == 0, result.output
    assert f"{contained_report}: no results file of the leaderboard records this shift report" in result.output
    # once a results file records it, it is used, and not named
    used = build_leaderboard([recorded.parent], tmp_path / "site3", shift_reports=[contained_report])
    assert used.unused_shift_reports == []
