"""Rank intervals: a paired bootstrap over test examples, checked against a brute-force computation of the same
rounds; the task-by-task fallback to unpaired draws from the per-task intervals when a per-sample log is missing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from markupsafe import escape

from genbench._leaderboard import build_leaderboard
from genbench._leaderboard.rank_intervals import MIXED, PAIRED, UNPAIRED, resample_rows
from genbench.runs._results import read_results, write_results
from tests.leaderboard.fixtures import write_document

RESAMPLES = 400
SEED = 5


def scores(share: float, n: int, rng: np.random.Generator) -> list[float]:
    """``n`` 0/1 scores, a ``share`` of them 1 (in a shuffled order)."""
    values = np.zeros(n)
    values[: round(share * n)] = 1.0
    return rng.permutation(values).tolist()


def build(tmp_path: Path, results: dict[str, dict[str, list[float]]], **options: object):
    """A leaderboard of ``results``: model spec -> task -> per-sample scores."""
    for spec, tasks in results.items():
        for task_id, values in tasks.items():
            write_document(tmp_path / "results" / spec.replace(":", "_") / f"{task_id}.json", task_id, spec, values)
    return build_leaderboard(
        [tmp_path / "results"],
        tmp_path / "site",
        resamples=RESAMPLES,
        seed=SEED,
        **options,  # type: ignore[arg-type]
    )


def brute_force_intervals(
    results: dict[str, dict[str, list[float]]],
    chance: dict[str, float] | None = None,
    unpaired: dict[str, dict[str, np.ndarray]] | None = None,
) -> dict[str, str]:
    """Round by round with loops: each task's examples drawn once for every model (a task in ``unpaired``: each
    model's own replicate of the round instead), the models' means over tasks (each task's mean normalised to
    ``chance`` when given: 0 = chance, 100 = 1), each model's rank (1 + the models strictly above), and the 2.5th
    (down) and 97.5th (up) percentile ranks."""
    unpaired = unpaired or {}

    def scale(task_id: str, value: float) -> float:
        return 100 * (value - chance[task_id]) / (1 - chance[task_id]) if chance else value

    specs = list(results)
    tasks = sorted(next(iter(results.values())))
    draws = {t: resample_rows(t, len(results[specs[0]][t]), RESAMPLES, SEED) for t in tasks}
    ranks: dict[str, list[int]] = {spec: [] for spec in specs}
    for r in range(RESAMPLES):
        means = {}
        for spec in specs:
            per_task = []
            for t in tasks:
                if t in unpaired:
                    per_task.append(float(unpaired[t][spec][r]))
                    continue
                drawn = [results[spec][t][i] for i in draws[t][r]]
                per_task.append(scale(t, sum(drawn) / len(drawn)))
            means[spec] = sum(per_task) / len(per_task)
        for spec in specs:
            ranks[spec].append(1 + sum(1 for other in specs if means[other] > means[spec]))
    point = {spec: np.mean([scale(t, float(np.mean(v))) for t, v in results[spec].items()]) for spec in specs}
    shown = {spec: i for i, spec in enumerate(sorted(specs, key=lambda s: -point[s]), 1)}
    intervals = {}
    for spec in specs:
        ordered = sorted(ranks[spec])
        low = min(ordered[math.floor(0.025 * (RESAMPLES - 1))], shown[spec])
        high = max(ordered[math.ceil(0.975 * (RESAMPLES - 1))], shown[spec])
        intervals[spec] = str(low) if low == high else f"{low}-{high}"
    return intervals


def intervals_of(site) -> dict[str, str]:
    return {s.model.spec: str(s.rank_interval) for s in site.standings.models}


def test_two_models_within_noise_share_ranks_1_2_and_a_clearly_worse_one_is_3(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    results = {
        "hf:a": {"t1": scores(0.60, 60, rng), "t2": scores(0.50, 40, rng)},
        "hf:b": {"t1": scores(0.58, 60, rng), "t2": scores(0.50, 40, rng)},
        "hf:c": {"t1": scores(0.05, 60, rng), "t2": scores(0.05, 40, rng)},
    }
    site = build(tmp_path, results)
    assert site.standings.rank_intervals.method == PAIRED
    assert intervals_of(site) == brute_force_intervals(results) == {"hf:a": "1-2", "hf:b": "1-2", "hf:c": "3"}
    html = site.index.read_text()
    assert '<span class="gb-ci gb-rank-interval"' in html and ">1-2</span>" in html and ">3</span>" in html
    assert PAIRED in html
    exported = {m["spec"]: m["rank_interval"] for m in json.loads(site.data.read_text())["models"]}
    assert exported == {"hf:a": "1-2", "hf:b": "1-2", "hf:c": "3"}


def test_a_clearly_better_model_is_rank_1_alone(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    results = {
        "hf:a": {"t1": scores(0.95, 50, rng), "t2": scores(0.90, 50, rng)},
        "hf:b": {"t1": scores(0.50, 50, rng), "t2": scores(0.45, 50, rng)},
        "hf:c": {"t1": scores(0.48, 50, rng), "t2": scores(0.45, 50, rng)},
    }
    site = build(tmp_path, results)
    assert intervals_of(site) == brute_force_intervals(results)
    assert intervals_of(site)["hf:a"] == "1"
    assert intervals_of(site)["hf:b"] == intervals_of(site)["hf:c"] == "2-3"


def test_pairing_by_example_separates_models_whose_means_intervals_overlap(tmp_path: Path) -> None:
    """b answers like a except one example a gets right: in every round a is at least as good, so a is always
    first, where the overlap of the two means' (wide) intervals would say 1-2."""
    rng = np.random.default_rng(3)
    a = scores(0.5, 40, rng)
    b = list(a)
    b[a.index(1.0)] = 0.0
    results = {"hf:a": {"t1": a}, "hf:b": {"t1": b}}
    site = build(tmp_path, results)
    assert intervals_of(site) == brute_force_intervals(results) == {"hf:a": "1", "hf:b": "1-2"}
    (first, second) = site.standings.models
    assert first.overall.score.ci[0] < second.overall.score.ci[1]  # the means' intervals do overlap


