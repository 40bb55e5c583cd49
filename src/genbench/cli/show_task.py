"""``genbench-cli show-task``: a task's config summary, split sizes and example prompts with their targets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from genbench.cli._output import spinner
from genbench.cli.params import COUNT, SEED

if TYPE_CHECKING:
    from genbench.config.schema import TaskConfig
    from genbench.task import Task


def config_summary(config: TaskConfig) -> list[tuple[str, str]]:
    """The ``(field, text)`` rows describing a task config: type, data source, metrics and strategies.

    >>> from genbench import load_config
    >>> dict(config_summary(load_config("arithmetic_length")))["Metrics"]
    'exact_match (best_score 1.0)'
    """
    source = config.data_source
    if source.type == "manual":
        data = "manual: " + ", ".join(f"{split} {uri}" for split, uri in source.split_uris().items())
    else:
        hf_id = source.hf_id if isinstance(source.hf_id, str) else "/".join(source.hf_id or [])
        data = f"hf: {hf_id}" + (f" @ {source.git_commit_sha}" if source.git_commit_sha else "")
    if config.split_file is not None:
        data += f" (re-split by {config.split_file})"

    metrics = []
    for metric in config.evaluation_metrics or []:
        extras = [f"best_score {float(metric.best_score)!r}"] if metric.best_score is not None else []
        if metric.type != "hf":
            extras += [f"{key}={value!r}" for key, value in metric.model_dump(exclude={"type", "best_score"}).items()]
            metrics.append(metric.type + (f" ({', '.join(extras)})" if extras else ""))
            continue
        text = metric.hf_id if isinstance(metric.hf_id, str) else "/".join(metric.hf_id)
        extras += [f"{key}={value!r}" for key, value in (metric.compute_extra_kwargs or {}).items()]
        metrics.append(text + (f" ({', '.join(extras)})" if extras else ""))

    strategies = []
    if config.preparation_strategies.finetuning is not None:
        strategies.append(f"finetuning ({config.preparation_strategies.finetuning.objective})")
    if config.preparation_strategies.prompt_based_testing is not None:
        strategies.append("prompt_based_testing")

    rows = [("Type", config.task_type.value), ("Data source", data)]
    if config.field_mapping:
        rows.append(("Field mapping", ", ".join(f"{k} <- {v}" for k, v in config.field_mapping.items())))
    if config.free_form_output_regex is not None:
        rows.append(("Answer regex", config.free_form_output_regex))
    rows += [
        ("Metrics", "; ".join(metrics) or "none (custom evaluate_predictions)"),
        ("Strategies", ", ".join(strategies)),
    ]
    return rows


def example_prompts(task: Task, shots: int, random_seed: int = 42) -> list[dict[str, Any]]:
    """The first test example as the model sees it, 0-shot and ``shots``-shot.

    Returns:
        One record per setting: ``title``, ``input`` (the prompt), ``target`` and ``description`` (where the shots
        come from). Without prompt-based testing, the first test example's raw ``input`` and ``target``.

    >>> from genbench import load_task
    >>> [p["title"] for p in example_prompts(load_task("arithmetic_length"), 3)]
    ['0-shot prompt (test example 0)', '3-shot prompt (test example 0)']
    """
    from genbench.api import PreparationStrategy

    if task.config.preparation_strategies.prompt_based_testing is None:
        example = task.get_datasets_raw()["test"][0]
        return [
            {
                "title": "test example 0 (the task has no prompt-based testing)",
                "input": example["input"],
                "target": example["target"],
                "description": "",
            }
        ]
    shot_list = sorted({0, shots})
    prepared = task.get_prepared_datasets(
        PreparationStrategy.PROMPT_BASED_TESTING, shot_list=shot_list, random_seed=random_seed
    )
    records = []
    for k in shot_list:
        row = prepared[k][0]
        records.append(
            {
                "title": f"{k}-shot prompt (test example 0)",
                "input": row["input"],
                "target": row["target"],
                "description": prepared[k].info.description or "",
            }
        )
    return records


def _print_task(task: Task, shots: int, seed: int, *, heading: str) -> None:
    click.secho(heading, bold=True)
    rows = [("Description", task.config.description), *config_summary(task.config)]
    with spinner(f"Loading the data of {task.task_id}..."):
        sizes = {split: len(dataset) for split, dataset in task.get_datasets_raw().items()}
    rows.append(("Splits", ", ".join(f"{split} {n}" for split, n in sizes.items())))
    _print_rows(rows)

    with spinner(f"Building prompts of {task.task_id}..."):
        prompts = example_prompts(task, shots, seed)
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
@click.option("-i", "--id", "task_id", required=True, metavar="ID", help="Task id: 'id' or 'id:subtask'.")
@click.option(
    "--shots",
    type=COUNT,
    default=3,
    show_default=True,
    help="Number of shots of the few-shot example prompt (0: zero-shot only).",
)
@click.option("--seed", type=SEED, default=42, show_default=True, help="Random seed of the few-shot selection.")
def show_task(task_id: str, shots: int, seed: int) -> None:
    """Show a task: its config summary, split sizes and an example prompt (0-shot and k-shot) with its target.

    For a task with subtasks, every subtask is shown; give 'id:subtask' to show one.

    \b
    Examples:
      genbench-cli show-task -i arithmetic_length
      genbench-cli show-task -i negation_consistency:negated --shots 1
    """
    from genbench.loading import load_task
    from genbench.task import Task

    with spinner(f"Loading task {task_id}..."):
        task = load_task(task_id)
    if isinstance(task, Task):
        _print_task(task, shots, seed, heading=f"{task.task_id}: {task.config.name}")
        return

    config = task.config
    click.secho(f"{task.task_id}: {config.name} (TaskDict with {len(task)} subtasks: {', '.join(task)})", bold=True)
    if config.description:
        click.echo(config.description)
    for subtask in task.values():
        click.echo()
        _print_task(subtask, shots, seed, heading=f"== Subtask {subtask.task_id}: {subtask.config.name}")


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
