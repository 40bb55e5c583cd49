"""Instances that no training data could match (too few tokens for the mode) are said so, not reported as clean.

"612 + 6" is two tokens (runs of letters and digits), so no 3-gram can match it: its score of 0 says nothing about
the training data. Every backend marks such an instance; the CLI warns with the count and the fix, and the report
records the counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli._contamination import contamination


def test_every_backend_marks_an_instance_too_short_for_the_ngram(text_search):
    result = text_search(
        ["compute 612 + 6 please", "hello world"], ["612 + 6", "compute 612 + 6 please"], ngram_size=3
    )
    assert [instance.unmatchable for instance in result.instances] == [True, False]
    assert [instance.score for instance in result.instances] == [0.0, 1.0]
    assert result.unmatchable == 1
    assert result.instances[0].to_json()["unmatchable"] is True
    assert "unmatchable" not in result.instances[1].to_json()
    # with pairs the same text can match: the mark follows the mode, not the data
    assert text_search(["compute 612 + 6 please"], ["612 + 6"], ngram_size=2).unmatchable == 0


def test_an_exact_match_marks_an_instance_with_a_field_without_tokens(text_search):
    result = text_search(["a b c"], [("a b", "+ -"), ("a b", "c")])
    assert [instance.unmatchable for instance in result.instances] == [True, False]


def _scan(tmp_path: Path, ngram_size: str) -> tuple[object, Path]:
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"text": "compute 612 + 6 and 966 + 40 please"}) + "\n", encoding="utf-8")
    test = tmp_path / "test.jsonl"
    rows = [{"input": "612 + 6"}, {"input": "966 + 40"}, {"input": "compute 612 + 6 and"}]
    test.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / f"out{ngram_size}"
    result = CliRunner().invoke(
        contamination,
        ["scan", "--train-dataset-names", str(train), "--text-field", "text", "--dataset", str(test), "--split",
         "train", "--field", "input", "--ngram-size", ngram_size, "-o", str(out), "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result, out


def test_the_cli_warns_with_the_count_and_the_fix_and_the_report_records_it(tmp_path: Path):
    result, out = _scan(tmp_path, "3")
    assert f"Warning: 2 of 3 instances of {tmp_path / 'test.jsonl'} (vs {tmp_path / 'train.jsonl'})" in result.stderr
    assert "fewer than 3 tokens in every field" in result.stderr and "Use a smaller --ngram-size" in result.stderr
    summary = json.loads((out / "contamination_report.json").read_text(encoding="utf-8"))
    assert list(summary["unmatchable"].values()) == [{str(tmp_path / "test.jsonl"): 2}]
    pairs = next(out.glob("train-*.jsonl")).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line).get("unmatchable", False) for line in pairs] == [True, True, False]

    quiet, out2 = _scan(tmp_path, "2")
    assert "Warning" not in quiet.stderr
    assert "unmatchable" not in json.loads((out2 / "contamination_report.json").read_text(encoding="utf-8"))


def test_the_cli_warning_quotes_an_instance_of_its_own_test_set(tmp_path: Path):
    # Regression: the warning quoted the arithmetic example ('612 + 6' is 2 tokens) for every test set.
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"text": "the capital of Japan is Tokyo"}) + "\n", encoding="utf-8")
    test = tmp_path / "test.jsonl"
    test.write_text(json.dumps({"question": "capital Japan?"}) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        contamination,
        ["scan", "--train-dataset-names", str(train), "--text-field", "text", "--dataset", str(test), "--split",
         "train", "--field", "question", "--ngram-size", "3", "-o", str(tmp_path / "out"), "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "(tokens are runs of letters and digits: 'capital Japan?' is 2 tokens)" in result.stderr
    assert "612" not in result.stderr


HUGE_NGRAM = """
import json, sys
from pathlib import Path
from genbench.contamination import TestSet, build_index, decontaminate, scan, search

work, n = Path(sys.argv[1]), int(sys.argv[2])
train = work / "train.jsonl"
train.write_text("".join(json.dumps({"text": f"compute {i} + 6 and 966 + 40 please"}) + "\\n" for i in range(50)))
tests = [TestSet.from_texts("t", ["compute 7 + 6 and 966 + 40 please", "612 + 6"])]
options = dict(text_field="text", index_dir=str(work / "idx"))
build_index(str(train), **options)
for _ in range(2):  # the first search of a size reads the token file; the second builds the n-gram table
    report = search(str(train), test_sets=tests, ngram_size=n, match_threshold=0.5, index_dir=str(work / "idx"))
scanned = scan(str(train), test_sets=tests, ngram_size=n, match_threshold=0.5, text_field="text")
decontaminate(report, work / "clean")
for result in (report.results[0], scanned.results[0]):
    print(json.dumps([[i.score, i.unmatchable] for i in result.instances]))
"""


@pytest.mark.parametrize("ngram_size", [300, 10**9], ids=["beyond-every-unit", "beyond-the-corpus"])
def test_an_ngram_size_beyond_every_instance_costs_nothing(tmp_path: Path, ngram_size: int):
    # --ngram-size 1000000000 once hung `contamination search` (hours: a loop over the window's size, on no windows);
    # 300 is more than any unit's tokens but less than the corpus's (400): the n-gram table has no window either
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", HUGE_NGRAM, str(tmp_path), str(ngram_size)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["[[0.0, true], [0.0, true]]"] * 2


def test_every_backend_answers_at_once_for_an_ngram_size_beyond_every_text(text_search):
    result = text_search(["compute 612 + 6 please"], ["compute 612 + 6 please", "612"], ngram_size=10**9)
    assert [(i.score, i.unmatchable) for i in result.instances] == [(0.0, True), (0.0, True)]
