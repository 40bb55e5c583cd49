"""Checks of what a task says about itself: its GenBench taxonomy, its headline metric (``primary_metric``) and
which way its metrics are better (``metric_directions``).

A missing taxonomy block only warns (with the values the task's ``keywords`` suggest, never filled in silently). The
metric checks score the gold test targets, since only scoring tells which result keys exist; loading checks only
their form. See docs/testing.md#the-checks.
"""

from __future__ import annotations

import difflib
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from genbench._core.errors import GenBenchError
from genbench._core.metric_direction import unmatched_patterns
from genbench._core.taxonomy import AXES, AXIS_NAMES, mentions_generalisation, suggest_from_keywords
from genbench._registry.directories import subtask_dirs
from genbench.review._base import TaskCheckFailure, TaskCheckSkipped, TaskCheckWarning
from genbench.review._data_checks import test_split
from genbench.review._preparation_checks import gold_predictions
from genbench.review._static_checks import describe_error, looks_like_task_dict


def _config(task_dir: Path, task_dict: bool) -> Any:
    from genbench.config._documents import load_task_config, load_task_dict_config

    load = load_task_dict_config if task_dict else load_task_config
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the config check reports them
            return load(jsonnet_path=task_dir / "config.jsonnet")
    except (GenBenchError, OSError, ValueError):
        raise TaskCheckSkipped("config.jsonnet cannot be loaded (see the config check)") from None


def taxonomy_advice(keywords: Iterable[str]) -> str:
    """What to add to a config without a ``taxonomy`` block: the fields, with the values its keywords suggest.

    >>> print(taxonomy_advice(["Multilinguality", "o.o.d. generalisation"]))
    add a taxonomy block to config.jsonnet (docs/taxonomy.md). From the keywords: taxonomy.generalisation_type: \
'across_language' (keyword 'Multilinguality'); still to choose: taxonomy.motivation, taxonomy.shift_type, \
taxonomy.shift_source, taxonomy.shift_locus
    """
    keywords = list(keywords)
    suggestions = suggest_from_keywords(keywords)
    text = "add a taxonomy block to config.jsonnet (docs/taxonomy.md)"
    if suggestions:
        found = "; ".join(f"taxonomy.{s.field}: '{s.value}' (keyword {s.keyword!r})" for s in suggestions)
        text += f". From the keywords: {found}"
    elif mentions_generalisation(keywords):
        generic = ", ".join(repr(k) for k in mentions_generalisation(keywords))
        text += f". The keywords ({generic}) say the task tests generalisation but name no value of an axis"
    missing = [f"taxonomy.{axis}" for axis in AXIS_NAMES if not any(s.field == axis for s in suggestions)]
    if missing:
        text += f"; still to choose: {', '.join(missing)}" if suggestions else f": {', '.join(missing)}"
    return text


def check_taxonomy(task_dir: Path, *, task_dict: bool | None = None) -> None:
    """The task declares where it sits on the GenBench taxonomy (``taxonomy`` in ``config.jsonnet``).

    Warns (never fails, so that older tasks stay valid):
        TaskCheckWarning: there is no ``taxonomy`` block (the warning names the fields, with the values the keywords
            suggest), or the block leaves axes out (its evaluation card leaves them unmarked). A subtask of a task
            with subtasks that declares one, and a task with subtasks whose every subtask declares one, need none.

    Raises:
        TaskCheckSkipped: the config cannot be loaded (reported by the config check).

    >>> from genbench._registry.directories import get_task_dir
    >>> check_taxonomy(get_task_dir("arithmetic_length"))
    """
    task_dir = Path(task_dir)
    is_dict = looks_like_task_dict(task_dir) if task_dict is None else task_dict
    if not (task_dir / "config.jsonnet").is_file():
        raise TaskCheckSkipped("there is no config.jsonnet (see the required_files check)")
    config = _config(task_dir, is_dict)
    taxonomy = config.taxonomy
    if taxonomy is None:
        if _declared_elsewhere(task_dir, is_dict):
            return
        warnings.warn(
            TaskCheckWarning(f"config.jsonnet: taxonomy: not declared; {taxonomy_advice(config.keywords or [])}"),
            stacklevel=2,
        )
        return
    missing = [axis for axis in AXIS_NAMES if not taxonomy.values(axis)]
    if missing:
        names = ", ".join(f"taxonomy.{axis} ({AXES[axis].title.lower()})" for axis in missing)
        warnings.warn(
            TaskCheckWarning(
                f"config.jsonnet: taxonomy: leaves out {names}; its evaluation card leaves them unmarked: add them "
                "(docs/taxonomy.md lists the values)"
            ),
            stacklevel=2,
        )


def _declared_elsewhere(task_dir: Path, is_dict: bool) -> bool:
    """Whether a TaskDict parent declares the taxonomy (for a subtask), or every subtask does (for a TaskDict)."""
    if is_dict:
        subdirs = subtask_dirs(task_dir)
        try:
            return bool(subdirs) and all(_config(sub, False).taxonomy is not None for sub in subdirs)
        except TaskCheckSkipped:
            return False
    parent = task_dir.parent
    if (parent / "config.jsonnet").is_file() and looks_like_task_dict(parent):
        try:
            return _config(parent, True).taxonomy is not None
        except TaskCheckSkipped:
            return False
    return False


