"""The ranking: headline per task, means with intervals from per-sample scores, coverage, seeds, baselines, taxonomy
groups, tasks with subtasks and stale files, on results documents written by hand (exact numbers known)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from genbench._leaderboard import LeaderboardError, build_leaderboard, collect
from genbench._leaderboard.standings import NOT_DECLARED, rank_models
from genbench.cli import cli
from genbench.runs._errors import ResultsFileError
from genbench.runs._results import read_results, write_results
from tests.leaderboard.fixtures import write_document

RNG = np.random.default_rng(7)
T1 = (RNG.random(80) < 0.7).astype(float).tolist()
T2 = (RNG.random(60) < 0.4).astype(float).tolist()
T3 = (RNG.random(50) < 0.5).astype(float).tolist()
COMPOSITIONAL = {"generalisation_type": ["compositional"], "shift_locus": ["train-test"]}
BOTH = {"generalisation_type": ["compositional", "robustness"], "shift_locus": ["pretrain-test"]}


def build(tmp_path: Path, **options: object):
    return build_leaderboard([tmp_path / "results"], tmp_path / "site", resamples=2000, **options)  # type: ignore[arg-type]


def test_mean_over_tasks_has_the_bootstrap_interval_of_the_per_sample_scores(tmp_path: Path) -> None:
    write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", T1, taxonomy=COMPOSITIONAL)
    write_document(tmp_path / "results/a/t2.json", "t2", "hf:a", T2, taxonomy=BOTH)
    (standing,) = build(tmp_path).standings.models
    mean = standing.overall.score
    assert mean is not None and mean.ci is not None and mean.ci_source == "per-sample"
    assert mean.value == pytest.approx((np.mean(T1) + np.mean(T2)) / 2)
    # The interval of a mean of two independent means: half the root of the summed variances, not the mean of
    # the tasks' interval ends (which would be about 1.4 times wider).
    sd = math.sqrt(np.var(T1) / len(T1) + np.var(T2) / len(T2)) / 2
    assert mean.ci[1] - mean.ci[0] == pytest.approx(2 * 1.96 * sd, rel=0.12)
    widths = [s.ci[1] - s.ci[0] for s in standing.tasks.values() if s.ci]
    assert mean.ci[1] - mean.ci[0] < 0.85 * np.mean(widths)
    assert mean.ci[0] < mean.value < mean.ci[1]
    assert standing.rank == 1 and (standing.overall.covered, standing.overall.of) == (2, 2)


def test_constant_scores_give_a_point_interval(tmp_path: Path) -> None:
    write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", [1.0] * 20)
    write_document(tmp_path / "results/a/t2.json", "t2", "hf:a", [0.0] * 10)
    (standing,) = build(tmp_path).standings.models
    assert standing.overall.score is not None and standing.overall.score.ci == (0.5, 0.5)


def test_a_model_missing_a_task_is_marked_and_not_ranked_above_complete_ones(tmp_path: Path) -> None:
    write_document(tmp_path / "results/a/t1.json", "t1", "hf:complete", T1)
    write_document(tmp_path / "results/a/t2.json", "t2", "hf:complete", T2)
    write_document(tmp_path / "results/b/t1.json", "t1", "hf:partial", [1.0] * 30)  # better, on one task only
    site = build(tmp_path)
    complete, partial = site.standings.models
    assert complete.model.spec == "hf:complete" and complete.rank == 1
    assert partial.model.spec == "hf:partial" and partial.rank is None
    assert (partial.overall.covered, partial.overall.of) == (1, 2) and partial.overall.score.value == 1.0
    ranking = site.index.read_text().split('id="gb-ranking"')[1].split("</table>")[0]
    assert ranking.index("hf:complete") < ranking.index("hf:partial")
    assert 'class=" gb-partial"' in ranking and "not ranked: misses a task" in ranking and ">1/2<" in ranking
    data = json.loads(site.data.read_text())
    assert [(m["spec"], m["rank"]) for m in data["models"]] == [("hf:complete", 1), ("hf:partial", None)]


def test_seeds_of_one_model_are_one_row_with_mean_and_spread(tmp_path: Path) -> None:
    for seed, scores in [(1, T1), (2, T3)]:
        write_document(tmp_path / f"results/s{seed}/t1.json", "t1", "hf:a", scores, seed=seed, run_identity=True)
        write_document(tmp_path / f"results/s{seed}/t2.json", "t2", "hf:a", T2, seed=seed, run_identity=True)
    site = build(tmp_path)
    (standing,) = site.standings.models
    assert standing.seeds == [1, 2]
    t1 = standing.tasks["t1"]
    assert t1.value == pytest.approx((np.mean(T1) + np.mean(T3)) / 2)
    assert t1.seed_values == pytest.approx([np.mean(T1), np.mean(T3)])
    assert t1.spread == pytest.approx(np.std([np.mean(T1), np.mean(T3)], ddof=1))
    per_seed_means = [(np.mean(T1) + np.mean(T2)) / 2, (np.mean(T3) + np.mean(T2)) / 2]
    assert standing.seed_spread == pytest.approx(np.std(per_seed_means, ddof=1))
    assert standing.overall.score.value == pytest.approx(np.mean(per_seed_means))
    task_page = (tmp_path / "site/tasks/t1.html").read_text()
    assert task_page.count('class="gb-point"') == 1  # one point: the mean over the seeds
    assert f"{t1.value:.4f} [{t1.ci[0]:.4f}, {t1.ci[1]:.4f}]" in task_page  # with the interval of that mean
    assert task_page.count(">hf:a (seed 1)</a>") == task_page.count(">hf:a (seed 2)</a>") == 1
    (model_page,) = site.model_pages
    assert f"rank 1 (interval 1); mean {standing.overall.score.value:.3f}" in model_page.read_text()


def test_baselines_form_one_block_and_are_never_ranked(tmp_path: Path) -> None:
    write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", T1)
    write_document(tmp_path / "results/b/t1.json", "t1", "baseline:majority_option", [1.0] * 10)
    write_document(tmp_path / "results/c/t1.json", "t1", "baseline:other", [0.0] * 10)
    site = build(tmp_path)
    assert [s.model.spec for s in site.standings.models] == ["hf:a"]
    assert sorted(s.model.spec for s in site.standings.baselines) == ["baseline:majority_option", "baseline:other"]
    assert all(s.rank is None for s in site.standings.baselines)
    html = site.index.read_text()
    block = html.split('<tbody class="gb-baselines">')[1].split("</tbody>")[0]
    assert "baseline:majority_option" in block and "baseline:other" in block and "hf:a" not in block
    assert "Best baseline" in html


def test_means_per_taxonomy_value(tmp_path: Path) -> None:
    write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", T1, taxonomy=COMPOSITIONAL)
    write_document(tmp_path / "results/a/t2.json", "t2", "hf:a", T2, taxonomy=BOTH)
    write_document(tmp_path / "results/a/t3.json", "t3", "hf:a", T3)  # declares no taxonomy
    site = build(tmp_path)
    groups = site.standings.groups["generalisation_type"]
    assert groups == {"compositional": ["t1", "t2"], "robustness": ["t2"], NOT_DECLARED: ["t3"]}
    (standing,) = site.standings.models
    axis = standing.axes["generalisation_type"]
    assert axis["compositional"].score.value == pytest.approx((np.mean(T1) + np.mean(T2)) / 2)
    assert axis["robustness"].score.value == pytest.approx(np.mean(T2))
    assert standing.axes["shift_locus"]["pretrain-test"].score.value == pytest.approx(np.mean(T2))
    html = site.index.read_text()
    assert html.count('class="gb-axis-button"') == 5 and 'id="gb-axis-generalisation_type"' in html
    assert ">Generalisation type</button>" in html and ">Robustness<br>" in html  # the taxonomy's label, not the id


def test_a_declared_primary_metric_is_the_headline_and_lower_is_better_stays_out_of_means(tmp_path: Path) -> None:
    path = write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", T1, primary_metric="negation_gap")
    document, samples = read_results(path)
    document["evaluations"][0]["metrics"]["negation_gap__hf_accuracy__accuracy"] = {"value": 0.2, "ci": [0.1, 0.3]}
    write_results(document, path, samples)
    write_document(tmp_path / "results/a/t2.json", "t2", "hf:a", T2, primary_metric="accuracy")
    site = build(tmp_path)
    t1, t2 = site.standings.headlines["t1"], site.standings.headlines["t2"]
    assert (t1.metric, t1.declared, t1.counts) == ("negation_gap__hf_accuracy__accuracy", True, False)
    assert (t2.metric, t2.declared, t2.counts) == ("hf_accuracy__accuracy", True, True)
    (standing,) = site.standings.models
    assert standing.overall.of == 1 and standing.overall.score.value == pytest.approx(np.mean(T2))
    assert standing.tasks["t1"].value == 0.2 and standing.tasks["t1"].ci_source == "interval"
    html = site.index.read_text()
    assert "lower is better, guessed from its name: not in the means" in html
    assert 'title="negation_gap__hf_accuracy__accuracy">Negation gap in accuracy' in html


def test_a_declared_direction_comes_before_the_name_rule_and_the_pages_say_which(tmp_path: Path) -> None:
    # "error" in the name would make it lower-is-better; the task says higher (an F1 of detecting errors).
    detect = "hf_error_detection__f1"
    write_document(
        tmp_path / "results/a/t1.json", "t1", "hf:a", T1, metric=detect, metric_directions={detect: "higher"}
    )
    # Nothing in the name says lower; the task declares it with a pattern.
    write_document(
        tmp_path / "results/a/t2.json", "t2", "hf:a", T2, metric="hf_cost__cost", metric_directions={"*cost": "lower"}
    )
    write_document(tmp_path / "results/a/t3.json", "t3", "hf:a", T3, metric="hf_wer__wer")  # declares nothing
    site = build(tmp_path)
    t1, t2, t3 = (site.standings.headlines[t] for t in ("t1", "t2", "t3"))
    assert (t1.direction, t1.direction_source, t1.counts) == ("higher", "declared by the task", True)
    assert (t2.direction, t2.direction_source, t2.counts) == ("lower", "declared by the task", False)
    assert (t3.direction, t3.direction_source, t3.counts) == ("lower", "guessed from its name", False)
    (standing,) = site.standings.models
    assert standing.overall.of == 1 and standing.overall.score.value == pytest.approx(np.mean(T1))
    html = site.index.read_text()
    assert "lower is better, declared by the task: not in the means" in html
    assert "lower is better, guessed from its name: not in the means" in html
    data = json.loads(site.data.read_text())
    sources = {t["id"]: (t["lower_is_better"], t["direction_source"]) for t in data["tasks"]}
    assert sources == {
        "t1": (False, "declared by the task"),
        "t2": (True, "declared by the task"),
        "t3": (True, "guessed from its name"),
    }
    t1_page = (tmp_path / "site/tasks/t1.html").read_text()
    assert f'title="{detect}: higher is better (declared by the task)"' in t1_page
    t2_page = (tmp_path / "site/tasks/t2.html").read_text()
    assert 'title="hf_cost__cost: lower is better (declared by the task)">' in t2_page
    assert '<span class="gb-direction">↓</span>' in t2_page


def test_a_closer_to_zero_metric_is_compared_by_its_absolute_value_and_stays_out_of_means(tmp_path: Path) -> None:
    gap = "negation_gap__hf_accuracy__accuracy"
    zero = {"negation_gap__*": "zero"}
    for spec, folder, scores in [("hf:a", "a", [0.5] * 8), ("baseline:minus", "b", [-0.25] * 8)]:
        write_document(tmp_path / f"results/{folder}/t1.json", "t1", spec, scores, metric=gap, metric_directions=zero)
    write_document(
        tmp_path / "results/c/t1.json", "t1", "baseline:plus", [0.125] * 8, metric=gap, metric_directions=zero
    )
    write_document(tmp_path / "results/a/t2.json", "t2", "hf:a", T2)
    site = build(tmp_path)
    t1 = site.standings.headlines["t1"]
    assert (t1.direction, t1.lower_is_better, t1.counts) == ("zero", False, False)
    (standing,) = site.standings.models
    assert standing.overall.of == 1 and standing.overall.score.value == pytest.approx(np.mean(T2))
    html = site.index.read_text()
    assert "(|x| lower is better (closer to zero), declared by the task: not in the means)" in html
    # the best baseline is the gap nearest 0 (0.125), not the smallest (-0.25, what 'lower' would pick)
    row = html.split('data-task="t1">')[1].split("</tr>")[0]
    assert '<td data-sort="0.125" title="baseline:plus">' in row
    page = (tmp_path / "site/tasks/t1.html").read_text()
    assert (
        f'title="{gap}: |x| lower is better (closer to zero) (declared by the task)">Negation gap in accuracy' in page
    )
    assert '<span class="gb-direction">|x|↓</span>' in page
    # its column sorts by absolute value: -0.25 sorts as 0.25, between 0.125 and 0.5
    assert '<td data-sort="0.25">-0.250' in page and '<td data-sort="0.5">0.500' in page
    data = json.loads(site.data.read_text())
    assert {t["id"]: t["direction"] for t in data["tasks"]} == {"t1": "zero", "t2": "higher"}


def test_a_task_with_subtasks_is_ranked_by_its_merged_results(tmp_path: Path) -> None:
    for sub, scores in [("affirmative", T1), ("negated", T2)]:
        write_document(tmp_path / f"results/a/neg.{sub}.json", f"neg:{sub}", "hf:a", scores)
    merged = write_document(tmp_path / "results/a/neg.json", "neg", "hf:a", T3)
    document, samples = read_results(merged)
    document["task"]["subtasks"] = ["neg:affirmative", "neg:negated"]
    document["merged_from"] = [
        {"task_id": f"neg:{sub}", "results_file": f"neg.{sub}.json", "sha256": "0" * 64}
        for sub in ("affirmative", "negated")
    ]
    write_results(document, merged, samples)
    site = build(tmp_path)
    assert list(site.standings.headlines) == ["neg"]
    assert site.standings.subtasks == {"neg": ["neg:affirmative", "neg:negated"]}
    (standing,) = site.standings.models
    assert standing.tasks["neg"].value == pytest.approx(np.mean(T3))
    assert "subtasks: neg:affirmative, neg:negated" in site.index.read_text()
    parent_page = (tmp_path / "site/tasks/neg.html").read_text()
    assert 'href="neg.affirmative.html"' in parent_page and "Subtasks (detail, not ranked)" in parent_page


def stale_fixture(tmp_path: Path) -> tuple[Path, Path]:
    old = write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", T1, fingerprint="old")
    new = write_document(
        tmp_path / "results/b/t1.json", "t1", "hf:b", T2, fingerprint="new", created="2026-02-01T00:00:00+00:00"
    )
    return old, new


@pytest.mark.parametrize("on_stale", ["skip", "latest"])
def test_stale_files_are_left_out_and_listed(tmp_path: Path, on_stale: str) -> None:
    old, _ = stale_fixture(tmp_path)
    site = build(tmp_path, on_stale=on_stale)
    assert [s.path for s in site.stale] == [old]  # not installed: the newest version is current either way
    assert [s.model.spec for s in site.standings.models] == ["hf:b"]
    html = site.index.read_text()
    assert 'id="gb-skipped"' in html and str(old) in html and "1 stale file(s) left out" in html
    assert json.loads(site.data.read_text())["stale"][0]["path"] == str(old)
    result = CliRunner().invoke(cli, ["leaderboard", str(tmp_path / "results"), "-o", str(tmp_path / "cli-site")])
    assert result.exit_code == 0, result.output
    assert "Left out 1 stale results file(s) (--on-stale skip):" in result.output and str(old) in result.output


def test_on_stale_fail_stops_naming_both_versions(tmp_path: Path) -> None:
    old, new = stale_fixture(tmp_path)
    with pytest.raises(LeaderboardError) as error:
        build(tmp_path, on_stale="fail")
    assert str(old) in str(error.value) and str(new) in str(error.value)
    with pytest.raises(LeaderboardError, match="on_stale must be one of skip, latest, fail"):
        collect([tmp_path / "results"], on_stale="newest")  # type: ignore[arg-type]


def test_skip_keeps_the_installed_version_where_latest_keeps_the_newest(results_root: Path, tmp_path: Path) -> None:
    shutil.copytree(results_root / "runs", tmp_path / "runs")
    (path,) = (tmp_path / "runs").rglob("category_membership.json")
    document, samples = read_results(path)
    document["task"]["fingerprint"]["config_sha256"] = "f" * 64  # made from an edited config, later
    document["task"]["fingerprint"]["sha256"] = "e" * 64
    document["created"] = "2999-01-01T00:00:00+00:00"
    write_results(document, path, samples)
    (demo_file,) = (results_root / "demo" / "results").rglob("category_membership.json")
    dirs = [results_root / "demo", tmp_path / "runs"]
    skip = build_leaderboard(dirs, tmp_path / "skip", on_stale="skip")
    assert [s.path for s in skip.stale] == [path] and "installed one" in skip.stale[0].reason
    latest = build_leaderboard(dirs, tmp_path / "latest", on_stale="latest")
    assert [s.path for s in latest.stale] == [demo_file] and "older version" in latest.stale[0].reason


def test_ranking_does_not_depend_on_the_order_of_the_directories(tmp_path: Path) -> None:
    write_document(tmp_path / "r1/a/t1.json", "t1", "hf:a", T1)
    write_document(tmp_path / "r2/a/t2.json", "t2", "hf:a", T2)
    one = rank_models(collect([tmp_path / "r1", tmp_path / "r2"]), resamples=300)
    two = rank_models(collect([tmp_path / "r2", tmp_path / "r1"]), resamples=300)
    assert one.models[0].overall.score.ci == two.models[0].overall.score.ci


def test_a_broken_per_sample_log_is_named_with_its_line(tmp_path: Path) -> None:
    path = write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", T1)
    log = path.with_name("t1.samples.jsonl")
    lines = log.read_text().splitlines()
    log.write_text("\n".join([lines[0], "{not json", *lines[2:]]) + "\n")
    with pytest.raises(ResultsFileError, match=r"t1\.samples\.jsonl are not from the same run"):
        build(tmp_path)
    document = json.loads(path.read_text())  # a file written before results recorded their log's digest
    del document["samples_sha256"], document["samples_count"]
    path.write_text(json.dumps(document))
    with pytest.raises(ResultsFileError, match=r"t1\.samples\.jsonl:2: not valid JSON"):
        build(tmp_path)
    log.unlink()
    with pytest.raises(ResultsFileError, match=r"t1\.samples\.jsonl: the per-sample log named by its results file"):
        build(tmp_path)


def test_task_pages_reuse_the_rankings_bootstrap_at_the_headline_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import genbench._leaderboard.pages as pages

    write_document(tmp_path / "results/a/t1.json", "t1", "hf:a", T1)
    write_document(tmp_path / "results/a/t1-5.json", "t1", "hf:a", T2, shots=5, created="2026-01-02T00:00:00+00:00")
    computed: list[int | None] = []
    real = pages.cell_score

    def counting(cell, headline, *args, **kwargs):  # type: ignore[no-untyped-def]
        computed.append(headline.shots)
        return real(cell, headline, *args, **kwargs)

    monkeypatch.setattr(pages, "cell_score", counting)
    site = build(tmp_path)
    assert computed == [5]  # 0 shots (the headline) came from the ranking
    (standing,) = site.standings.models
    assert site.standings.cell_scores[(standing.model.key, "t1", 0, "hf_accuracy__accuracy")] is standing.tasks["t1"]
