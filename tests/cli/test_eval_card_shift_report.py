"""`genbench-cli eval-card --shift-report`: the card states the shift measured against a pretraining corpus."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.display._eval_card import EvalCard, Experiment
from genbench.display._measured_shift import MeasuredShift
from tests.contamination.shift_support import arithmetic_length_report

pytest.importorskip("infini_gram")

CONTAINED = [0, 1, 2]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """arithmetic_length's shift report against a corpus holding three of its test examples verbatim."""
    return arithmetic_length_report(tmp_path_factory.mktemp("card"), CONTAINED)


def test_card_states_the_measured_shift_in_every_format(report: Path) -> None:
    document = json.loads(report.read_text())
    summary = document["summary"]
    hits = summary["ngram_hit_share"]["5"]
    examples, flagged = summary["examples"], summary["flagged"]["count"]
    assert flagged >= len(CONTAINED)
    expected = (
        f"Measured shift between the pretraining corpus tiny ({document['corpus']['tokens']:,} tokens) and the test "
        f"set: 5-gram hit share {hits['mean']:.3f} [{hits['interval'][0]:.3f}, {hits['interval'][1]:.3f}]; "
        f"{flagged} of {examples} examples ({100 * flagged / examples:.1f}%) flagged as contained. "
        # arithmetic_length declares a train-test shift: the card does not pass the measurement off as its locus
        "The task declares the shift locus Train–test, not Pretrain–test: this measures how far its test set is "
        "from a pretraining corpus, beside the shift the task was built to test."
    )
    for fmt in ("markdown", "html", "svg"):
        result = CliRunner().invoke(
            cli, ["eval-card", "-t", "arithmetic_length", "--format", fmt, "--shift-report", str(report)]
        )
        assert result.exit_code == 0, result.output
        text = result.output
        if fmt == "svg":  # one <text> per wrapped line
            text = " ".join(re.findall(r'<text x="10" y="\d+" font-size="10">([^<]*)</text>', text))
        assert expected in text, fmt
    latex = CliRunner().invoke(
        cli, ["eval-card", "-t", "arithmetic_length", "--format", "latex", "--shift-report", str(report)]
    )
    assert "corpus tiny" in latex.output and "flagged as contained" in latex.output
    plain = CliRunner().invoke(cli, ["eval-card", "-t", "arithmetic_length"])
    assert plain.exit_code == 0 and "Measured shift" not in plain.output
    heights = [
        _svg_height(CliRunner().invoke(cli, ["eval-card", "-t", "arithmetic_length", "-f", "svg", *extra]).output)
        for extra in ([], ["--shift-report", str(report)])
    ]
    assert heights[1] > heights[0]  # the image grows by the line it states


def _svg_height(svg: str) -> int:
    match = re.search(r'height="(\d+)"', svg)
    assert match is not None, svg[:200]
    return int(match.group(1))


def test_a_damaged_shift_report_is_an_error_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.shift.json"
    bad.write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(cli, ["eval-card", "-t", "arithmetic_length", "--shift-report", str(bad)])
    assert result.exit_code != 0 and str(bad) in result.output and "not a shift report" in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested deeper than the 200 levels allowed"),
        ('{"task": "a", "task": "b"}', "the key 'task' appears twice in one object"),
        ('{"summary": NaN}', "NaN is not a JSON number"),
    ],
    ids=["deep", "duplicate-key", "nan"],
)
def test_a_report_python_json_would_misread_is_refused_naming_the_file(tmp_path: Path, content: str, message: str):
    # read with json.loads before: a RecursionError crashed `run --shift-report`, and a key given twice kept its last
    bad = tmp_path / "bad.shift.json"
    bad.write_text(content, encoding="utf-8")
    for args in (["eval-card", "-t", "arithmetic_length"], ["run", "-m", "python:x:y", "-t", "arithmetic_length",
                                                            "-o", str(tmp_path / "out")]):  # fmt: skip
        result = CliRunner().invoke(cli, [*args, "--shift-report", str(bad)])
        assert result.exit_code != 0
        assert f"{bad}: " in result.output and message in result.output, result.output


def test_a_report_of_another_task_is_refused_naming_both(report: Path) -> None:
    result = CliRunner().invoke(cli, ["eval-card", "-t", "negation_consistency", "--shift-report", str(report)])
    assert result.exit_code == 2, result.output
    assert "measures task 'arithmetic_length', not 'negation_consistency'" in result.output


def test_the_card_says_whether_the_task_declares_the_pretrain_test_locus(report: Path) -> None:
    shift = MeasuredShift.of(json.loads(report.read_text()))
    declared = {"pretrain-test": "This is the shift locus the task declares (Pretrain–test).", "": "declares no shift"}
    for locus, note in declared.items():
        card = EvalCard("t (t)", (Experiment("t", {"shift_locus": [locus] if locus else []}),), shift)
        text = card.render("markdown")
        assert shift.sentence() + " " in text and note in text, locus
        assert "not Pretrain–test" not in text
    both = EvalCard("t (t)", (Experiment("t", {"shift_locus": ["train-test", "pretrain-test"]}),), shift)
    assert "This is the shift locus the task declares (Pretrain–test)." in both.render("markdown")
