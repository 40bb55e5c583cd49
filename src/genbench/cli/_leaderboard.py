"""``genbench-cli leaderboard``: a static site from results files."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import click

from genbench._leaderboard import build_leaderboard
from genbench._leaderboard.aggregation import AGGREGATIONS, Aggregation
from genbench._leaderboard.collect import ON_STALE, OnStale
from genbench._leaderboard.overview import unranked_advice
from genbench.cli.params import (
    SharedOption,
    TaskIdType,
    bootstrap_resamples_option,
    output_dir_option,
    seed_option,
    shots_option,
    task_option,
)


@click.command("leaderboard")
@click.argument("results_dirs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@output_dir_option(
    required=True,
    deprecated=("--output",),
    help="Directory of the site (index.html, tasks/, models/); created if missing.",
)
@shots_option(
    default=0,
    show_default=True,
    help="The setting ranked for each task that has it (else its unprompted or smallest setting).",
)
@click.option(
    "--on-stale",
    type=click.Choice(ON_STALE),
    default="skip",
    show_default=True,
    help="Results files made from another version of their task (another fingerprint): skip = leave out those not "
    "of the installed version (else of the newest), latest = keep the newest version among the files, fail = stop. "
    "Left-out files are listed here and on the page.",
)
@task_option(
    several=True,
    required=False,
    deprecated=("--tasks",),
    help="The tasks to rank: ids or patterns ('my_*'), repeated or comma-separated; a task brings its subtasks. "
    "Default: every task of the results.",
)
@click.option(
    "--exclude-task",
    "exclude_tasks",
    cls=SharedOption,
    aliases=("--exclude-tasks",),
    type=TaskIdType(several=True),
    multiple=True,
    metavar="ID[,ID...]",
    help="Tasks to leave out (ids or patterns, repeated or comma-separated).",
)
@click.option(
    "--shift-report",
    "shift_reports",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    multiple=True,
    help="A shift report (written by shift measure) that results files record, when it is not next to them "
    "(repeatable). A report is shown only if its SHA-256 is the one the results record.",
)
@click.option(
    "--model-info",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A YAML file: model label or spec -> {training_corpora: [NAME, ...]}. A model trained on a corpus that a "
    "task's shift report measured, and found test examples in, is flagged on that task.",
)
@click.option(
    "--aggregation",
    type=click.Choice(AGGREGATIONS),
    default="raw",
    show_default=True,
    help="What the means and ranks are of: raw = the tasks' headline scores; chance-normalised = each task's "
    "headline mapped to 0 = chance (its best baseline's score), 100 = perfect (tasks with no baseline are left out "
    "and named). Every page says which.",
)
@bootstrap_resamples_option(
    help="Bootstrap resamples of the means' intervals and of the rank intervals.",
    deprecated=("--resamples",),
)
@seed_option(help="Seed of the rank intervals' bootstrap over test examples.")
def leaderboard(
    results_dirs: tuple[Path, ...],
    output_dir: Path,
    shots: int,
    on_stale: str,
    task_ids: tuple[str, ...] | None,
    exclude_tasks: tuple[list[str], ...],
    shift_reports: tuple[Path, ...],
    model_info: Path | None,
    aggregation: str,
    bootstrap_resamples: int,
    seed: int,
) -> None:
    """Build a static leaderboard site from the results files under RESULTS_DIR... (searched recursively).

    The overview ranks the models by the mean of each task's headline score (with 95% intervals from the per-sample
    scores, each rank with its 95% rank interval; --aggregation chance-normalised: of scores normalised to chance),
    shows the means per taxonomy value and the scores per task (sortable, filterable); one page per task (metrics
    per model and shots, a chart of score vs shots, the task card) and one page per model, and leaderboard.json.
    Every page is self-contained: open DIR/index.html from disk, no server or network needed.

    \b
    Examples (the second for your own tasks only):
      genbench-cli leaderboard results demo_results/results -o site
      genbench-cli leaderboard results -o site -t my_task,my_other_task
    """
    site = build_leaderboard(
        results_dirs,
        output_dir,
        shots=shots,
        on_stale=cast(OnStale, on_stale),
        tasks=task_ids,
        exclude_tasks=[task_id for group in exclude_tasks for task_id in group],
        shift_reports=shift_reports,
        model_info=model_info,
        aggregation=cast(Aggregation, aggregation),
        resamples=bootstrap_resamples,
        seed=seed,
    )
    board = site.board
    ranked = sum(1 for s in site.standings.models if s.rank)
    click.echo(
        f"Wrote the leaderboard of {len(board.models)} model(s) x {len(site.standings.headlines)} task(s) "
        f"({len(board.cells)} result(s), {ranked} model(s) ranked) to {site.index}"
    )
    if site.stale:
        click.echo(f"Left out {len(site.stale)} stale results file(s) (--on-stale {on_stale}):")
        for stale in site.stale:
            click.echo(f"  {stale.path}: {stale.reason}")
    if site.tasks_left_out:
        click.echo(f"Left out {len(site.tasks_left_out)} task(s) of the results: {', '.join(site.tasks_left_out)}")
    if site.unregistered:
        click.echo(
            f"{len(site.unregistered)} task(s) not in this installation's registry, shown from their results files: "
            f"{', '.join(site.unregistered)} (leave them out with --exclude-task)"
        )
    advice = unranked_advice(site.standings)
    if advice is not None:
        click.echo(
            f"No model is ranked: none has results on all {len(advice.tasks)} task(s). To rank over "
            f"{advice.which}: -t {','.join(advice.suggested)}"
        )
    for report in site.unused_shift_reports:
        click.echo(
            f"{report}: no results file of the leaderboard records this shift report (run --shift-report); not shown"
        )
    if site.unknown_model_info:
        click.echo(f"{model_info}: no model of these results is named {', '.join(map(repr, site.unknown_model_info))}")
    if site.skipped:
        click.echo(f"Skipped {len(site.skipped)} JSON file(s) that are not results files, e.g. {site.skipped[0]}")
