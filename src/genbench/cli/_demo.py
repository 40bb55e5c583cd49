"""``genbench-cli demo``: run every registry task with the baseline predictors and print the results."""

from __future__ import annotations

import traceback
from numbers import Real
from pathlib import Path
from typing import Any

import click

from genbench._core.errors import GenBenchError
from genbench.cli._output import dumps
from genbench.cli.params import (
    global_setting,
    json_option,
    output_dir_option,
    seed_option,
    shots_option,
    task_option,
)
from genbench.runs._demo import run_demo


def _one_line(error: str) -> str:
    """The first line of an error message, with a count of the lines left out (e.g. further config problems)."""
    lines = [line for line in error.splitlines() if line.strip()]
    if len(lines) <= 1:
        return error.strip()
    return f"{lines[0]} (and {len(lines) - 1} more line{'s' if len(lines) > 2 else ''}; see --debug)"


def _format_value(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, Real):
        return str(value)
    return f"{float(value):.4f}"


@click.command("demo")
@output_dir_option(
    default=Path("demo_results"),
    show_default=True,
    help="Directory for the results files (one <task_id>.json per task).",
)
@task_option(several=True, required=False, deprecated=("-i",))
@shots_option(several=True, default="0,3", show_default=True, help="Comma-separated numbers of few-shot examples.")
@seed_option()
@click.option(
    "--results-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write the baselines' results files in the format of `genbench-cli run` (95% intervals, per-sample "
    "logs) here, e.g. demo_results/results.",
)
@json_option(help="Print the records of the tasks (as each <task_id>.json holds it) as a JSON list, not a table.")
def demo(
    output_dir: Path,
    task_ids: tuple[str, ...] | None,
    shots: list[int],
    seed: int,
    results_dir: Path | None,
    as_json: bool,
) -> None:
    """Run every task with simple baseline predictors, zero- and few-shot, and record the scores.

    Writes one JSON file per task (task id, config fingerprint, genbench version, shots, seed, number of
    examples, metrics), with --results-dir also the baselines' results files in the format of `genbench-cli run`
    (with 95% bootstrap intervals and per-sample logs), and prints a table of the metrics. A task that cannot be
    loaded (a broken config or task.py, e.g. one being written) is skipped, and the end of the output says why; a
    task asked for with --task that cannot be loaded is an error. A task that loads but fails while running is
    reported in one line; the others still run, and the command then exits with status 1. The global --debug
    prints the traceback of each failing task.
    """
    debug = global_setting("debug")

    def skipped(result: Any) -> bool:
        return result.broken and not task_ids

    def report_failure(result: Any) -> None:
        if result.ok or skipped(result):
            return
        click.echo(f"Error: task {result.task_id!r} failed: {_one_line(result.error)}", err=True)
        if debug and result.exception is not None:
            click.echo("".join(traceback.format_exception(result.exception)), err=True)

    try:
        results = run_demo(
            output_dir,
            task_ids=list(task_ids) if task_ids else None,
            shot_list=shots,
            random_seed=seed,
            on_result=report_failure,
            results_dir=results_dir,
        )
    except GenBenchError as exc:
        if debug:
            raise
        raise click.ClickException(_one_line(str(exc))) from exc

    written = [r for r in results if r.ok]
    if as_json:
        click.echo(dumps([result.record for result in written]), nl=False)
    else:
        _print_table(results, seed)

    def echo(line: str) -> None:  # with --json, stdout holds the JSON document only
        click.echo(line, err=as_json)

    for result in results:
        reranking = result.record.get("reranking") if result.ok and not as_json else None
        if reranking:
            echo(f"{result.task_id}: test set reranked by the {reranking['model']}:")
            for line in reranking["table"]:
                echo(f"  {line}")
    failed = [r for r in results if not r.ok and not skipped(r)]
    echo(f"Wrote {len(written)} results file{'s' if len(written) != 1 else ''} to {output_dir}/:")
    for result in written:
        echo(f"  {result.output_path}")
    if results_dir is not None and written:
        echo(f"Wrote the baselines' results files (genbench-cli schema --results) under {results_dir}/")
    broken = [r for r in results if skipped(r)]
    if broken:
        click.echo(f"Skipped {len(broken)} broken task{'s' if len(broken) != 1 else ''} (it does not load):", err=True)
        for result in broken:
            click.echo(f"  {result.task_id}: {_one_line(result.error or '')}", err=True)
            if debug and result.exception is not None:
                click.echo("".join(traceback.format_exception(result.exception)), err=True)
    if failed:
        ids = ", ".join(r.task_id for r in failed)
        click.echo(f"{len(failed)} of {len(results)} tasks failed ({ids}); see the error above.", err=True)
        raise click.exceptions.Exit(1)


def _print_table(results: list[Any], seed: int) -> None:
    """The table of the baselines' metrics, per task, shots and metric."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    if not console.is_terminal:  # keep rows unwrapped in logs and captured output
        console = Console(width=140)
    table = Table(title=f"genbench demo: baseline scores (seed {seed})")
    table.add_column("Task", no_wrap=True)
    table.add_column("Shots", justify="right", no_wrap=True)
    table.add_column("Metric", no_wrap=True)
    table.add_column("Value", justify="right", no_wrap=True)
    for result in results:
        if not result.ok:
            continue
        for setting, metrics in result.metrics.items():
            for key, value in metrics.items():
                if isinstance(value, (dict, list)):
                    continue  # nested values (e.g. seqeval per entity type) are in the JSON file
                table.add_row(escape(result.task_id), setting, escape(key), _format_value(value))
        table.add_section()
    console.print(table)
