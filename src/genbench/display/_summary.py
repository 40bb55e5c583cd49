"""A task's summary for the terminal (``genbench-cli show-task``): config rows, split sizes and example prompts.

For a task whose data path is genbench's own, the splits are read as ``pyarrow`` tables by the same readers and steps
that build :meth:`Task.get_datasets_raw <genbench.task.Task.get_datasets_raw>`, without importing ``datasets``; any
other task goes through its own methods, so what is shown is always what the task gives. See docs/cli.md#show-task.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from genbench._core.errors import PreparationError
from genbench._core.vocabulary import PreparationStrategy
from genbench.data._columns import index_column_table, map_fields_table
from genbench.data._sources import load_manual_tables
from genbench.data._splits import load_split_file, resplit_tables

if TYPE_CHECKING:
    import pyarrow as pa

    from genbench.config._schema import TaskConfig
    from genbench.task import Task

# Methods of Task that decide what a task's splits hold; a task class overriding any of them needs its own methods.
_DATA_METHODS = ("get_datasets_raw", "_load_data_source", "_format_split", "format_example")
# "Not given" for the `splits` arguments, where None means "no light tables for this task".
_NOT_GIVEN: Any = object()


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


def light_splits(task: Task) -> dict[str, pa.Table] | None:
    """The task's formatted splits as ``pyarrow`` tables, read without ``datasets``, when genbench's own data path
    gives them; None when only the task's own methods can (then use :meth:`~genbench.task.Task.get_datasets_raw`).

    The tables hold the rows and columns of ``task.get_datasets_raw()``'s datasets (``_genbench_idx`` included).

    Raises:
        GenBenchError: As :meth:`~genbench.task.Task.get_datasets_raw` (missing file, bad JSON, bad split file, ...).

    >>> from genbench import load_task
    >>> {split: table.num_rows for split, table in light_splits(load_task("arithmetic_length")).items()}
    {'train': 300, 'validation': 60, 'test': 180}
    """
    from genbench.task import Task

    if any(getattr(type(task), name) is not getattr(Task, name) for name in _DATA_METHODS):
        return None
    if task.config.data_source.type != "manual":
        return None

    tables = load_manual_tables(task.config.data_source, task.task_dir)
    if task.config.split_file is not None:
        split_path = task.task_dir / task.config.split_file
        resplit = resplit_tables(tables, load_split_file(split_path, root=task.task_dir), file=str(split_path))
        if resplit is None:  # source splits with different columns: reconciling them needs datasets' features
            return None
        tables = resplit
    formatted = {}
    for split, table in tables.items():
        mapped = map_fields_table(table, task.config.field_mapping, split=split)
        missing = [c for c in ("input", "target") if c not in mapped.column_names]
        if missing:  # the message of Task._format_split
            raise PreparationError(
                f"Task {task.task_id!r}, split {split!r}: formatted examples lack {', '.join(missing)} "
                f"(columns: {', '.join(mapped.column_names)}). Map them with `field_mapping` in config.jsonnet "
                "or return them from `format_example`."
            )
        formatted[split] = index_column_table(mapped)
    return formatted


def split_sizes(task: Task, splits: dict[str, pa.Table] | None = _NOT_GIVEN) -> dict[str, int]:
    """The number of examples of each of the task's splits, in split order.

    Args:
        task: The task.
        splits: :func:`light_splits`' result when already at hand (None: the task has no light tables).

    Returns:
        Split name to size, from :func:`light_splits`' tables, else from ``task.get_datasets_raw()``.

    >>> from genbench import load_task
    >>> split_sizes(load_task("arithmetic_length"))
    {'train': 300, 'validation': 60, 'test': 180}
    """
    if splits is _NOT_GIVEN:
        splits = light_splits(task)
    if splits is None:
        return {split: len(dataset) for split, dataset in task.get_datasets_raw().items()}
    return {split: table.num_rows for split, table in splits.items()}


def example_prompts(
    task: Task, shots: int | Sequence[int], random_seed: int = 42, *, splits: dict[str, pa.Table] | None = _NOT_GIVEN
) -> list[dict[str, Any]]:
    """The first test example as the model sees it, 0-shot and ``shots``-shot (or in each setting of a list).

    Args:
        task: The task.
        shots: The k of the k-shot prompt shown after the 0-shot one (0: the 0-shot prompt only); or the numbers of
            shots to show, e.g. ``[0, 3]`` (what ``show-task --shots`` gives).
        random_seed: Seed of the shot selection (and of ``permute_choices``).
        splits: :func:`light_splits`' result when already at hand (None: the task has no light tables).

    Returns:
        One record per setting: ``title``, ``input`` (the prompt), ``target`` and ``description`` (where the shots
        come from). Without prompt-based testing, the first test example's raw ``input`` and ``target``. The prompts
        are those of ``task.get_prepared_datasets``; they are built from :func:`light_splits`' tables when the task
        allows it, else by that method.

    >>> from genbench import load_task
    >>> [p["title"] for p in example_prompts(load_task("arithmetic_length"), 3)]
    ['0-shot prompt (test example 0)', '3-shot prompt (test example 0)']
    """
    from genbench.task import Task

    if splits is _NOT_GIVEN:
        splits = light_splits(task)
    if task.config.preparation_strategies.prompt_based_testing is None:
        first = splits["test"].slice(0, 1).to_pylist()[0] if splits is not None else task.get_datasets_raw()["test"][0]
        return [
            {
                "title": "test example 0 (the task has no prompt-based testing)",
                "input": first["input"],
                "target": first["target"],
                "description": "",
            }
        ]
    shot_list = sorted({0, shots} if isinstance(shots, int) else set(shots))
    if splits is None or type(task).get_prepared_datasets is not Task.get_prepared_datasets:
        prepared = task.get_prepared_datasets(
            PreparationStrategy.PROMPT_BASED_TESTING, shot_list=shot_list, random_seed=random_seed
        )
        return [
            _record(k, prepared[k][0]["input"], prepared[k][0]["target"], prepared[k].info.description)
            for k in shot_list
        ]
    from genbench.prompting import build_prompts

    custom_formatter = (
        type(task)._format_example_for_in_context_learning is not Task._format_example_for_in_context_learning
    )
    built = build_prompts(
        splits,
        task_type=task.config.task_type,
        prompt_builder=task.config.preparation_strategies.prompt_based_testing.prompt_builder,
        shot_list=shot_list,
        random_seed=random_seed,
        example_formatter=task._format_example_for_in_context_learning if custom_formatter else None,
    )
    return [
        _record(k, built[k].inputs[0].as_py(), built[k].test.targets[0].as_py(), built[k].description)
        for k in shot_list
    ]


def _record(k: int, prompt: str, target: str, description: str | None) -> dict[str, Any]:
    return {
        "title": f"{k}-shot prompt (test example 0)",
        "input": prompt,
        "target": target,
        "description": description or "",
    }
