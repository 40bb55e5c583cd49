"""``genbench-cli run``: run a model over tasks and write one results file per task."""

from __future__ import annotations

from pathlib import Path

import click

from genbench.cli.params import SEED


def _shot_list(value: str) -> list[int]:
    try:
        shots = [int(part) for part in value.split(",") if part.strip()]
    except ValueError:
        shots = []
    if not shots or any(n < 0 for n in shots) or len(set(shots)) != len(shots):
        raise click.BadParameter(f"{value!r}: give distinct non-negative integers, e.g. 0,5.", param_hint="'--shots'")
    return shots


@click.command("run")
@click.option(
    "--model",
    "model",
    required=True,
    metavar="SPEC",
    help="hf:PATH_OR_ID, openai:BASE_URL, cross-encoder:PATH, sentence-transformers:PATH or python:module:function.",
)
@click.option("--model-args", default="", metavar="K=V,...", help="Model arguments, e.g. dtype=float16,batch_size=8.")
@click.option("--tasks", "tasks", required=True, metavar="ID[,ID...]|all", help="Task ids, or 'all'.")
@click.option("--shots", default="0", show_default=True, metavar="N[,N...]", help="Numbers of few-shot examples.")
@click.option("--seed", type=SEED, default=42, show_default=True, help="Seeds shots, choice order and the bootstrap.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Run only the first N test examples.")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=128, show_default=True, help="Generation limit.")
@click.option(
    "--output-dir",
    "-o",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Results go to OUTPUT_DIR/<model>/<task>.json (+ .samples.jsonl).",
)
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
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show progress bars.")
def run(
    model: str,
    model_args: str,
    tasks: str,
    shots: str,
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
      genbench-cli run --model hf:gpt2 --tasks all --shots 0,5 -o results
      genbench-cli run --model openai:http://localhost:8000/v1 --model-args model=meta-llama/Llama-3.1-8B \\
          --tasks category_membership --limit 100 -o results
    """
    from genbench.runs.execute import run as run_models
    from genbench.runs.scoring import BootstrapSettings

    shot_list = _shot_list(shots)
    runs = run_models(
        model,
        tasks,
        model_args=model_args,
        output_dir=output_dir,
        shots=shot_list,
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
