"""``genbench-cli run``: run a model over tasks and write one results file per task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from genbench._core.progress import progress_bars, progress_setting
from genbench._registry.directories import get_task_dir, split_task_id
from genbench.cli._output import dumps
from genbench.cli.params import (
    bootstrap_resamples_option,
    json_option,
    model_option,
    output_dir_option,
    progress_option,
    seed_option,
    shots_option,
    task_option,
)
from genbench.data._cache import cache_dir as genbench_cache_dir
from genbench.runs._request_cache import CACHE_FILE, RequestCache
from genbench.runs._shard_plan import Shard


def chat_options(function: Any) -> Any:
    """``--apply-chat-template [NAME|FILE]``, ``--system-instruction``, ``--[no-]fewshot-as-multiturn``
    (:mod:`genbench.runs._chat`)."""
    function = click.option(
        "--fewshot-as-multiturn/--no-fewshot-as-multiturn",
        default=None,
        help="Few-shot examples as user/assistant turns (the default with a chat template) or all in one user turn.",
    )(function)
    function = click.option(
        "--system-instruction",
        metavar="TEXT",
        default=None,
        help="A system message before the task's instruction (without a template: text before the prompt).",
    )(function)
    return click.option(
        "--apply-chat-template",
        metavar="[NAME|FILE]",
        is_flag=False,
        flag_value="default",
        default=None,
        help="Render prompts with the model's chat template (hf:; openai: with api=chat sends messages); optionally "
        "a named template of the tokenizer or a Jinja template file.",
    )(function)


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
@output_dir_option(
    required=True,
    help="Results go to DIR/<model>/<settings>/<task>.json (+ .samples.jsonl), settings e.g. seed-42.shots-0.",
)
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), help="Request cache directory.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the request cache.")
@click.option("--no-samples", is_flag=True, help="Do not write the per-sample logs.")
@bootstrap_resamples_option(
    help="Bootstrap resamples of the 95% intervals (metrics that are means of per-sample scores)."
)
@click.option(
    "--shard",
    metavar="I/N",
    default=None,
    help="Answer only shard I of N of the run's requests, into DIR/shards/; merge-shards then writes the results.",
)
@click.option(
    "--shift-report",
    "shift_reports",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A task's shift report (genbench-cli shift measure; repeatable, one per task or subtask): score the task "
    "again on the examples it does not flag as contained in its corpus (each evaluation's 'clean'; results go to a "
    "'.clean-HASH' settings folder).",
)
@chat_options
@progress_option()
@json_option(help="Print per task its results file and evaluations (metrics, intervals) as a JSON list.")
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
    shard: str | None,
    shift_reports: tuple[Path, ...],
    as_json: bool,
    apply_chat_template: str | None,
    system_instruction: str | None,
    fewshot_as_multiturn: bool | None,
) -> None:
    """Run a model over tasks: prompts, answers (cached), metrics with 95% bootstrap intervals, results files.

    Free-form and sequence-labeling tasks are answered by greedy generation, multiple choice by the
    log-likelihood of each option (also reported length-normalised), reranking by a score per candidate.
    An interrupted run resumes from the request cache: Ctrl-C exits with status 130 and says how many answers
    are cached; rerunning the same command asks the model only for the rest. One bar per task, shots and phase
    (generate, loglikelihood, score_pairs; on a pipe, a line when each ends); at the end, one line per task and
    shots: the score with its 95% interval, the time and the answers taken from the cache.

    With --shard I/N, the process answers only its share of the run's requests (dealt by token counts across
    tasks) into its own cache under DIR/shards/; run the N shards anywhere (a Slurm job array, one per GPU), then
    genbench-cli merge-shards writes the results files.

    With --shift-report, each task it measured is also scored on its clean subset: the examples the report's corpus
    does not contain (the same answers, scored again); the results record both and the report's checksum. A sharded
    run takes the same reports in every shard; merge-shards reads them again.

    \b
    Examples:
      genbench-cli run -m hf:gpt2 -t all --shots 0,5 -o results
      genbench-cli run -m openai:http://localhost:8000/v1 --model-args model=meta-llama/Llama-3.1-8B \\
          -t category_membership --limit 100 -o results
    """
    from genbench.runs._chat import ChatSettings
    from genbench.runs._evaluation import evaluate

    for task_id in task_ids or ():  # an unknown id is one error line before any model is loaded
        get_task_dir(*split_task_id(task_id))
    try:
        shard_of_run = Shard.parse(shard) if shard is not None else None
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--shard'") from None
    try:
        # libraries' bars (loading weights, formatting) only where a bar redraws itself: in a log, each would
        # print its 0% and 100% lines; genbench's own phases print one line each there
        with progress_bars(progress_setting(), import_libraries=True):
            results = evaluate(
                model=model, tasks="all" if task_ids is None else list(task_ids), model_args=model_args,
                output_dir=output_dir, shots=shots, seeds=seed, limit=limit, max_new_tokens=max_new_tokens,
                cache_dir=cache_dir, use_cache=not no_cache, write_samples=not no_samples,
                bootstrap_resamples=bootstrap_resamples, progress=True, shard=shard_of_run,
                chat=ChatSettings(apply_chat_template, system_instruction, fewshot_as_multiturn),
                shift_report=list(shift_reports) or None,
            )  # fmt: skip
    except KeyboardInterrupt:
        click.echo(interrupted_message(None if no_cache else cache_dir or default_cache_dir()), err=True)
        raise click.exceptions.Exit(INTERRUPTED) from None
    if shard_of_run is not None:
        click.echo(
            f"Shard {shard_of_run.index}/{shard_of_run.count} done, in {output_dir / 'shards'}: once every shard is "
            f"done, run genbench-cli merge-shards {output_dir / 'shards'} -o {output_dir}",
            err=as_json,
        )
    documents = [(result, result.results.model_dump(mode="json", exclude_unset=True)) for result in results]
    if as_json:  # stdout holds the JSON document only
        listed = [
            {
                "task_id": result.task_id,
                "results_file": str(result.results_path),
                "evaluations": document["evaluations"],
            }
            for result, document in documents
        ]
        click.echo(dumps(listed), nl=False)
    for result, document in documents:
        print_task_result(result.task_id, document, result.results_path, result.replaced, as_json=as_json)


def print_task_result(
    task_id: str, document: dict[str, Any], path: Path | None, replaced: str | None, *, as_json: bool = False
) -> None:
    """The summary lines of a task's results (not with ``as_json``), then where they were written (and what they
    replaced; on stderr with ``as_json``, whose stdout holds the JSON document only)."""
    if not as_json:
        for line in summary_lines(task_id, document):
            click.echo(line)
    if replaced:
        click.echo(replaced[:1].upper() + replaced[1:], err=as_json)
    else:
        click.echo(f"Wrote {path}", err=as_json)


INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl-C


def default_cache_dir() -> Path:
    """The request cache's default directory (as :func:`genbench.runs._execute.run_model_on_task` uses it)."""
    return genbench_cache_dir() / "requests"


