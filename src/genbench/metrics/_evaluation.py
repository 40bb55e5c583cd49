"""Score a task's predictions with its configured metrics, and check a perfect prediction set's scores.

This is the default ``Task.evaluate_predictions``: validate the predictions, normalise them for the task type (see
:mod:`genbench.metrics._predictions`), run each metric of ``evaluation_metrics`` and prefix its keys as the original
framework does (``hf_exact_match__exact_match``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import genbench.metrics._cross_encoder as cross_encoder
from genbench._core.errors import MetricError
from genbench._core.vocabulary import EvaluationResult, TaskType
from genbench.metrics._configured_metrics import compute_metric_by_id, metric_key_prefix
from genbench.metrics._cross_encoder import check_reranking_scores, main_key
from genbench.metrics._predictions import ScoringInputs, prediction_targets, prepare_for_scoring, read_gold

if TYPE_CHECKING:
    from genbench.config._schema import EvaluationMetricConfig, PromptBuilderConfig

# best_score is met when the score is within this tolerance (math.isclose), never by float equality.
BEST_SCORE_REL_TOL = 1e-9
BEST_SCORE_ABS_TOL = 1e-6

_SET_WISE_METRICS = frozenset({"f1", "precision", "recall"})
# Keys of nested metric outputs that count examples rather than score them (seqeval's per-entity support):
# left out of the result, so that every value is a score and gold predictions reach best_score on every key.
SUPPORT_COUNT_KEYS = frozenset({"number"})


def _as_score(value: Any) -> Any:
    if hasattr(value, "tolist"):  # NumPy scalars and arrays as Python values
        value = value.tolist()
    if isinstance(value, list):
        return [_as_score(item) for item in value]
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    return value


def flatten_metric_output(prefix: str, output: Mapping[str, Any]) -> dict[str, Any]:
    """A metric's output as flat ``{prefix}__{key}`` scores: nested mappings joined with ``__``, counts dropped.

    Numbers become floats (a per-class array a list of floats); nested support counts (``number``) are left out.

    >>> flatten_metric_output("hf_seqeval", {"PER": {"precision": 1, "f1": 1.0, "number": 3}, "overall_f1": 1.0})
    {'hf_seqeval__PER__precision': 1.0, 'hf_seqeval__PER__f1': 1.0, 'hf_seqeval__overall_f1': 1.0}
    """
    flat: dict[str, Any] = {}
    for key, value in output.items():
        name = f"{prefix}__{key}"
        if isinstance(value, Mapping):
            nested = {k: v for k, v in value.items() if k not in SUPPORT_COUNT_KEYS}
            flat.update(flatten_metric_output(name, nested))
        else:
            flat[name] = _as_score(value)
    return flat


def _as_metric_config(metric: EvaluationMetricConfig | Mapping[str, Any]) -> Any:
    if not isinstance(metric, Mapping):
        return metric
    from pydantic import TypeAdapter

    from genbench.config._schema import MetricConfig

    try:
        return TypeAdapter(MetricConfig).validate_python(dict(metric))
    except ValueError as exc:
        raise MetricError(f"Invalid metric config {dict(metric)!r}: {exc}") from None


def _single_id(hf_id: str | Sequence[str]) -> str | None:
    if isinstance(hf_id, str):
        return hf_id
    return hf_id[0] if len(hf_id) == 1 else None


def adapt_for_missed_choices(
    metric_id: str | None, inputs: ScoringInputs, kwargs: Mapping[str, Any]
) -> tuple[list[Any], dict[str, Any]]:
    """Predictions and options for a label metric, so that multiple-choice misses count as wrong and nothing else.

    A miss (a prediction that is none of its example's options, label -1) must never become an extra class:

    - ``f1``/``precision``/``recall`` with ``average="binary"`` (their default): a miss becomes a label other
      than ``pos_label`` among the valid labels seen, i.e. it predicts "not positive" (a false negative when the
      gold is positive, a true negative otherwise). The score is that of the positive class, so which negative
      label is used does not matter.
    - the same metrics with another ``average`` and no ``labels`` given: ``labels`` is set to the valid labels seen
      (gold labels and non-missed predictions, sorted; what scikit-learn would use had there been no miss), so a
      miss is a false negative for its gold class and a false positive for no class. Given ``labels`` are kept.
    - ``matthews_correlation`` with two valid labels seen: a miss becomes the label that is not its gold (a plain
      wrong answer in the 2x2 table). With more labels there is no single wrong answer, and the miss stays a
      predicted-only class, which can only lower the coefficient.

    Other metrics (``accuracy``, ``exact_match``, ...) take -1 as it is: it never equals a gold index.

    Args:
        metric_id: The metric's id (None for a ``[path, config_name]`` id).
        inputs: The normalised predictions and references.
        kwargs: The metric's ``compute_extra_kwargs``.

    Returns:
        The predictions and keyword arguments to pass to the metric.

    >>> inputs = ScoringInputs(predictions=[1, -1, 0, 2], references=[1, 1, 0, 2], missed=[False, True, False, False])
    >>> adapt_for_missed_choices("f1", inputs, {"average": "macro"})
    ([1, -1, 0, 2], {'average': 'macro', 'labels': [0, 1, 2]})
    """
    predictions, kwargs = list(inputs.predictions), dict(kwargs)
    if metric_id not in _SET_WISE_METRICS | {"matthews_correlation"} or not any(inputs.missed):
        return predictions, kwargs
    valid_labels = sorted(
        {*inputs.references, *(p for p, miss in zip(predictions, inputs.missed, strict=True) if not miss)}
    )
    if metric_id == "matthews_correlation":
        if len(valid_labels) == 2:
            predictions = [
                (valid_labels[1] if gold == valid_labels[0] else valid_labels[0]) if miss else prediction
                for prediction, gold, miss in zip(predictions, inputs.references, inputs.missed, strict=True)
            ]
        return predictions, kwargs
    if kwargs.get("average", "binary") == "binary":
        negatives = [label for label in valid_labels if label != kwargs.get("pos_label", 1)]
        if negatives:  # else -1 is the only non-positive label and the problem is still binary
            predictions = [negatives[0] if miss else p for p, miss in zip(predictions, inputs.missed, strict=True)]
        return predictions, kwargs
    if kwargs.get("labels") is None:
        kwargs["labels"] = valid_labels
    return predictions, kwargs


def evaluate_predictions(
    *,
    predictions: Any,
    gold: Any,
    task_type: TaskType | str,
    metrics: Sequence[Any] | None,
    prompt_builder: PromptBuilderConfig | None = None,
    free_form_output_regex: str | None = None,
    labels: Collection[str] | None = None,
) -> EvaluationResult:
    """Score predictions against the gold set with every configured metric.

    Args:
        predictions: One mapping with a ``target`` key per gold example, in gold order.
        gold: A ``datasets.Dataset`` or a list of mappings, raw (``input``, ``target``, optional
            ``target_options``) or prepared for prompting (``original_target`` holds the raw target and is used).
        task_type: The task's type; it decides how predictions are checked and normalised.
        metrics: The task's ``evaluation_metrics`` (configs or mappings of their fields).
        prompt_builder: The prompt builder config (``stop_string``, ``sequence_labeling_separator``).
        free_form_output_regex: Free form: the regex that extracts the answer.
        labels: Sequence labeling: the task's label set; a predicted label outside it (and outside the gold labels
            of ``gold``) is scored as ``"O"``, never as an entity type of its own (see
            :func:`genbench.metrics._predictions.prepare_for_scoring`), so metric keys name only the task's labels.

    Returns:
        ``hf_{id}__{key}`` -> value, metric by metric in config order (``hf_{path}_{config}__{key}`` for a
        ``[path, config_name]`` id). Values are floats (a per-class array: a list of floats); a nested output is
        flattened (``hf_seqeval__PER__f1``) and its support counts (``number``) are left out, see
        :func:`flatten_metric_output`.

    Raises:
        MetricError: no metrics, or a metric that cannot be loaded or computed.
        PredictionError: predictions that do not fit the gold set (see :mod:`genbench.metrics._predictions`).

    >>> gold = [{"input": "2+2", "target": "4"}, {"input": "2+3", "target": "5"}]
    >>> result = evaluate_predictions(predictions=[{"target": "4\\n\\nQ: 1+1"}, {"target": "6"}], gold=gold,
    ...                      task_type="free_form", metrics=[{"hf_id": "exact_match"}],
    ...                      prompt_builder=None, free_form_output_regex=r"\\d+")
    >>> dict(result)
    {'hf_exact_match__exact_match': 0.5}
    """
    if not metrics:
        raise MetricError(
            "The task config has no evaluation_metrics, so there is nothing to score with: add evaluation_metrics "
            "to its config.jsonnet, or override evaluate_predictions in the task's task.py"
        )
    configs = [_as_metric_config(metric) for metric in metrics]
    gold_columns = read_gold(gold)
    targets = prediction_targets(predictions, len(gold_columns.targets))
    task_type = TaskType(task_type)
    hf_configs = [config for config in configs if config.type == "hf"]
    if task_type is TaskType.RERANKING:
        if hf_configs:
            raise MetricError(
                "A reranking task's predictions are scores per candidate: score them with "
                "{type: 'cross_encoder_reranking'}, not with an hf_id metric"
            )

        check_reranking_scores(targets, gold_columns.target_options)
    inputs = None
    if hf_configs:
        inputs = prepare_for_scoring(
            targets, gold_columns, task_type, prompt_builder, free_form_output_regex, labels=labels
        )

    result = EvaluationResult()
    for config in configs:
        if config.type != "hf":
            output = cross_encoder.compute(config, targets, gold_columns.targets, gold_columns.target_options)
            result.update(flatten_metric_output(config.type, output))
            continue
        assert inputs is not None  # noqa: S101 - computed above whenever there is an hf metric
        result.update(_hf_metric_scores(config, inputs))
    return result


def _hf_metric_scores(config: EvaluationMetricConfig, inputs: ScoringInputs) -> dict[str, Any]:
    metric_predictions, kwargs = adapt_for_missed_choices(
        _single_id(config.hf_id), inputs, config.compute_extra_kwargs or {}
    )
    output = compute_metric_by_id(
        config.hf_id, metric_predictions, inputs.references, kwargs=kwargs, revision=config.git_commit_sha
    )
    return flatten_metric_output(metric_key_prefix(config.hf_id), output)


def evaluate_prepared(inputs: ScoringInputs, metrics: Sequence[Any]) -> EvaluationResult:
    """What :func:`evaluate_predictions` gives for answers already prepared (:func:`prepare_for_scoring`), when
    every metric is an ``evaluate`` id (``type: hf``); a resample is scored from the prepared answers it draws.

    >>> inputs = ScoringInputs(predictions=[0, 1, -1], references=[0, 0, 1], missed=[False, False, True])
    >>> dict(evaluate_prepared(inputs, [{"hf_id": "accuracy"}]))
    {'hf_accuracy__accuracy': 0.3333333333333333}
    """
    result = EvaluationResult()
    for config in (_as_metric_config(metric) for metric in metrics):
        if config.type != "hf":
            raise MetricError(f"evaluate_prepared scores evaluate ids only, not a {config.type!r} metric")
        result.update(_hf_metric_scores(config, inputs))
    return result


def main_score_key(hf_id: str | Sequence[str], result_keys: Iterable[str]) -> str | None:
    """The result key holding a metric's main score, or None when it cannot be told.

    Among the metric's keys (those starting with ``metric_key_prefix(hf_id) + "__"``), the main one is, in order:
    the key named like the metric (``hf_accuracy__accuracy``; for a path, its last segment), the only key,
    ``score`` (``sacrebleu``, ``chrf``), ``overall_f1`` (``seqeval``).

    >>> main_score_key("accuracy", ["hf_accuracy__accuracy"])
    'hf_accuracy__accuracy'
    >>> main_score_key("sacrebleu", ["hf_sacrebleu__score", "hf_sacrebleu__bp"])
    'hf_sacrebleu__score'
    """
    prefix = metric_key_prefix(hf_id) + "__"
    names = [key[len(prefix) :] for key in result_keys if key.startswith(prefix)]
    parts = [hf_id] if isinstance(hf_id, str) else list(hf_id)
    candidates = [part.rstrip("/").rsplit("/", 1)[-1] for part in parts]
    if len(names) == 1:
        candidates.append(names[0])
    candidates += ["score", "overall_f1"]
    return next((prefix + name for name in candidates if name in names), None)


def _is_close(value: Any, best: float) -> bool:
    if hasattr(value, "tolist"):  # a NumPy array (average=None) or scalar, as Python values
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_is_close(item, best) for item in value)
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return False
    return math.isclose(float(value), best, rel_tol=BEST_SCORE_REL_TOL, abs_tol=BEST_SCORE_ABS_TOL)


def best_score_reached(result: Mapping[str, Any], metrics: Sequence[Any] | None) -> list[str]:
    """Check that every metric with a ``best_score`` reached it (e.g. on gold predictions).

    Each metric's main score (see :func:`main_score_key`) must be within ``math.isclose(rel_tol=1e-9,
    abs_tol=1e-6)`` of ``best_score``; a per-class array must be close in every element. When a metric has no
    main score (e.g. ``["glue", "mrpc"]`` returning ``accuracy`` and ``f1``), each of its keys is checked.

    Args:
        result: The output of :func:`evaluate_predictions`.
        metrics: The task's ``evaluation_metrics``.

    Returns:
        One readable line per failure; empty when every best score is reached.

    >>> best_score_reached({"hf_accuracy__accuracy": 0.1 + 0.2}, [{"hf_id": "accuracy", "best_score": 0.3}])
    []
    >>> best_score_reached({"hf_accuracy__accuracy": 0.99}, [{"hf_id": "accuracy", "best_score": 1.0}])
    ['hf_accuracy__accuracy is 0.99, expected best_score 1.0 (tolerance: rel 1e-09, abs 1e-06)']
    """
    failures = []
    for config in (_as_metric_config(metric) for metric in metrics or ()):
        if config.best_score is None:
            continue
        best = float(config.best_score)
        if config.type != "hf":
            key = main_key(config, list(result))
            if key is None:
                failures.append(f"metric {config.type!r} has best_score {best} but the result has no main score")
            elif not _is_close(result[key], best):
                failures.append(
                    f"{key} is {result[key]!r}, expected best_score {best} "
                    f"(tolerance: rel {BEST_SCORE_REL_TOL}, abs {BEST_SCORE_ABS_TOL})"
                )
            continue
        prefix = metric_key_prefix(config.hf_id) + "__"
        main = main_score_key(config.hf_id, result)
        keys = [main] if main is not None else [key for key in result if key.startswith(prefix)]
        if not keys:
            failures.append(
                f"metric {config.hf_id!r} has best_score {best} but the result has no {prefix}* key "
                f"(result keys: {', '.join(result) or 'none'})"
            )
        for key in keys:
            if not _is_close(result[key], best):
                failures.append(
                    f"{key} is {result[key]!r}, expected best_score {best} "
                    f"(tolerance: rel {BEST_SCORE_REL_TOL}, abs {BEST_SCORE_ABS_TOL})"
                )
    return failures
