"""Score a model's predictions: corpus metrics, per-sample metric values and a bootstrap interval per metric.

Per-sample values are the task's own ``evaluate_predictions`` on each example alone. A metric whose corpus value is
the mean of its per-sample values (accuracy, exact match, per-query ranking metrics) gets the percentile
bootstrap interval of that mean; any other scalar metric (F1 over classes, seqeval, correlations) gets the interval
of the metric recomputed on resampled examples. See :mod:`genbench._core.bootstrap` for the procedure.
"""

from __future__ import annotations

import contextlib
import numbers
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from genbench._core.bootstrap import bootstrap_mean_interval, is_mean_of, resample_indices
from genbench._core.errors import GenBenchError
from genbench._core.metric_values import is_finite_number
from genbench._core.vocabulary import TaskType
from genbench.metrics._configured_metrics import one_example_scores_reused
from genbench.metrics._evaluation import evaluate_prepared
from genbench.metrics._predictions import ScoringInputs, prepare_for_scoring, read_gold


@dataclass(frozen=True)
class BootstrapSettings:
    """Resample counts, confidence and seed of the intervals (recorded in every results file)."""

    resamples: int = 1000
    statistic_resamples: int = 200
    confidence: float = 0.95
    seed: int = 42

    def as_record(self) -> dict[str, Any]:
        return {
            "confidence": self.confidence,
            "resamples": self.resamples,
            "statistic_resamples": self.statistic_resamples,
            "seed": self.seed,
        }


def quiet_evaluate(task: Any, targets: Sequence[Any], gold: Any) -> Mapping[str, Any]:
    """``task.evaluate_predictions`` without scikit-learn's "ill-defined" warnings (expected on small samples)."""
    with _quiet_metrics():
        return task.evaluate_predictions(predictions=[{"target": t} for t in targets], gold=gold)


@contextlib.contextmanager
def _quiet_metrics() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*ill-defined.*")
        warnings.filterwarnings("ignore", category=RuntimeWarning)
        warnings.filterwarnings("ignore", message=".*seems not to be NE tag.*")  # seqeval on malformed model output
        yield


def resample_scorer(
    task: Any, targets: Sequence[Any], gold: GoldSubsets
) -> Callable[[Sequence[int]], Mapping[str, Any]]:
    """``rows -> quiet_evaluate(task, targets[rows], gold[rows])`` for resampled rows (repeats allowed).

    Where that gives the same scores, the answers are prepared for the metrics once and each call scores the prepared
    answers of its rows: the task's own ``evaluate_predictions`` (not overridden), ``evaluate`` ids only, and a
    free-form or multiple-choice task, whose answers are each prepared alone (a sequence-labelling answer is read
    against the labels of the gold rows scored with it). Otherwise every call prepares its rows again.
    """
    prepared = _prepared_answers(task, targets, gold)
    if prepared is None:
        return lambda rows: quiet_evaluate(task, [targets[i] for i in rows], gold.select(rows))
    metrics = task.config.evaluation_metrics

    def scorer(rows: Sequence[int]) -> Mapping[str, Any]:
        chosen = ScoringInputs(
            [prepared.predictions[i] for i in rows],
            [prepared.references[i] for i in rows],
            [prepared.missed[i] for i in rows],
        )
        with _quiet_metrics():
            return evaluate_prepared(chosen, metrics)

    return scorer


def _prepared_answers(task: Any, targets: Sequence[Any], gold: GoldSubsets) -> ScoringInputs | None:
    task_type = TaskType(task.config.task_type)
    metrics = task.config.evaluation_metrics or ()
    if gold.rows is None or task_type not in (TaskType.FREE_FORM, TaskType.MULTIPLE_CHOICE):
        return None
    if not metrics or any(metric.type != "hf" for metric in metrics):
        return None
    return scoring_inputs(task, gold.gold, targets)


