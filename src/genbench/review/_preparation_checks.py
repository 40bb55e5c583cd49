"""Checks that a task can be prepared and scored: gold predictions reach ``best_score``, prompts render with exactly
k shots, finetuning datasets prepare, and a TaskDict merges its subtasks' results.

>>> from genbench import load_task
>>> check_gold_scores(load_task("arithmetic_length"))
"""

from __future__ import annotations

import inspect
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from genbench._core.vocabulary import PreparationStrategy, split_name
from genbench.metrics import best_score_reached
from genbench.review._base import TaskCheckFailure, TaskCheckSkipped, TaskCheckWarning, kind, plural, sentence
from genbench.review._data_checks import IDX, is_overridden, raw_datasets, test_split
from genbench.review._static_checks import describe_error

# The shot counts whose prompts are checked (the larger ones capped by the size of the few-shot pool).
PROMPT_SHOTS = (0, 1, 3)


def gold_predictions(dataset: Any, column: str = "target") -> list[dict[str, Any]]:
    """Predictions equal to the gold answers: ``[{"target": gold target}, ...]`` in dataset order.

    >>> gold_predictions([{"input": "2+2", "target": "4"}])
    [{'target': '4'}]
    """
    if isinstance(dataset, Sequence):
        rows = list(dataset)
    else:
        wanted = [column] + (["target_options"] if "target_options" in dataset.column_names else [])
        data = dataset.select_columns(wanted).to_dict()
        rows = [dict(zip(data, values, strict=True)) for values in zip(*data.values(), strict=True)]
    return [{"target": _gold_answer(row, column)} for row in rows]


def _gold_answer(row: Any, column: str) -> Any:
    """The gold target; for a reranking example (a list of relevant documents and the candidates) the perfect
    scores: 1.0 per relevant candidate, 0.0 for the others."""
    target, options = row[column], row.get("target_options")
    if isinstance(target, list) and isinstance(options, list) and all(isinstance(t, str) for t in target):
        return [1.0 if option in target else 0.0 for option in options]
    return target


def _custom_prompts(task: Any) -> bool:
    return is_overridden(task, "_format_example_for_in_context_learning") or is_overridden(
        task, "get_prepared_datasets"
    )


def check_gold_scores(task: Any) -> None:
    """Gold predictions reach every metric's ``best_score``.

    The test split's targets are scored as predictions with ``task.evaluate_predictions``; with prompt-based testing,
    so are the 0-shot prompts' targets (the formatted answer text a perfect model writes, which goes through
    ``stop_string`` and ``free_form_output_regex``). Each metric with a ``best_score`` must reach it within a
    tolerance (:func:`genbench.metrics.best_score_reached`), never by float equality.

    Raises:
        TaskCheckFailure: scoring fails, or a metric misses its best_score.
        TaskCheckSkipped: the task overrides ``evaluate_predictions`` (anywhere in its class hierarchy), so what a
            perfect prediction scores is the task's own business.
    """
    if is_overridden(task, "evaluate_predictions"):
        raise TaskCheckSkipped(
            f"{type(task).__name__} overrides evaluate_predictions, so genbench cannot tell what perfect predictions "
            "score; test your evaluation yourself"
        )
    metrics = task.config.evaluation_metrics
    if not metrics:
        raise TaskCheckFailure(
            "config.jsonnet has no evaluation_metrics and task.py does not override evaluate_predictions, so "
            "predictions cannot be scored: add evaluation_metrics, e.g. [{hf_id: 'exact_match', best_score: 1.0}]."
        )
    test = test_split(task)
    gold_sets = [("the test split's targets", test, gold_predictions(test), False)]
    if task.config.preparation_strategies.prompt_based_testing is not None:
        try:
            prompts = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0])[0]
        except Exception:  # noqa: BLE001 - reported by the prompts check
            prompts = None
        if prompts is not None and "target" in prompts.column_names:
            gold_sets.append(
                ("the 0-shot prompts' targets (the answer text of a perfect model)", prompts,
                 gold_predictions(prompts), _custom_prompts(task))
            )  # fmt: skip

    failures: list[str] = []
    soft_failures: list[str] = []
    for label, gold, predictions, soft in gold_sets:
        try:
            result = task.evaluate_predictions(predictions=predictions, gold=gold)
        except Exception as error:  # noqa: BLE001 - the task's metrics may raise anything
            problems = [f"scoring failed: {describe_error(error, task.task_dir)}"]
        else:
            problems = best_score_reached(result, metrics)
        (soft_failures if soft else failures).extend(f"with {label} as predictions: {p}" for p in problems)
    if failures:
        raise TaskCheckFailure(
            "Gold predictions do not reach best_score:\n"
            + "\n".join(f"  - {line}" for line in failures)
            + "\nEither a best_score in config.jsonnet is wrong, or the evaluation does not score correct answers as "
            "correct: check free_form_output_regex, stop_string and the metrics' compute_extra_kwargs."
        )
    if soft_failures:
        warnings.warn(
            "With the task's own prompt formatting, gold answers do not reach best_score:\n"
            + "\n".join(f"  - {line}" for line in soft_failures),
            TaskCheckWarning,
            2,
        )
    if not any(metric.best_score is not None for metric in metrics):
        warnings.warn(
            "No metric in evaluation_metrics has a best_score, so genbench cannot check that perfect predictions "
            "get the best score: add best_score (e.g. 1.0 for accuracy or exact_match) to each metric.",
            TaskCheckWarning,
            2,
        )


