"""``genbench-cli evaluate``: score a JSONL file of predictions against a split of a task.

The predictions file holds one JSON object per line with a ``target`` (what the model answered), in the order of
the split's rows. A task with subtasks takes one predictions file per subtask (``--predictions SUBTASK=FILE``) and
reports the merged results of its ``merge_evaluation_results``; ``-t task:subtask`` scores one subtask.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from genbench._core.errors import PredictionError
from genbench._core.files import prepare_output_dir, write_text_atomic
from genbench._core.vocabulary import PreparationStrategy
from genbench.cli._output import console, dumps, format_value, spinner
from genbench.cli.params import (
    NAME,
    json_option,
    model_option,
    output_file_option,
    seed_option,
    shots_option,
    task_option,
)
from genbench.data._jsonl import iter_json_objects

if TYPE_CHECKING:
    from genbench.task import Task


def _readable(file: str) -> str:
    """A predictions file that can be read more than once: ``file`` itself when it is a regular file; a pipe or a
    device (``-p /dev/stdin``, ``-p <(...)``) is read once into a temporary file, since scoring and the results file
    each read it."""
    path = Path(file)
    if path.is_file():
        return file
    if not path.exists():
        raise click.BadParameter(f"file {file!r} does not exist.", param_hint="'--predictions'")
    if path.is_dir():
        raise click.BadParameter(f"{file!r} is a directory, not a predictions file.", param_hint="'--predictions'")
    folder = click.get_current_context().with_resource(tempfile.TemporaryDirectory(prefix="genbench-predictions-"))
    copy = Path(folder) / (path.name or "predictions.jsonl")
    with open(path, "rb") as source:
        copy.write_bytes(source.read())
    return str(copy)


def _readable_assignment(value: str) -> str:
    subtask, equals, file = value.partition("=")
    return f"{subtask}={_readable(file)}" if equals and file else value


def read_predictions(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read a predictions file: one JSON object per line (blank lines are skipped).

    Raises:
        PredictionError: a line is not valid JSON or not an object; the message names the file and the line.
        FileNotFoundError: the file does not exist.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "predictions.jsonl"
    >>> _ = path.write_text('{"target": "4"}\\n\\n{"target": "5"}\\n')
    >>> read_predictions(path)
    [{'target': '4'}, {'target': '5'}]
    >>> _ = path.write_text('{"target": "4"}\\n{"target": 5,}\\n')
    >>> read_predictions(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genbench._core.errors.PredictionError: ...predictions.jsonl:2: invalid JSON: ... (column 14)
    """
    expected = 'a JSON object such as {"target": ...}'
    predictions = [record for _, record in iter_json_objects(path, error=PredictionError, expected=expected)]
    return predictions


def evaluate_file(task: Task, predictions_path: str | os.PathLike[str], split: str = "test") -> dict[str, Any]:
    """Score a predictions file against a split of a task with ``task.evaluate_predictions``.

    Args:
        task: The task (not a TaskDict: evaluate each subtask, then merge).
        predictions_path: JSONL file, one object with a ``target`` per row of the split, in order.
        split: The split scored (``"test"`` by default).

    Returns:
        ``{"task_id", "split", "n", "metrics"}``.

    Raises:
        PredictionError: an unreadable line, or predictions that do not match the gold split (count, keys, types).
        KeyError: the task has no such split.

    >>> import json, tempfile, pathlib
    >>> from genbench import load_task
    >>> task = load_task("arithmetic_length")
    >>> gold = task.get_datasets_raw()["test"]
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "predictions.jsonl"
    >>> _ = path.write_text("".join(json.dumps({"target": t}) + "\\n" for t in gold["target"]))
    >>> dict(evaluate_file(task, path)["metrics"])
    {'hf_exact_match__exact_match': 1.0}
    """
    predictions: list[Mapping[str, Any]] = list(read_predictions(predictions_path))
    splits = task.get_datasets_raw()
    if split not in splits:
        raise PredictionError(f"Task {task.task_id!r} has no {split!r} split; its splits are: {', '.join(splits)}.")
    gold = splits[split]
    if len(predictions) != len(gold):
        raise PredictionError(
            f"{predictions_path}: {len(predictions)} predictions for the {len(gold)} examples of the {split!r} split "
            f"of {task.task_id!r}: give one line per example, in order."
        )
    try:
        metrics = task.evaluate_predictions(predictions=predictions, gold=gold)
    except PredictionError as exc:
        message = str(exc)
        if str(predictions_path) in message:
            raise
        raise PredictionError(f"{predictions_path}: {message}") from exc
    return {"task_id": task.task_id, "split": split, "n": len(gold), "metrics": metrics}


