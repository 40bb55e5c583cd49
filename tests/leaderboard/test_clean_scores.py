"""A task page shows a model's clean score (on the examples a shift report does not flag) next to its full score."""

from __future__ import annotations

import json
from html import unescape
from pathlib import Path

from genbench._leaderboard import build_leaderboard
from tests.leaderboard.fixtures import write_document


def _with_clean_score(path: Path, corpus: str, value: float, scored: int, excluded: int) -> None:
    document = json.loads(path.read_text())
    evaluation = document["evaluations"][0]
    metric = evaluation["primary_metric"]
    evaluation["clean"] = {
        "num_examples": scored,
        "excluded": excluded,
        "primary_metric": metric,
        "metrics": {metric: {"value": value, "ci": [value - 0.1, value + 0.1], "ci_method": "bootstrap_mean"}},
    }
    document["shift_report"] = {
        "file": "shift.json",
        "sha256": "0" * 64,
        "corpus": corpus,
        "index_sha256": "1" * 64,
        "threshold": 0.5,
        "threshold_ngram": 8,
    }
    path.write_text(json.dumps(document))


def test_task_page_shows_clean_score_corpus_and_flagged_share(tmp_path: Path) -> None:
    scores = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0]
    measured = write_document(tmp_path / "runs" / "a" / "t.json", "toy_task", "python:measured", scores)
    write_document(tmp_path / "runs" / "b" / "t.json", "toy_task", "python:unmeasured", scores)
    _with_clean_score(measured, "pile<&>", 0.625, 8, 2)
    site = build_leaderboard([tmp_path / "runs"], tmp_path / "site")
    (page,) = [p for p in site.task_pages if p.name == "toy_task.html"]
    html = page.read_text()
    text = unescape(html)
    assert "clean 0.625 (8 of 10; corpus pile<&>)" in text
    assert "pile<&>" not in html  # escaped
    assert "2 of 10 examples (20.0%) flagged as contained in corpus pile<&>" in text
    assert text.count("clean 0.") == 1  # the unmeasured model has no clean score


def test_task_page_without_shift_report_says_nothing_of_it(tmp_path: Path) -> None:
    write_document(tmp_path / "runs" / "t.json", "toy_task", "python:m", [1.0, 0.0])
    site = build_leaderboard([tmp_path / "runs"], tmp_path / "site")
    (page,) = [p for p in site.task_pages if p.name == "toy_task.html"]
    text = page.read_text()
    assert "clean " not in text and "flagged" not in text