def interrupted_message(cache_dir: Path | None) -> str:
    """What Ctrl-C during ``run`` says: how many answers the request cache holds and how to resume."""
    if cache_dir is None:
        return "Interrupted. Nothing was cached (--no-cache): rerunning the same command starts over."

    count = 0
    if (cache_dir / CACHE_FILE).exists():
        cache = RequestCache(cache_dir)
        try:
            count = cache.count()
        finally:
            cache.close()
    answers = "1 answer is" if count == 1 else f"{count} answers are"
    return (
        f"Interrupted. {answers} in the request cache ({cache_dir / CACHE_FILE}): rerunning the same command "
        "resumes from there, asking the model only for the rest."
    )


def summary_lines(task_id: str, document: dict[str, Any]) -> list[str]:
    """One line per evaluation of a results document: score with its interval, examples, time, cache hits.

    >>> doc = {"evaluations": [{"shots": 0, "num_examples": 3, "primary_metric": "acc", "run_seconds": 1.25,
    ...     "metrics": {"acc": {"value": 0.5, "ci": [0.25, 0.75]}}, "cache": {"hits": 4, "computed": 8}}]}
    >>> summary_lines("tiny", doc)
    ['tiny (0-shot, 3 examples): acc = 0.5000 [0.2500, 0.7500], 1.2 s, 4/12 answers from the cache']
    """
    lines = []
    for evaluation in document["evaluations"]:
        setting = "unprompted" if evaluation["shots"] is None else f"{evaluation['shots']}-shot"
        score = _score_text(evaluation)
        parts = [score] if score else []
        if evaluation.get("run_seconds") is not None:
            parts.append(f"{evaluation['run_seconds']:.1f} s")
        cache = evaluation.get("cache")
        if cache:
            parts.append(f"{cache['hits']}/{cache['hits'] + cache['computed']} answers from the cache")
        lines.append(f"{task_id} ({setting}, {evaluation['num_examples']} examples): {', '.join(parts)}")
        clean = evaluation.get("clean")
        if clean is not None:
            lines.append(
                f"  clean subset ({clean['num_examples']} examples, {clean['excluded']} contained left out): "
                f"{_score_text(clean) or 'no score'}"
            )
    return lines


def _score_text(evaluation: dict[str, Any]) -> str | None:
    """``acc = 0.5000 [0.2500, 0.7500]``: the primary metric with its interval (None without a number)."""
    key = evaluation["primary_metric"]
    entry = evaluation["metrics"].get(key) if key else None
    if entry is None or not isinstance(entry["value"], (int, float)):
        return None
    score = f"{key} = {entry['value']:.4f}"
    if entry.get("ci"):
        score += f" [{entry['ci'][0]:.4f}, {entry['ci'][1]:.4f}]"
    return score
