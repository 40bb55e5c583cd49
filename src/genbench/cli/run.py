"""``genbench-cli run``: run a model over tasks and write one results file per task."""

from __future__ import annotations

from pathlib import Path

import click

from genbench.cli.params import (
    model_option,
    output_dir_option,
    progress_option,
    seed_option,
    shots_option,
    task_option,
)
from genbench.registry.directories import get_task_dir, split_task_id


@click.command("run")
@model_option(
    required=True,
    help="hf:PATH_OR_ID, openai:BASE_URL, cross-encoder:PATH, sentence-transformers:PATH or python:module:function.",
)
@click.option("--model-args", default="", metavar="K=V,...", help="Model arguments, e.g. dtype=float16,batch_size=8.")
@task_option(several=True, deprecated=("--tasks",))
@shots_option(several=True, default="0", show_default=True, help="Numbers of few-shot examples.")
@seed_option(help="Seeds shots, choice order and the bootstrap.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Run only the first N test examples.")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=128, show_default=True, help="Generation limit.")
@output_dir_option(required=True, help="Results go to DIR/<model>/<task>.json (+ .samples.jsonl).")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), help="Request cache directory.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the request cache.")
@click.option("--no-samples", is_flag=True, help="Do not write the per-sample logs.")
@click.option(
    "--bootstrap-resamples",
    type=click.IntRange(min=10),
    default=1000,
    show_default=True,
    help="Bootstrap resamples of the 95% intervals (metrics that are means of per-sample scores).",
)
@progress_option()
def run(
    model: str,
    model_args: str,
    task_ids: tuple[str, ...] | None,
    shots: list[int],
    seed: int,
    limit: int | None,
    max_new_tokens: int,
    output_dir: Path,
    cache_dir: Path | None,
    no_cache: bool,
    no_samples: bool,
    bootstrap_resamples: int,
    progress: bool,
) -> None:
    """Run a model over tasks: prompts, answers (cached), metrics with 95% bootstrap intervals, results files.

    Free-form and sequence-labeling tasks are answered by greedy generation, multiple choice by the
    log-likelihood of each option (also reported length-normalised), reranking by a score per candidate.
    An interrupted run resumes from the request cache.

    \b
    Examples:
      genbench-cli run -m hf:gpt2 -t all --shots 0,5 -o results
      genbench-cli run -m openai:http://localhost:8000/v1 --model-args model=meta-llama/Llama-3.1-8B \\
          -t category_membership --limit 100 -o results
    """
    from genbench.runs.execute import run as run_models
    from genbench.runs.scoring import BootstrapSettings

    for task_id in task_ids or ():  # an unknown id is one error line before any model is loaded
        get_task_dir(*split_task_id(task_id))
    runs = run_models(
        model,
        "all" if task_ids is None else list(task_ids),
        model_args=model_args,
        output_dir=output_dir,
        shots=shots,
        seed=seed,
        limit=limit,
        max_new_tokens=max_new_tokens,
        cache_dir=cache_dir,
        use_cache=not no_cache,
        write_samples=not no_samples,
        bootstrap=BootstrapSettings(resamples=bootstrap_resamples, seed=seed),
        progress=progress,
    )
    for task_run in runs:
        for evaluation in task_run.document["evaluations"]:
            key = evaluation["primary_metric"]
            entry = evaluation["metrics"].get(key) if key else None
            setting = "unprompted" if evaluation["shots"] is None else f"{evaluation['shots']}-shot"
            score = ""
            if entry is not None and isinstance(entry["value"], (int, float)):
                score = f"{key} = {entry['value']:.4f}"
                if entry["ci"]:
                    score += f" [{entry['ci'][0]:.4f}, {entry['ci'][1]:.4f}]"
            click.echo(f"{task_run.task_id} ({setting}, {evaluation['num_examples']} examples): {score}")
        if task_run.replaced:
            click.echo(task_run.replaced[:1].upper() + task_run.replaced[1:])
        else:
            click.echo(f"Wrote {task_run.results_path}")
