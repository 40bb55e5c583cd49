"""Choosing the tasks a leaderboard ranks (``-t``, ``--exclude-task``), saying why nobody is ranked and what ranks
them, and noting the tasks this installation's registry does not have."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench._leaderboard import LeaderboardError, build_leaderboard
from genbench.cli import cli
from tests.leaderboard.fixtures import write_document


def leaderboard(results_root: Path, site: Path, *options: str) -> str:
    dirs = [str(results_root / "demo"), str(results_root / "runs")]
    result = CliRunner().invoke(cli, ["leaderboard", *dirs, "-o", str(site), *options])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_board_that_ranks_nobody_says_why_and_which_tasks_rank_the_models(
    results_root: Path, tmp_path: Path
) -> None:
    """The python: predictor has results on category_membership only, the demo's baselines on both tasks: nobody
    is ranked, and the page and the command say so, name what the model misses and the -t that ranks it."""
    output = leaderboard(results_root, tmp_path / "site")
    assert "0 model(s) ranked" in output
    assert (
        "No model is ranked: none has results on all 2 task(s). To rank over the tasks it has: -t category_membership"
        in output
    )
    html = (tmp_path / "site" / "index.html").read_text()
    assert '<section id="gb-why-unranked"' in html
    why = html.split('<section id="gb-why-unranked"', 1)[1].split("</section>", 1)[0]
    assert "covers 1 (misses arithmetic_length)" in why
    assert "-o SITE -t category_membership</code>" in why and "type in the filter" in why


def test_choosing_the_tasks_ranks_over_them_and_says_which_were_left_out(results_root: Path, tmp_path: Path) -> None:
    for options in (["-t", "category_membership"], ["--exclude-task", "arithmetic_length"], ["-t", "category_*"]):
        site = tmp_path / options[1].replace("*", "_")
        output = leaderboard(results_root, site, *options)
        assert "1 model(s) ranked" in output and "x 1 task(s)" in output, options
        assert "Left out 1 task(s) of the results: arithmetic_length" in output
        assert "No model is ranked" not in output
        html = (site / "index.html").read_text()
        assert '<h1 id="gb-title">Leaderboard: 1 ranked model over 1 task</h1>' in html
        assert "left out of the results: arithmetic_length." in html and "gb-why-unranked" not in html
        data = json.loads((site / "leaderboard.json").read_text())
        assert data["tasks_left_out"] == ["arithmetic_length"] and [t["id"] for t in data["tasks"]] == [
            "category_membership"
        ]
        assert not (site / "tasks" / "arithmetic_length.html").exists()
        # The baseline that only had arithmetic_length results is not on the board at all.
        assert sorted(m["label"] for m in data["models"] + data["baselines"]) == [
            "baseline:majority_option",
            next(m["label"] for m in data["models"]),
        ]


def test_the_former_spelling_tasks_works_with_a_note(results_root: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["leaderboard", str(results_root / "runs"), "-o", str(tmp_path), "--tasks", "category_membership"]
    )
    assert result.exit_code == 0, result.output
    assert "Note: --tasks is deprecated" in result.stderr and "1 model(s) ranked" in result.stdout


def test_a_task_the_results_do_not_have_is_an_error_naming_those_they_have(results_root: Path, tmp_path: Path) -> None:
    for option in ("-t", "--exclude-task"):
        result = CliRunner().invoke(
            cli, ["leaderboard", str(results_root / "demo"), "-o", str(tmp_path), option, "category_membrship"]
        )
        assert result.exit_code == 1
        assert "'category_membrship': no results of such a task; the results hold arithmetic_length, " in result.output
    with pytest.raises(LeaderboardError, match="leave no task to rank"):
        build_leaderboard([results_root / "demo"], tmp_path, exclude_tasks=["*"])


def test_a_task_with_subtasks_brings_its_subtasks(tmp_path: Path) -> None:
    for task_id in ("neg", "neg:a", "neg:b", "other"):
        write_document(tmp_path / "r" / f"{task_id}.json", task_id, "hf:m", [1.0, 0.0])
    site = build_leaderboard([tmp_path / "r"], tmp_path / "site", tasks=["neg"])
    assert sorted(site.board.tasks) == ["neg", "neg:a", "neg:b"] and site.tasks_left_out == ["other"]


def test_tasks_outside_the_registry_are_noted(results_root: Path, tmp_path: Path) -> None:
    write_document(tmp_path / "own" / "my_own_task.json", "my_own_task", "hf:m", [1.0, 0.0, 1.0])
    site = build_leaderboard([results_root / "demo", tmp_path / "own"], tmp_path / "site")
    assert site.unregistered == ["my_own_task"]  # the shipped tasks are in the registry
    html = site.index.read_text()
    note = html.split('id="gb-unregistered">', 1)[1].split("</p>", 1)[0]
    assert note.startswith("1 task not in this installation's registry: my_own_task.") and "--exclude-task" in note
    row = html.split('data-task="my_own_task">', 1)[1].split("</tr>", 1)[0]
    assert "(not in this installation's registry)" in row
    assert json.loads(site.data.read_text())["unregistered_tasks"] == ["my_own_task"]
    result = CliRunner().invoke(
        cli, ["leaderboard", str(results_root / "demo"), str(tmp_path / "own"), "-o", str(tmp_path / "cli")]
    )
    assert "1 task(s) not in this installation's registry, shown from their results files: my_own_task" in (
        result.output
    )


def test_two_own_tasks_with_one_model_each_get_advice_that_ranks_someone(tmp_path: Path) -> None:
    """The newcomer's board: two new tasks, one model on each, the shipped tasks' baselines: nobody ranked. The
    advice names the tasks that rank a model, and following it ranks that model."""
    write_document(tmp_path / "r" / "a" / "mine_one.json", "mine_one", "hf:/models/a", [1.0, 0.0, 1.0])
    write_document(tmp_path / "r" / "a" / "mine_two.json", "mine_two", "hf:/models/a", [1.0, 1.0, 0.0])
    write_document(tmp_path / "r" / "b" / "mine_two.json", "mine_two", "hf:/models/b", [0.0, 1.0, 0.0])
    write_document(tmp_path / "r" / "b" / "mine_three.json", "mine_three", "hf:/models/b", [0.0, 1.0, 0.0])
    site = build_leaderboard([tmp_path / "r"], tmp_path / "site")
    assert not any(s.rank for s in site.standings.models)
    why = site.index.read_text().split('<section id="gb-why-unranked"', 1)[1].split("</section>", 1)[0]
    assert "over the tasks they all have: <code>genbench-cli leaderboard RESULTS_DIR... -o SITE -t mine_two<" in why
    ranked = build_leaderboard([tmp_path / "r"], tmp_path / "ranked", tasks=["mine_two"])
    assert [s.rank for s in ranked.standings.models] == [1, 2]
    # Sharing no task: the tasks of the model with most results (the first of those that tie) rank it.
    write_document(tmp_path / "s" / "a" / "mine_one.json", "mine_one", "hf:/models/a", [1.0, 0.0, 1.0])
    write_document(tmp_path / "s" / "b" / "mine_two.json", "mine_two", "hf:/models/b", [0.0, 1.0, 0.0])
    site = build_leaderboard([tmp_path / "s"], tmp_path / "site_s")
    why = site.index.read_text().split('<section id="gb-why-unranked"', 1)[1].split("</section>", 1)[0]
    assert "over the tasks of hf:/models/a: <code>genbench-cli leaderboard RESULTS_DIR... -o SITE -t mine_one" in why
