"""Results files hold metric values that are numbers (or per-class lists/objects of numbers), or null with a reason:
a string such as ``"high"`` is refused when written and when read, instead of showing as "-" on a leaderboard."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from genbench.runs._errors import ResultsFileError
from genbench.runs._results import read_results, schema_problems, write_results
from genbench.runs._scoring import BootstrapSettings, metric_entries
from tests.leaderboard.fixtures import write_document


@pytest.fixture
def document(tmp_path: Path) -> dict:
    path = write_document(tmp_path / "r" / "t1.json", "t1", "hf:a", [1.0, 0.0, 1.0])
    return read_results(path, with_samples=False)[0]


def with_metric(document: dict, entry: dict) -> dict:
    changed = json.loads(json.dumps(document))
    changed["evaluations"][0]["metrics"]["extra"] = entry
    return changed


@pytest.mark.parametrize("value", ["high", True, {"a": "x"}, ["low", 1]])
def test_a_metric_value_that_is_not_a_number_is_refused(document: dict, value: object, tmp_path: Path) -> None:
    problems = schema_problems(with_metric(document, {"value": value, "ci": None}))
    assert any(p.startswith("evaluations.0.metrics.extra.value:") for p in problems), problems
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(with_metric(document, {"value": value, "ci": None})))
    with pytest.raises(ResultsFileError, match="evaluations.0.metrics.extra.value"):
        read_results(path)
    with pytest.raises(ResultsFileError, match=r"bad2\.json does not follow the results schema"):
        write_results(with_metric(document, {"value": value, "ci": None}), tmp_path / "bad2.json", None)
    assert not (tmp_path / "bad2.json").exists()


def test_null_needs_a_reason(document: dict) -> None:
    problems = schema_problems(with_metric(document, {"value": None, "ci": None}))
    assert problems == ["evaluations.0.metrics.extra: a metric whose value is null says why: 'reason' is required"]
    assert schema_problems(with_metric(document, {"value": None, "ci": None, "reason": "undefined"})) == []


@pytest.mark.parametrize("value", [0.5, 3, [0.1, None, 0.3], {"PER": 0.5, "LOC": None}])
def test_numbers_and_per_class_numbers_pass(document: dict, value: object) -> None:
    assert schema_problems(with_metric(document, {"value": value, "ci": None})) == []


def test_scoring_records_why_a_value_is_null() -> None:
    samples = [{"ok": 1.0}, {"ok": 0.0}]
    entries = metric_entries(
        {"ok": 0.5, "nan": float("nan"), "text": "high", "per_class": np.array([0.5, 0.25])},
        samples,
        lambda rows: {"ok": 0.5},
        BootstrapSettings(resamples=20, statistic_resamples=5),
    )
    assert entries["nan"] == {"value": None, "ci": None, "ci_method": None, "reason": entries["nan"]["reason"]}
    assert "nan" in entries["nan"]["reason"]
    assert (
        entries["text"]["value"] is None
        and entries["text"]["reason"] == "not a number: the metric returned str 'high'"
    )
    assert "reason" not in entries["ok"] and "reason" not in entries["per_class"]
    assert schema_problems({"value": None, "ci": None, "reason": entries["text"]["reason"]}, "metric") == []


def test_writing_gives_a_null_value_without_reason_the_generic_one(document: dict, tmp_path: Path) -> None:
    path = write_results(with_metric(document, {"value": float("nan"), "ci": None}), tmp_path / "nan.json", None)
    written = read_results(path, with_samples=False)[0]["evaluations"][0]["metrics"]["extra"]
    assert written == {"value": None, "ci": None, "reason": "undefined on these examples"}
    kept = with_metric(document, {"value": None, "ci": None, "reason": "no positive labels"})
    path = write_results(kept, tmp_path / "kept.json", None)
    assert read_results(path, with_samples=False)[0]["evaluations"][0]["metrics"]["extra"]["reason"] == (
        "no positive labels"
    )


def test_files_written_before_null_needed_a_reason_stay_readable(document: dict, tmp_path: Path) -> None:
    old = with_metric(document, {"value": None, "ci": None})
    old["samples_file"] = None
    (tmp_path / "old.json").write_text(json.dumps(old))
    entry = read_results(tmp_path / "old.json")[0]["evaluations"][0]["metrics"]["extra"]
    assert entry["value"] is None and entry["reason"] == "undefined on these examples"


def test_an_integer_beyond_a_float_is_no_metric_value() -> None:
    from genbench._core.metric_values import finite_number, is_finite_number

    assert not is_finite_number(10**400) and finite_number(-(10**400)) is None  # no OverflowError
    assert finite_number(10**300) == 1e300