def test_chance_normalised_ranks_and_intervals_are_of_normalised_means(tmp_path: Path) -> None:
    """a is ahead on raw scores (0.9 against 0.85), b on normalised ones (80 against 60: b's lead is on the task
    where chance is 0.75), and clearly so both ways: the rounds must be normalised too."""
    n = 400
    results = {
        "hf:a": {"t1": [1.0] * n, "t2": [1.0] * 320 + [0.0] * 80},
        "hf:b": {"t1": [1.0] * 280 + [0.0] * 120, "t2": [1.0] * n},
    }
    baseline = {"t1": [1.0] * 100 + [0.0] * 300, "t2": [1.0] * 300 + [0.0] * 100}
    raw = build(tmp_path / "raw", {**results, "baseline:majority_option": baseline})
    assert intervals_of(raw) == brute_force_intervals(results) == {"hf:a": "1", "hf:b": "2"}
    site = build(
        tmp_path / "normalised", {**results, "baseline:majority_option": baseline}, aggregation="chance-normalised"
    )
    assert [s.model.spec for s in site.standings.models] == ["hf:b", "hf:a"]
    chance = {"t1": 0.25, "t2": 0.75}
    assert intervals_of(site) == brute_force_intervals(results, chance) == {"hf:a": "2", "hf:b": "1"}


def drop_sample_log(path: Path) -> None:
    """Rewrite a results file without its per-sample log (as files of predictions scored elsewhere may be)."""
    document = read_results(path, with_samples=False)[0]
    for key in ("samples_file", "samples_sha256", "samples_count"):
        document.pop(key, None)
    path.with_name(path.name.removesuffix(".json") + ".samples.jsonl").unlink()
    write_results(document, path, None)


def replicates_of(site, task_id: str) -> dict[str, np.ndarray]:
    """Each ranked model's bootstrap replicates of a task, as the means' intervals use them."""
    return {s.model.spec: s.aggregated[task_id].replicates for s in site.standings.models}


MISSING_LOG = "no per-sample log with the headline for every example"


