"""``genbench-cli compare``: a paired test per metric between two results files of the same task."""

from __future__ import annotations

from pathlib import Path

import click

from genbench.cli._output import console, dumps
from genbench.cli.params import bootstrap_resamples_option, global_setting, json_option, seed_option


@click.command("compare")
@click.argument("results_a", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("results_b", type=click.Path(dir_okay=False, path_type=Path))
@bootstrap_resamples_option(help="Bootstrap resamples of the difference's interval.", deprecated=("--resamples",))
@click.option(
    "--permutations", type=click.IntRange(min=10), default=10_000, show_default=True, help="Permutation-test draws."
)
@click.option(
    "--subset",
    type=click.Choice(["all", "clean"]),
    default="all",
    show_default=True,
    help="Compare on all examples, or on the clean subset: the examples the runs' shift report (run --shift-report) "
    "does not flag as contained in its corpus; both runs must have used one corpus index and threshold.",
)
@seed_option(help="Seed of the resamples and permutations.")
@json_option(help="Print the comparison as JSON instead of a table.")
def compare(
    results_a: Path,
    results_b: Path,
    bootstrap_resamples: int,
    permutations: int,
    subset: str,
    seed: int,
    as_json: bool,
) -> None:
    """Compare two results files of one task (A - B) on the examples both scored.

    Per setting and metric: the mean per-sample values of A and B, their difference with its 95% paired bootstrap
    interval, and the p-value of a two-sided paired permutation (sign-flip) test.

    Two merged results of a task with subtasks are compared on the task's merged metrics (its negation_gap, ...).

    With --subset clean, only the examples neither run's shift report flags as contained are paired.

    \b
    Example:
      genbench-cli compare results/hf_gpt2-*/seed-42.shots-0/category_membership.json \\
          results/hf_opt-*/seed-42.shots-0/category_membership.json
    """
    from genbench.runs._compare import compare_results, comparison_rows, unshared_settings

    comparisons = compare_results(
        results_a,
        results_b,
        subset="clean" if subset == "clean" else "all",
        resamples=bootstrap_resamples,
        permutations=permutations,
        seed=seed,
    )
    for name, only in zip("AB", unshared_settings(results_a, results_b), strict=True):
        if only and not global_setting("quiet"):
            settings = ", ".join("unprompted" if shots is None else f"{shots}-shot" for shots in only)
            click.echo(
                f"Note: {settings} only in {name}: not compared (the other file has no such setting).", err=True
            )
    if as_json:
        click.echo(dumps(comparison_rows(comparisons)), nl=False)
        return
    from rich.markup import escape
    from rich.table import Table

    title = f"A = {results_a}\nB = {results_b}" + ("\nclean subset" if subset == "clean" else "")
    table = Table(title=title)
    for column in ("Shots", "Metric", "A", "B", "A - B", "95% CI", "p", "n"):
        table.add_column(column, justify="left" if column == "Metric" else "right")
    for c in comparisons:
        table.add_row(
            "-" if c.shots is None else str(c.shots),
            escape(c.metric) + ("*" if c.note else ""),
            f"{c.a:.4f}",
            f"{c.b:.4f}",
            f"{c.difference:+.4f}",
            f"[{c.low:+.4f}, {c.high:+.4f}]",
            f"{c.p_value:.4f}",
            str(c.n),
        )
    console().print(table)
    if any(c.note for c in comparisons):
        click.echo("* compared on per-sample values; the metric itself is not their mean.")