def predictions_task_run(
    task: Task,
    predictions_path: str | os.PathLike[str],
    split: str = "test",
    *,
    model: str,
    results_dir: str | os.PathLike[str],
    shots: int | None = None,
    seed: int = 42,
) -> Any:
    """Score a predictions file and write a results file in the format of model runs (see ``schema --results``).

    Args:
        task: The task (a subtask of a TaskDict is scored on its own).
        predictions_path: JSONL file, one object with a ``target`` per row of the split, in order.
        split: The split scored.
        model: What made the predictions (the results' model spec is ``predictions:MODEL``).
        results_dir: Results go to ``<results_dir>/<model>/<settings>/<task>.json``.
        shots: The predictions answer the ``shots``-shot prompts of the test split (recorded with each sample).
        seed: The few-shot seed of those prompts.

    Returns:
        Its :class:`genbench.runs._execute.TaskRun`.
    """
    from genbench.runs._offline import predictions_run

    predictions = read_predictions(predictions_path)
    if shots is not None:
        gold = task.get_prepared_datasets(
            PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[shots], random_seed=seed
        )[shots]
    else:
        splits = task.get_datasets_raw()
        if split not in splits:
            raise PredictionError(
                f"Task {task.task_id!r} has no {split!r} split; its splits are: {', '.join(splits)}."
            )
        gold = splits[split]
    if len(predictions) != len(gold):
        raise PredictionError(
            f"{predictions_path}: {len(predictions)} predictions for the {len(gold)} examples of {task.task_id!r}: "
            "give one line per example, in order."
        )
    return predictions_run(task, predictions, gold, model=model, output_dir=Path(results_dir), shots=shots, seed=seed)


def _assign_files(task_id: str, subtask_ids: list[str], values: tuple[str, ...]) -> dict[str, Path]:
    """Map each subtask to its predictions file from ``SUBTASK=FILE`` values; every subtask needs one."""
    files: dict[str, Path] = {}
    for value in values:
        subtask_id, sep, file = value.partition("=")
        if not sep or not file:
            raise click.BadParameter(
                f"{task_id!r} has subtasks ({', '.join(subtask_ids)}): give one SUBTASK=FILE per subtask, "
                f"e.g. --predictions {subtask_ids[0]}=predictions.jsonl, or score one with -t {task_id}:SUBTASK.",
                param_hint="'--predictions'",
            )
        if subtask_id not in subtask_ids:
            raise click.BadParameter(
                f"{task_id!r} has no subtask {subtask_id!r}; its subtasks are: {', '.join(subtask_ids)}.",
                param_hint="'--predictions'",
            )
        if subtask_id in files:
            raise click.BadParameter(f"two files for subtask {subtask_id!r}.", param_hint="'--predictions'")
        files[subtask_id] = Path(file)
    missing = [sid for sid in subtask_ids if sid not in files]
    if missing:
        raise click.BadParameter(
            f"no predictions file for subtask(s) {', '.join(missing)}.", param_hint="'--predictions'"
        )
    return files


def _print_metrics(title: str, metrics: Mapping[str, Any]) -> None:
    from rich.markup import escape
    from rich.table import Table

    click.secho(title, bold=True)
    table = Table()
    table.add_column("Metric", no_wrap=True)
    table.add_column("Value", justify="right", no_wrap=True)
    for key, value in metrics.items():
        if isinstance(value, (dict, list, tuple)) or getattr(value, "ndim", 0) > 0:
            continue  # nested values (e.g. per-class arrays) are in the --output-file
        table.add_row(escape(str(key)), format_value(value))
    console().print(table)


