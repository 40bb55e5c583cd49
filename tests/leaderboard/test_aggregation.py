"""The chance-normalised view: each task's headline mapped to 0 = chance (its best baseline), 100 = perfect, with
known numbers; tasks with no chance level left out and named; every page states the aggregation shown."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from genbench._leaderboard import build_leaderboard
from genbench._leaderboard.aggregation import AGGREGATION_DESCRIPTIONS, chance_level
from genbench.cli import cli
from tests.leaderboard.fixtures import write_document

N = 40
RAW = "Mean of headline scores"
NORMALISED = "Mean of chance-normalised scores, 0 = chance, 100 = perfect"


def correct(count: int) -> list[float]:
    """``count`` of ``N`` examples right."""
    return [1.0] * count + [0.0] * (N - count)


# t1: chance 0.25 (a four-option majority baseline), t2: chance 0.5, t3: no baseline.
RESULTS = {
    "hf:a": {"t1": correct(25), "t2": correct(30), "t3": correct(36)},  # 0.625, 0.75, 0.9 -> 50, 50
    "hf:b": {"t1": correct(37), "t2": correct(20), "t3": correct(38)},  # 0.925, 0.5, 0.95 -> 90, 0
    "baseline:majority_option": {"t1": correct(10), "t2": correct(20)},  # 0.25, 0.5
}


def build(tmp_path: Path, aggregation: str):
    for spec, tasks in RESULTS.items():
        for task_id, values in tasks.items():
            write_document(tmp_path / "results" / spec.replace(":", "_") / f"{task_id}.json", task_id, spec, values)
    return build_leaderboard(
        [tmp_path / "results"],
        tmp_path / f"site-{aggregation}",
        resamples=300,
        aggregation=aggregation,  # type: ignore[arg-type]
    )


def test_raw_means_rank_b_first_and_every_page_says_so(tmp_path: Path) -> None:
    site = build(tmp_path, "raw")
    ranked = {s.model.spec: (s.rank, s.overall.score.value) for s in site.standings.models}
    assert ranked["hf:b"] == (1, pytest.approx((0.925 + 0.5 + 0.95) / 3))
    assert ranked["hf:a"] == (2, pytest.approx((0.625 + 0.75 + 0.9) / 3))
    assert site.standings.counted == ["t1", "t2", "t3"]
    for page in [site.index, *site.task_pages, *site.model_pages]:
        assert f"Aggregation shown: {RAW}." in page.read_text()
    assert json.loads(site.data.read_text())["aggregation_description"] == RAW


def test_chance_normalised_means_have_the_known_values_and_rank_a_first(tmp_path: Path) -> None:
    site = build(tmp_path, "chance-normalised")
    standings = site.standings
    assert standings.counted == ["t1", "t2"]  # t3 has no baseline: no chance level
    assert standings.without_chance_level == {"t3": "no baseline results on this task"}
    a, b = standings.models
    assert (a.model.spec, a.rank, a.overall.score.value) == ("hf:a", 1, pytest.approx(50.0))
    assert (b.model.spec, b.rank, b.overall.score.value) == ("hf:b", 2, pytest.approx(45.0))
    assert a.aggregated["t1"].value == pytest.approx(50.0) and b.aggregated["t2"].value == pytest.approx(0.0)
    # Raw per-task scores stay as they are; the normalised interval is the raw one mapped end to end.
    assert a.tasks["t1"].value == pytest.approx(0.625)
    low, high = a.tasks["t1"].ci
    assert a.aggregated["t1"].ci == pytest.approx((100 * (low - 0.25) / 0.75, 100 * (high - 0.25) / 0.75))
    assert np.allclose(a.aggregated["t1"].replicates, 100 * (a.tasks["t1"].replicates - 0.25) / 0.75)
    (baseline,) = standings.baselines
    assert baseline.overall.score.value == pytest.approx(0.0)  # the baseline is chance, by definition
    html = site.index.read_text()
    assert f"<b>{NORMALISED}</b>" in html and "t3 (no baseline results on this task)" in html
    assert "Mean (0 = chance)" in html
    for page in [site.index, *site.task_pages, *site.model_pages]:
        assert f"Aggregation shown: {NORMALISED}." in page.read_text()
    document = json.loads(site.data.read_text())
    assert document["aggregation"] == "chance-normalised" and document["ranked_tasks"] == ["t1", "t2"]
    assert document["chance_levels"]["t1"] == {"chance": 0.25, "perfect": 1.0, "source": "baseline:majority_option"}
    assert document["chance_levels"]["t3"]["chance"] is None
    model_a = next(m for m in document["models"] if m["spec"] == "hf:a")
    assert model_a["normalised_tasks"]["t2"]["value"] == pytest.approx(50.0)
    assert model_a["tasks"]["t2"]["value"] == pytest.approx(0.75)
    ranking = json.loads(html.split('id="gb-ranking-data">')[1].split("</script>")[0])
    assert ranking["counted"] == ["t1", "t2"] and ranking["models"][0]["scores"]["t1"][0] == pytest.approx(50.0)


def test_chance_level_rules() -> None:
    assert chance_level({"baseline:x": 0.2, "baseline:y": 0.3}, [0.5]).chance == 0.3  # the best baseline
    assert chance_level({"baseline:x": 20.0}, [60.0]).perfect == 100.0  # scores past 1: a 0-100 scale
    assert chance_level({"baseline:x": 20.0}, [60.0]).normalise(60.0) == pytest.approx(50.0)
    perfect = chance_level({"baseline:x": 1.0}, [1.0])
    assert not perfect.known and perfect.source == "its baseline (baseline:x) is already perfect"
    with pytest.raises(ValueError, match="no chance level"):
        perfect.normalise(0.5)
    assert set(AGGREGATION_DESCRIPTIONS) == {"raw", "chance-normalised"}


def test_the_cli_takes_the_aggregation(tmp_path: Path) -> None:
    build(tmp_path, "raw")
    runner = CliRunner()
    out = tmp_path / "cli-site"
    result = runner.invoke(
        cli, ["leaderboard", str(tmp_path / "results"), "-o", str(out), "--aggregation", "chance-normalised"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads((out / "leaderboard.json").read_text())["aggregation"] == "chance-normalised"
    result = runner.invoke(cli, ["leaderboard", str(tmp_path / "results"), "-o", str(out), "--aggregation", "z"])
    assert result.exit_code == 2 and "--aggregation" in result.output