def _shot_problems(rows: Mapping[str, list[Any]], k: int, pool_ids: set[Any] | None, exclude_self: bool) -> list[str]:
    shot_ids = rows["_genbench_shot_ids"]
    queries = rows.get(IDX, [None] * len(shot_ids))
    for query, shots in zip(queries, shot_ids, strict=True):
        where = f"the prompt of test example _genbench_idx {query}"
        if shots is None or len(shots) != k:
            return [f"{where} has {0 if shots is None else len(shots)} shots instead of {k}"]
        if len(set(shots)) != k:
            return [f"{where} repeats a shot ({shots})"]
        if pool_ids is not None and not set(shots) <= pool_ids:
            return [f"{where} has shots that are not examples of the few-shot pool ({shots})"]
        if exclude_self and query in shots:
            return [f"{where} contains the query itself among its shots, which gives the answer away"]
    return []


def check_prompts(task: Any, *, shots: Sequence[int] = PROMPT_SHOTS) -> None:
    """Prompts render for 0, 1 and a larger number of shots, with exactly k shots per query.

    The larger counts are capped by the few-shot pool (train, else validation, else test minus the query). Every
    prompt dataset has one row per test example with a non-empty ``input`` string and a ``target`` string; each
    k-shot prompt lists k distinct shots of the pool (``_genbench_shot_ids``), never the query itself.

    Raises:
        TaskCheckFailure: preparation fails or a prompt dataset is wrong.
        TaskCheckSkipped: the task has no ``prompt_based_testing``.
    """
    from genbench.prompting import few_shot_pool

    if task.config.preparation_strategies.prompt_based_testing is None:
        raise TaskCheckSkipped("the config has no preparation_strategies.prompt_based_testing")
    test_size = len(test_split(task))
    raw = raw_datasets(task)
    pool_split, exclude_self = few_shot_pool(raw)
    pool_size = max(len(raw[pool_split]) - (1 if exclude_self else 0), 0)
    shot_list = sorted({min(k, pool_size) for k in shots})
    try:
        prompts = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=shot_list)
    except Exception as error:  # noqa: BLE001 - a task's own code may raise anything; report it
        raise TaskCheckFailure(
            f"Building prompts (shot_list={shot_list}) failed: {describe_error(error, task.task_dir)}\n"
            "Check prompt_based_testing.prompt_builder in config.jsonnet (and any prompt formatting in task.py)."
        ) from None
    pool = raw[pool_split]
    pool_ids = set(pool.select_columns([IDX]).to_dict()[IDX]) if IDX in pool.column_names else None
    problems = []
    for k in shot_list:
        if k not in prompts:
            problems.append(f"no {k}-shot prompts were returned (keys: {list(prompts)})")
            continue
        dataset = prompts[k]
        missing = [c for c in ("input", "target") if c not in dataset.column_names]
        if missing:
            problems.append(f"the {k}-shot prompts have no {', '.join(missing)} column")
            continue
        if len(dataset) != test_size:
            problems.append(f"there are {len(dataset)} {k}-shot prompts for {plural(test_size, 'test example')}")
        rows = dataset.select_columns(
            [c for c in ("input", "target", IDX, "_genbench_shot_ids") if c in dataset.column_names]
        ).to_dict()
        bad_inputs = [v for v in rows["input"] if not isinstance(v, str) or not v.strip()]
        if bad_inputs:
            problems.append(f"a {k}-shot prompt input is {kind(bad_inputs[0])}, expected a non-empty str")
        bad_targets = [v for v in rows["target"] if not isinstance(v, str)]
        if bad_targets:
            problems.append(f"a {k}-shot prompt target is {kind(bad_targets[0])}, expected a str")
        if k == 0:
            continue
        if "_genbench_shot_ids" not in rows:
            if not _custom_prompts(task):
                problems.append(f"the {k}-shot prompts have no _genbench_shot_ids column")
            continue
        problems += [f"{k}-shot: {p}" for p in _shot_problems(rows, k, pool_ids, exclude_self)]
    if problems:
        raise TaskCheckFailure(
            f"Prompts (shots from the {pool_split} split) are wrong:\n" + "\n".join(f"  - {p}" for p in problems)
        )
    if max(shots) > pool_size:
        warnings.warn(
            f"The few-shot pool (the {pool_split} split) has only {plural(pool_size, 'usable example')}, so prompts "
            f"with {max(shots)} shots cannot be built; checked up to {max(shot_list)} shots.",
            TaskCheckWarning,
            2,
        )