def test_a_missing_log_falls_back_to_unpaired_draws_from_the_per_task_intervals_and_says_so(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    a = scores(0.5, 40, rng)
    b = list(a)
    b[a.index(1.0)] = 0.0
    results = {"hf:a": {"t1": a}, "hf:b": {"t1": b}, "hf:c": {"t1": scores(0.0, 40, rng)}}
    build(tmp_path, results)
    drop_sample_log(tmp_path / "results/hf_b/t1.json")
    site = build_leaderboard([tmp_path / "results"], tmp_path / "site", resamples=RESAMPLES, seed=SEED)
    intervals = site.standings.rank_intervals
    assert intervals.method == UNPAIRED
    assert intervals.missing == [("hf:b", "t1", MISSING_LOG)]
    # b's draws are normal ones with the spread of its file's interval; a's its own per-sample bootstrap: unpaired,
    # a is no longer always first.
    assert site.standings.models[1].aggregated["t1"].ci_source == "interval"
    expected = brute_force_intervals(results, unpaired={"t1": replicates_of(site, "t1")})
    assert intervals_of(site) == expected == {"hf:a": "1-2", "hf:b": "1-2", "hf:c": "3"}
    html = site.index.read_text()
    assert str(escape(UNPAIRED)) in html
    assert f"hf:b on t1 ({MISSING_LOG})" in html
    document = json.loads(site.data.read_text())
    assert document["rank_intervals"] == {
        "method": UNPAIRED,
        "missing": [{"model": "hf:b", "task": "t1", "why": MISSING_LOG}],
    }


def test_tasks_that_can_be_paired_stay_paired_next_to_one_that_cannot(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    results = {
        "hf:a": {"t1": scores(0.6, 50, rng), "t2": scores(0.55, 40, rng)},
        "hf:b": {"t1": scores(0.55, 50, rng), "t2": scores(0.5, 40, rng)},
        "hf:c": {"t1": scores(0.1, 50, rng), "t2": scores(0.1, 40, rng)},
    }
    build(tmp_path, results)
    drop_sample_log(tmp_path / "results/hf_c/t2.json")
    site = build_leaderboard([tmp_path / "results"], tmp_path / "site", resamples=RESAMPLES, seed=SEED)
    assert site.standings.rank_intervals.method == MIXED
    assert site.standings.rank_intervals.missing == [("hf:c", "t2", MISSING_LOG)]
    expected = brute_force_intervals(results, unpaired={"t2": replicates_of(site, "t2")})
    assert intervals_of(site) == expected == {"hf:a": "1-2", "hf:b": "1-2", "hf:c": "3"}


def test_models_that_answered_different_examples_are_not_paired(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    results = {"hf:a": {"t1": scores(0.9, 40, rng)}, "hf:b": {"t1": scores(0.1, 30, rng)}}
    site = build(tmp_path, results)
    assert site.standings.rank_intervals.method == UNPAIRED
    assert {why for _, _, why in site.standings.rank_intervals.missing} == {"models that answered different examples"}
    assert intervals_of(site) == {"hf:a": "1", "hf:b": "2"}


def test_the_same_results_give_the_same_intervals_and_the_seed_picks_the_rounds(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    results = {"hf:a": {"t1": scores(0.55, 30, rng)}, "hf:b": {"t1": scores(0.5, 30, rng)}}
    first = intervals_of(build(tmp_path / "x", results))
    again = intervals_of(build(tmp_path / "y", results))
    assert first == again
    assert not np.array_equal(resample_rows("t1", 30, 5, 1), resample_rows("t1", 30, 5, 2))


@pytest.mark.parametrize("count", [1, 2])
def test_the_model_page_shows_the_interval(tmp_path: Path, count: int) -> None:
    rng = np.random.default_rng(6)
    results = {f"hf:m{i}": {"t1": scores(0.5, 30, rng)} for i in range(count)}
    site = build(tmp_path, results)
    texts = [page.read_text() for page in site.model_pages]
    expected = "1" if count == 1 else "1-2"
    assert all(f"(interval {expected})" in text for text in texts)
