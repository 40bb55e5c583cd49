"""``genbench-cli show-task``: a task's config summary, split sizes and example prompts with their targets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from genbench.cli._output import spinner
from genbench.cli.params import seed_option, shots_option, task_option
from genbench.display._summary import config_summary, example_prompts, light_splits, split_sizes
from genbench.review._prompt_checks import prompt_lint_messages

if TYPE_CHECKING:
    from genbench.task import Task

__all__ = ["config_summary", "example_prompts", "show_task"]


def _prepare_task(task: Task, shots: list[int], seed: int) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """The summary rows and example prompts of a task: everything that can fail, before anything is printed."""
    rows = [("Description", task.config.description), *config_summary(task.config)]
    with spinner(f"Loading the data of {task.task_id}..."):
        # Tables read without `datasets` when the task allows it (see genbench.display._summary): show-task stays fast.
        splits = light_splits(task)
        sizes = split_sizes(task, splits)
    rows.append(("Splits", ", ".join(f"{split} {n}" for split, n in sizes.items())))
    _print_prompt_lint(task)  # on stderr, before the prompts are built: a prompt that cannot be built is an error
    with spinner(f"Building prompts of {task.task_id}..."):
        prompts = example_prompts(task, shots, seed, splits=splits)
    return rows, prompts


def _print_task(heading: str, rows: list[tuple[str, str]], prompts: list[dict[str, Any]]) -> None:
    click.secho(heading, bold=True)
    _print_rows(rows)
    for prompt in prompts:
        click.echo()
        click.secho(f"--- {prompt['title']} ---", bold=True)
        if prompt["description"]:
            click.secho(f"({prompt['description']})", dim=True)
        # The prompt exactly as the model sees it (trailing spaces and newlines included).
        click.echo(prompt["input"])
        click.secho("--- target ---", bold=True)
        click.echo(prompt["target"])


@click.command("show-task")
@task_option()
@shots_option(several=True, default="0,3", show_default=True, help="Numbers of few-shot examples of the prompts.")
@seed_option()
def show_task(task_id: str, shots: list[int], seed: int) -> None:
    """Show a task: its config summary, split sizes and an example prompt (0-shot and k-shot) with its target.

    For a task with subtasks, every subtask is shown; give 'id:subtask' to show one.

    \b
    Examples:
      genbench-cli show-task -t arithmetic_length
      genbench-cli show-task -t negation_consistency:negated --shots 0,1
    """
    from genbench.task import Task
    from genbench.task._factory import load_task

    with spinner(f"Loading task {task_id}..."):
        task = load_task(task_id)
    # Everything is prepared before anything is printed: an error leaves no partial output on stdout.
    if isinstance(task, Task):
        _print_task(f"{task.task_id}: {task.config.name}", *_prepare_task(task, shots, seed))
        return

    prepared = [(subtask, _prepare_task(subtask, shots, seed)) for subtask in task.values()]
    config = task.config
    click.secho(f"{task.task_id}: {config.name} (TaskDict with {len(task)} subtasks: {', '.join(task)})", bold=True)
    if config.description:
        click.echo(config.description)
    for subtask, (rows, prompts) in prepared:
        click.echo()
        _print_task(f"== Subtask {subtask.task_id}: {subtask.config.name}", rows, prompts)


def _print_prompt_lint(task: Task) -> None:
    """The prompt lint's warnings (genbench.prompting._prompt_lint): the field to change and the rendered prompt."""
    try:
        source: str | None = (task.task_dir / "config.jsonnet").read_text(encoding="utf-8")
    except (OSError, ValueError):
        source = None  # the lines are a help, not a need
    for message in prompt_lint_messages(task.config, source, file=f"{task.task_id}/config.jsonnet"):
        click.secho(f"Warning: {message}", fg="yellow", err=True)


def _print_rows(rows: list[tuple[str, str]]) -> None:
    """Aligned ``field  text`` lines, the text wrapped to the terminal (or 100 columns) under itself."""
    import shutil
    import textwrap

    label_width = max(len(field) for field, _ in rows)
    width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 120))
    for field, text in rows:
        lines = textwrap.wrap(
            text,
            width=width,
            initial_indent=f"{field:<{label_width}}  ",
            subsequent_indent=" " * (label_width + 2),
            break_long_words=False,
            break_on_hyphens=False,
        ) or [field]
        click.echo("\n".join(lines))