def _key_problem(primary: str, keys: Iterable[str], where: str) -> str | None:
    keys = list(keys)
    if primary in keys:
        return None
    close = difflib.get_close_matches(primary, keys, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    listed = ", ".join(repr(k) for k in keys[:12]) + (", ..." if len(keys) > 12 else "")
    return (
        f"config.jsonnet: primary_metric: {primary!r} is not a key of {where}; {hint}The keys are: {listed}. "
        "Set primary_metric to the key of the task's headline score."
    )


def check_primary_metric(task: Any) -> None:
    """``primary_metric`` names a key of the results the task's evaluation gives (scored on the gold test targets).

    Raises:
        TaskCheckFailure: it names no such key (with a did-you-mean and the keys there are).
        TaskCheckSkipped: the task declares no ``primary_metric``, or its gold targets cannot be scored (reported by
            the gold_scores check).
    """
    primary = task.config.primary_metric
    if primary is None:
        raise TaskCheckSkipped("the task declares no primary_metric (the leaderboard picks its first metric's score)")
    result = _gold_result(task)
    problem = _key_problem(primary, result, "the results of the task's evaluation")
    if problem:
        raise TaskCheckFailure(problem)


def check_task_dict_primary_metric(task_dict: Any) -> None:
    """A TaskDict's ``primary_metric`` names a key of its merged results (``merge_evaluation_results`` of the
    subtasks' gold results): the mean over subtasks (``hf_accuracy__accuracy``), a subtask's key
    (``negated.hf_accuracy__accuracy``) or one its own merge adds.

    Raises:
        TaskCheckFailure: it names no such key.
        TaskCheckSkipped: no ``primary_metric``, or the gold results do not merge (reported by the merge check).
    """
    primary = task_dict.config.primary_metric
    if primary is None:
        raise TaskCheckSkipped("the task declares no primary_metric")
    problem = _key_problem(primary, _merged_gold_result(task_dict), "the merged results")
    if problem:
        raise TaskCheckFailure(problem)


def _directions_problem(declared: Mapping[str, str], keys: Iterable[str], where: str) -> str | None:
    keys = list(keys)
    unmatched = unmatched_patterns(declared, keys)
    if not unmatched:
        return None
    problems = []
    for pattern in unmatched:
        close = difflib.get_close_matches(pattern, keys, n=1, cutoff=0.6)
        problems.append(f"{pattern!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    listed = ", ".join(repr(k) for k in keys[:12]) + (", ..." if len(keys) > 12 else "")
    return (
        f"config.jsonnet: metric_directions: {', '.join(problems)} match{'es' * (len(unmatched) == 1)} no key of "
        f"{where}; the keys are: {listed}. Name a key, or a glob pattern of keys such as 'negation_gap__*', or "
        "remove the entry."
    )


def check_metric_directions(task: Any) -> None:
    """Every key or glob pattern of ``metric_directions`` matches a key of the results the task's evaluation gives
    (scored on the gold test targets): a direction that matches nothing is a typo, and the leaderboard would guess.

    Raises:
        TaskCheckFailure: an entry matches no key (with a did-you-mean and the keys there are).
        TaskCheckSkipped: the task declares no ``metric_directions``, or its gold targets cannot be scored.
    """
    _check_directions(
        task.config.metric_directions,
        lambda: _gold_result(task),
        "the results of the task's evaluation",
        "the task declares no metric_directions (the leaderboard guesses from metric names)",
    )


def check_task_dict_metric_directions(task_dict: Any) -> None:
    """Every key or glob pattern of a TaskDict's ``metric_directions`` matches a key of its merged results.

    Raises:
        TaskCheckFailure: an entry matches no key.
        TaskCheckSkipped: no ``metric_directions``, or the gold results do not merge (reported by the merge check).
    """
    _check_directions(
        task_dict.config.metric_directions,
        lambda: _merged_gold_result(task_dict),
        "the merged results",
        "the task declares no metric_directions",
    )


def _check_directions(
    declared: Mapping[str, str] | None, results: Callable[[], Mapping[str, Any]], where: str, undeclared: str
) -> None:
    if not declared:
        raise TaskCheckSkipped(undeclared)
    problem = _directions_problem(declared, results(), where)
    if problem:
        raise TaskCheckFailure(problem)


def _merged_gold_result(task_dict: Any) -> Mapping[str, Any]:
    results: OrderedDict[str, Any] = OrderedDict((sid, _gold_result(sub)) for sid, sub in task_dict.items())
    try:
        merged = task_dict.merge_evaluation_results(results)
    except Exception as error:  # noqa: BLE001 - reported by the merge check
        raise TaskCheckSkipped(
            f"the subtasks' results do not merge ({describe_error(error)}; see the merge check)"
        ) from None
    return merged if isinstance(merged, Mapping) else {}


def _gold_result(task: Any) -> Mapping[str, Any]:
    try:
        test = test_split(task)
        return task.evaluate_predictions(predictions=gold_predictions(test), gold=test)
    except TaskCheckSkipped:
        raise
    except Exception as error:  # noqa: BLE001 - the task's metrics may raise anything; reported by gold_scores
        raise TaskCheckSkipped(
            f"{task.task_id}'s gold targets cannot be scored ({describe_error(error)}; see the gold_scores check)"
        ) from None
