"""``genbench-cli eval-card``: a task's GenBench evaluation card as SVG, HTML, LaTeX or Markdown."""

from __future__ import annotations

import click

from genbench.core.files import write_text_atomic
from genbench.display.eval_card import FORMATS
from genbench.display.eval_card import eval_card as build_card


@click.command("eval-card")
@click.option("-i", "--id", "task_id", required=True, metavar="ID", help="Task id: 'id' or 'id:subtask'.")
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
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write to this file.")
def eval_card(task_id: str, fmt: str, output: str | None) -> None:
    """Render a task's GenBench evaluation card: the taxonomy's five axes, the task's values marked.

    The values come from the task's `taxonomy` block (docs/taxonomy.md); a task with subtasks marks its own values
    and each subtask's that differ.

    \b
    Examples:
      genbench-cli eval-card -i arithmetic_length
      genbench-cli eval-card -i negation_consistency --format svg -o card.svg
      genbench-cli eval-card -i arithmetic_length --format latex -o card.tex
    """
    from genbench.task.factory import load_task

    text = build_card(load_task(task_id)).render(fmt)
    if output:
        write_text_atomic(output, text)
        click.echo(f"Wrote {output}")
    else:
        click.echo(text, nl=False)