@click.command("evaluate")
@task_option()
@click.option(
    "-p",
    "--predictions",
    "predictions",
    required=True,
    multiple=True,
    metavar="FILE",
    help="JSONL predictions: one object with a 'target' per row of the split, in order. For a task with "
    "subtasks: SUBTASK=FILE, once per subtask.",
)
@output_file_option(help="Also write the results as JSON (task id, split, n, metrics) to this file.")
@click.option("--split", type=NAME, default="test", show_default=True, help="The split the predictions are for.")
@click.option(
    "--results-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write results files in the format of `genbench-cli run` (intervals, per-sample log) here.",
)
@model_option(metavar="NAME", default=None, help="With --results-dir: the model that made the predictions.")
@shots_option(
    default=None,
    help="With --results-dir: the predictions answer the N-shot prompts (test split), recorded with their prompts.",
)
@seed_option(help="With --shots: the few-shot seed.")
@json_option(help="Print the results (task id, split, n, metrics) as JSON instead of a table.")
def evaluate(
    task_id: str,
    predictions: tuple[str, ...],
    output_file: Path | None,
    split: str,
    results_dir: Path | None,
    model: str | None,
    shots: int | None,
    seed: int,
    as_json: bool,
) -> None:
    """Score a file of predictions against a task's split and print the metrics.

    Each line of the predictions file is a JSON object such as {"target": "380"}, one per example of the split,
    in the split's order. The target is what the model answered: for free-form tasks its text (the task's
    stop_string and free_form_output_regex apply), for multiple choice the option index or text, for sequence
    labeling the list of labels.

    \b
    Examples:
      genbench-cli evaluate -t arithmetic_length --predictions predictions.jsonl --output-file results.json
      genbench-cli evaluate -t negation_consistency -p affirmative=aff.jsonl -p negated=neg.jsonl
      genbench-cli evaluate -t arithmetic_length -p predictions.jsonl --results-dir results -m my-llm --shots 0
    """
    from genbench.task import Task
    from genbench.task._factory import load_task

    if output_file is not None:
        prepare_output_dir(output_file.parent)  # before the scoring: an unwritable location fails now
    with spinner(f"Loading task {task_id}..."):
        task = load_task(task_id)

    predictions = tuple(
        _readable(value) if isinstance(task, Task) else _readable_assignment(value) for value in predictions
    )
    if isinstance(task, Task):
        if len(predictions) != 1:
            raise click.BadParameter(f"give one predictions file for {task_id!r}.", param_hint="'--predictions'")
        with spinner(f"Scoring {predictions[0]}..."):
            result = evaluate_file(task, predictions[0], split)
        title = f"{task.task_id} ({split}, {result['n']} examples)"
    else:
        files = _assign_files(task_id, list(task), predictions)
        per_subtask = {}
        for subtask_id, path in files.items():
            with spinner(f"Scoring {path} for {task_id}:{subtask_id}..."):
                per_subtask[subtask_id] = evaluate_file(task[subtask_id], path, split)
        merged = task.merge_evaluation_results({sid: r["metrics"] for sid, r in per_subtask.items()})
        result = {
            "task_id": task.task_id,
            "split": split,
            "n": sum(r["n"] for r in per_subtask.values()),
            "metrics": merged,
            "subtasks": {sid: {"n": r["n"], "metrics": r["metrics"]} for sid, r in per_subtask.items()},
        }
        title = f"{task.task_id} ({split}, {result['n']} examples, merged)"
    if as_json:
        click.echo(dumps(result), nl=False)
    else:
        _print_metrics(title, result["metrics"])

    def wrote(line: str) -> None:  # with --json, stdout holds the JSON document only
        click.echo(line, err=as_json)

    if output_file is not None:
        write_text_atomic(output_file, dumps(result))
        wrote(f"Wrote {output_file}")
    if results_dir is not None:
        if shots is not None and split != "test":
            raise click.BadParameter("prompts are built for the test split: drop --split.", param_hint="'--shots'")
        if isinstance(task, Task):
            scored_files: list[tuple[Task, Path]] = [(task, Path(predictions[0]))]
        else:
            scored_files = [(task[sid], path) for sid, path in _assign_files(task_id, list(task), predictions).items()]
        task_runs = []
        for scored, path in scored_files:
            task_run = predictions_task_run(
                scored, path, split, model=model or path.name, results_dir=results_dir, shots=shots, seed=seed
            )
            task_runs.append(task_run)
            wrote(
                task_run.replaced[:1].upper() + task_run.replaced[1:]
                if task_run.replaced
                else f"Wrote {task_run.results_path}"
            )
        if not isinstance(task, Task):
            from genbench.runs._offline import merged_predictions_results

            merged_run = merged_predictions_results(task, task_runs, results_dir)
            if merged_run is None:
                wrote(
                    f"No merged results file for {task_id}: name what made every subtask's predictions with --model."
                )
            else:
                wrote(f"Wrote {merged_run.path} (merged)")
