"""``genbench-cli eval-card``: a task's GenBench evaluation card as SVG, HTML, LaTeX or Markdown."""

from __future__ import annotations

from pathlib import Path

import click

from genbench._core.files import write_text_atomic
from genbench.cli.params import kebab_case_option, output_file_option, task_option
from genbench.display._eval_card import FORMATS
from genbench.display._eval_card import eval_card as build_card
from genbench.display._measured_shift import MeasuredShift


@click.command("eval-card")
@task_option()
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="markdown",
    show_default=True,
    help="svg (a figure), html (a page or notebook), latex (a standalone document, as genbench.org writes it) "
    "or markdown (a doc.md).",
)
@kebab_case_option(
    "--shift-report",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The task's shift report (written by shift measure): state the shift measured between that pretraining "
    "corpus and the test set (the corpus and its size, the n-gram hit share with its interval, the share flagged) "
    "under the shift-locus axis, and whether the task declares that locus (pretrain-test).",
)
@output_file_option(help="Write the card to this file (default: print it).")
def eval_card(task_id: str, fmt: str, shift_report: Path | None, output_file: Path | None) -> None:
    """Render a task's GenBench evaluation card: the taxonomy's five axes, the task's values marked.

    The values come from the task's `taxonomy` block (docs/taxonomy.md); a task with subtasks marks its own values
    and each subtask's that differ.

    \b
    Examples:
      genbench-cli eval-card -t arithmetic_length
      genbench-cli eval-card -t negation_consistency --format svg --output-file card.svg
      genbench-cli eval-card -t arithmetic_length --format latex --output-file card.tex
      genbench-cli eval-card -t arithmetic_length --shift-report arithmetic_length.shift.json
    """
    from genbench.contamination.shift._report import read_shift_report
    from genbench.task._factory import load_task

    shift = None
    if shift_report is not None:
        report = read_shift_report(shift_report)
        measured = report["test_set"]["name"]
        if measured != task_id and not measured.startswith(task_id + ":"):
            raise click.BadParameter(
                f"{shift_report} measures task {measured!r}, not {task_id!r}: give {task_id}'s report "
                f"(genbench-cli shift measure -t {task_id}).",
                param_hint="'--shift-report'",
            )
        shift = MeasuredShift.of(report)
    text = build_card(load_task(task_id), shift).render(fmt)
    if output_file is not None:
        write_text_atomic(output_file, text)
        click.echo(f"Wrote {output_file}")
    else:
        click.echo(text, nl=False)
