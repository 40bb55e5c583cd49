"""``genbench-cli leaderboard``: a static site from results files."""

from __future__ import annotations

from pathlib import Path

import click

from genbench.cli.params import output_dir_option, shots_option
from genbench.leaderboard import build_leaderboard


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
    help="The setting the overview shows for each task that has it (else its unprompted or smallest setting).",
)
def leaderboard(results_dirs: tuple[Path, ...], output_dir: Path, shots: int) -> None:
    """Build a static leaderboard site from the results files under RESULTS_DIR... (searched recursively).

    The overview (models x tasks, primary metric with its interval, sortable, filterable by keyword), one page per
    task (metrics per model and shots, a chart of score vs shots, the task card) and one page per model. Every page
    is self-contained: open DIR/index.html from disk, no server or network needed. Results of one task made
    from different versions of it (different fingerprints) are refused.

    Example: genbench-cli leaderboard results demo_results/results -o site
    """
    site = build_leaderboard(results_dirs, output_dir, shots=shots)
    board = site.board
    click.echo(
        f"Wrote the leaderboard of {len(board.models)} model(s) x {len(board.tasks)} task(s) "
        f"({len(board.cells)} result(s)) to {site.index}"
    )
    if site.skipped:
        click.echo(f"Skipped {len(site.skipped)} JSON file(s) that are not results files, e.g. {site.skipped[0]}")