def check_finetuning(task: Any) -> None:
    """Finetuning datasets prepare: a ``test`` split (and ``train``/``validation`` when declared), each a
    ``datasets.Dataset`` with ``input`` and ``target`` columns.

    Raises:
        TaskCheckFailure: preparation fails or a split is missing or lacks a column.
        TaskCheckSkipped: the task has no ``finetuning`` preparation strategy.
    """
    from datasets import Dataset

    if task.config.preparation_strategies.finetuning is None:
        raise TaskCheckSkipped("the config has no preparation_strategies.finetuning")
    try:
        prepared = task.get_prepared_datasets(PreparationStrategy.FINETUNING)
    except Exception as error:  # noqa: BLE001 - a task's own code may raise anything; report it
        raise TaskCheckFailure(
            f"Preparing finetuning datasets failed: {describe_error(error, task.task_dir)}"
        ) from None
    splits = {split_name(key): value for key, value in prepared.items()}
    declared = {"train": task.config.has_train_set, "validation": task.config.has_validation_set, "test": True}
    names = ", ".join(splits) or "none"
    problems = [
        f"there is no {s} split (splits: {names})" for s, wanted in declared.items() if wanted and s not in splits
    ]
    for split, dataset in splits.items():
        if not isinstance(dataset, Dataset):
            problems.append(f"the {split} split is a {type(dataset).__name__}, expected a datasets.Dataset")
            continue
        missing = [c for c in ("input", "target") if c not in dataset.column_names]
        if missing:
            problems.append(f"the {split} split has no {' or '.join(missing)} column")
    if problems:
        raise TaskCheckFailure("Finetuning datasets are wrong:\n" + "\n".join(f"  - {p}" for p in problems))


def _where_defined(klass: type) -> str:
    try:
        return f" (defined in {Path(inspect.getsourcefile(klass) or '?').name})"
    except TypeError:
        return ""


def check_task_dict_merge(task_dict: Any) -> None:
    """The subtasks' gold results merge: each subtask scores its gold test targets, and
    ``merge_evaluation_results`` turns them into one mapping with str keys.

    Raises:
        TaskCheckFailure: merging raises or returns something else than a non-empty mapping with str keys.
        TaskCheckSkipped: a subtask cannot score its gold predictions (reported by its own checks).
    """
    results: OrderedDict[str, Any] = OrderedDict()
    for subtask_id, subtask in task_dict.items():
        try:
            test = test_split(subtask)
            results[subtask_id] = subtask.evaluate_predictions(predictions=gold_predictions(test), gold=test)
        except Exception as error:  # noqa: BLE001 - reported by the subtask's own checks
            raise TaskCheckSkipped(
                f"subtask {subtask_id!r} cannot score its gold predictions ({describe_error(error)}; see its checks)"
            ) from None
    name = f"{type(task_dict).__name__}.merge_evaluation_results{_where_defined(type(task_dict))}"
    try:
        merged = task_dict.merge_evaluation_results(results)
    except Exception as error:  # noqa: BLE001 - a task's own code may raise anything; report it
        raise TaskCheckFailure(
            f"{name} failed on the subtasks' gold results: {sentence(describe_error(error))} It receives an ordered "
            "dict subtask id -> that subtask's evaluation result."
        ) from None
    if not isinstance(merged, Mapping) or not merged:
        raise TaskCheckFailure(f"{name} returned {kind(merged)}, expected a non-empty mapping metric key -> value.")
    bad_keys = [key for key in merged if not isinstance(key, str)]
    if bad_keys:
        raise TaskCheckFailure(f"{name} returned a non-str key {bad_keys[0]!r}; metric keys must be str.")