def scoring_inputs(task: Any, dataset: Any, targets: Sequence[Any]) -> ScoringInputs | None:
    """What the evaluation scores for each answer (the extracted free-form answer, option index, label list, with
    out-of-set labels replaced), and what was out of set; None for reranking or answers the evaluation refuses."""
    task_type = TaskType(task.config.task_type)
    if task_type is TaskType.RERANKING:
        return None
    try:
        return prepare_for_scoring(
            list(targets),
            read_gold(dataset),
            task_type,
            task.config.answer_prompt_builder,  # as Task.evaluate_predictions passes them
            task.config.free_form_output_regex,
            labels=task.label_set(),
        )
    except GenBenchError:  # the evaluation reports these itself
        return None


class GoldSubsets:
    """Subsets of a gold dataset by example indices (repeats allowed), cheaply.

    A task with the default ``evaluate_predictions`` accepts gold rows as a list of mappings, sliced in memory; a
    task that overrides it gets ``datasets.Dataset.select`` subsets, as it may rely on a ``Dataset``.
    """

    def __init__(self, task: Any, gold: Any):
        from genbench.task import Task

        overridden = type(task).evaluate_predictions is not Task.evaluate_predictions
        self.gold = gold
        self.rows = None if overridden or not hasattr(gold, "to_list") else gold.to_list()

    def select(self, indices: Sequence[int]) -> Any:
        if self.rows is None:
            return self.gold.select([int(i) for i in indices])
        return [self.rows[int(i)] for i in indices]


def per_sample_scores(task: Any, targets: Sequence[Any], gold: GoldSubsets) -> list[dict[str, float | None]]:
    """Each example's metric values, scored alone (a metric undefined on one example is None)."""
    scores: list[dict[str, float | None]] = []
    with one_example_scores_reused():
        for index, target in enumerate(targets):
            scores.append(_one_sample_scores(task, target, gold, index))
    return scores


def _one_sample_scores(task: Any, target: Any, gold: GoldSubsets, index: int) -> dict[str, float | None]:
    try:
        result = quiet_evaluate(task, [target], gold.select([index]))
    except (ValueError, ZeroDivisionError):  # a metric undefined on one example (a correlation)
        return {}
    return {key: (float(v) if is_finite_number(v) else None) for key, v in result.items() if not _is_list(v)}


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict)) or getattr(value, "ndim", 0) > 0


def undefined_reason(value: Any) -> str:
    """Why a metric's value is recorded as null (results files hold numbers, or null with a reason).

    >>> undefined_reason(float("nan")), undefined_reason("high")
    ('undefined on these examples (the metric returned nan)', "not a number: the metric returned str 'high'")
    """
    if value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool)):
        return f"undefined on these examples (the metric returned {value})"
    return f"not a number: the metric returned {type(value).__name__} {str(value)[:60]!r}"


def metric_entries(
    corpus: Mapping[str, Any],
    samples: Sequence[Mapping[str, float | None]],
    recompute: Callable[[np.ndarray], Mapping[str, Any]],
    settings: BootstrapSettings,
) -> dict[str, dict[str, Any]]:
    """``{key: {"value", "ci", "ci_method"}}`` for every corpus metric.

    A metric counts as the mean of its per-sample values when its corpus value is their mean, on all examples and
    on the first half of them (one recomputation: a coincidence on one set of examples is not enough).
    """
    entries: dict[str, dict[str, Any]] = {}
    needs_recompute = []
    half = np.arange(max(1, len(samples) // 2))
    half_corpus: Mapping[str, Any] | None = None
    for key, value in corpus.items():
        entries[key] = {"value": value, "ci": None, "ci_method": None}
        if not is_finite_number(value) and not _is_list(value):
            entries[key].update(value=None, reason=undefined_reason(value))
            continue
        if not is_finite_number(value) or not samples:
            continue
        scores = [sample.get(key) for sample in samples]
        is_mean = all(s is not None for s in scores) and is_mean_of(float(value), [float(s) for s in scores])  # type: ignore[arg-type]
        if is_mean:
            half_corpus = half_corpus if half_corpus is not None else recompute(half)
            half_value = half_corpus.get(key)
            is_mean = is_finite_number(half_value) and is_mean_of(float(half_value), [float(scores[i]) for i in half])  # type: ignore[arg-type]
        if is_mean:
            low, high = bootstrap_mean_interval(
                [float(s) for s in scores if s is not None],
                resamples=settings.resamples,
                seed=settings.seed,
                confidence=settings.confidence,
            )
            entries[key].update(ci=[low, high], ci_method="bootstrap_mean")
        else:
            needs_recompute.append(key)
    if needs_recompute:
        # One recomputation of every metric per resample, shared by the keys that need it.
        indices = resample_indices(len(samples), settings.statistic_resamples, settings.seed)
        draws = [recompute(row) for row in indices]
        for key in needs_recompute:
            values = np.array([float(d[key]) if is_finite_number(d.get(key)) else np.nan for d in draws])
            finite = values[np.isfinite(values)]
            if finite.size * 2 >= len(draws):  # else the metric is undefined on most resamples: no interval
                low, high = np.quantile(finite, [(1 - settings.confidence) / 2, (1 + settings.confidence) / 2])
                entries[key].update(ci=[float(low), float(high)], ci_method="bootstrap_statistic")
    return entries


# The metric key of the out-of-set rate, by task type (see :class:`genbench.metrics._predictions.ScoringInputs`).
OUT_OF_SET_METRICS = {
    "sequence_labeling": "out_of_set_label_rate",
    "multiple_choice": "out_of_set_answer_rate",
    "free_form": "unmatched_answer_rate",
}


def out_of_set_entry(
    counts: Sequence[int], units: Sequence[int], settings: BootstrapSettings
) -> tuple[dict[str, Any], list[float | None]]:
    """The results entry of an out-of-set rate and its per-sample values.

    The rate is ``sum(counts) / sum(units)`` (out-of-set labels per scored label position; unmatched answers per
    answer); an example's value is its own ratio (None for an example with no units). When every example has one
    unit the rate is a mean and gets the mean's bootstrap interval; otherwise the ratio of sums is recomputed on
    each resample (``statistic_resamples`` draws of example indices, as for other corpus-level metrics).

    >>> entry, values = out_of_set_entry([0, 1, 0, 1], [1, 1, 1, 1], BootstrapSettings(resamples=50))
    >>> entry["value"], entry["ci_method"], values
    (0.5, 'bootstrap_mean', [0.0, 1.0, 0.0, 1.0])
    """
    count_array, unit_array = np.asarray(counts, dtype=float), np.asarray(units, dtype=float)
    values = [float(c / u) if u else None for c, u in zip(count_array, unit_array, strict=True)]
    total = float(unit_array.sum())
    entry: dict[str, Any] = {
        "value": float(count_array.sum()) / total if total else None,
        "ci": None,
        "ci_method": None,
    }
    if not total:
        return entry, values
    if np.all(unit_array == 1):
        low, high = bootstrap_mean_interval(
            count_array, resamples=settings.resamples, seed=settings.seed, confidence=settings.confidence
        )
        entry.update(ci=[low, high], ci_method="bootstrap_mean")
        return entry, values
    rows = resample_indices(len(count_array), settings.statistic_resamples, settings.seed)
    unit_sums = unit_array[rows].sum(axis=1)
    ratios = count_array[rows].sum(axis=1)[unit_sums > 0] / unit_sums[unit_sums > 0]
    if ratios.size * 2 >= len(rows):
        low, high = np.quantile(ratios, [(1 - settings.confidence) / 2, (1 + settings.confidence) / 2])
        entry.update(ci=[float(low), float(high)], ci_method="bootstrap_statistic")
    return entry, values
