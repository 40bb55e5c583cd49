"""The typed ``evaluation_metrics`` entries that score *scores*: cross-encoder reranking, classification, correlation.

One metric core serves them and the evaluators (:mod:`genbench.reranking`). Their predictions, gold targets and
keys: docs/reranking.md#config-metrics.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from genbench._core.errors import MetricError, PredictionError
from genbench.metrics._predictions import kind_of

if TYPE_CHECKING:
    from genbench.config._schema import (
        CrossEncoderClassificationMetricConfig,
        CrossEncoderCorrelationMetricConfig,
        CrossEncoderRerankingMetricConfig,
    )

    CrossEncoderMetricConfig = (
        CrossEncoderRerankingMetricConfig
        | CrossEncoderClassificationMetricConfig
        | CrossEncoderCorrelationMetricConfig
    )

RERANKING: Final = "cross_encoder_reranking"
CLASSIFICATION: Final = "cross_encoder_classification"
CORRELATION: Final = "cross_encoder_correlation"
TYPES = (RERANKING, CLASSIFICATION, CORRELATION)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_number_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(_is_number(item) for item in value)


def check_no_nan(targets: Sequence[Any]) -> None:
    """No prediction is or contains NaN (JSON files may spell it ``NaN``): NaN cannot be ranked or correlated.

    Raises:
        PredictionError: naming the first prediction with a NaN.

    >>> check_no_nan([[0.5, 0.1], [0.2, float("nan")]])
    Traceback (most recent call last):
    ...
    genbench._core.errors.PredictionError: predictions[1]['target'] contains NaN: every score must be a number (NaN \
cannot be ranked); a model that outputs NaN is broken
    """
    for index, target in enumerate(targets):
        values = target if isinstance(target, (list, tuple)) else [target]
        if any(isinstance(value, float) and math.isnan(value) for value in values):
            what = "contains NaN" if isinstance(target, (list, tuple)) else "is NaN"
            raise PredictionError(
                f"predictions[{index}]['target'] {what}: every score must be a number (NaN cannot be ranked); "
                "a model that outputs NaN is broken"
            )


def _positives(index: int, target: Any) -> list[str]:
    if isinstance(target, str):
        return [target]
    if isinstance(target, (list, tuple)) and all(isinstance(item, str) for item in target):
        return list(target)
    raise PredictionError(f"gold[{index}] target is {kind_of(target)}, expected a list of relevant documents (str)")


def check_reranking_scores(targets: Sequence[Any], target_options: Sequence[Any] | None) -> None:
    """Every prediction is a list of numbers, one per candidate of its example.

    Raises:
        PredictionError: naming the first bad prediction's index, what was found and what was expected.

    >>> check_reranking_scores([[0.5, 0.1]], [["a", "b", "c"]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genbench._core.errors.PredictionError: predictions[0]['target'] has 2 scores, expected 3 (one per ...
    """
    if target_options is None:
        raise PredictionError("The gold set has no target_options column: a reranking task needs the candidates")
    check_no_nan(targets)
    for index, (target, options) in enumerate(zip(targets, target_options, strict=True)):
        if not isinstance(options, (list, tuple)):
            raise PredictionError(
                f"gold[{index}] target_options is {kind_of(options)}, expected the list of candidate documents"
            )
        bad = next((number for number, option in enumerate(options) if not isinstance(option, str)), None)
        if bad is not None:
            raise PredictionError(
                f"gold[{index}] target_options[{bad}] is {kind_of(options[bad])}, expected a document (str)"
            )
        if not _is_number_list(target):
            raise PredictionError(
                f"predictions[{index}]['target'] is {kind_of(target)}, expected a list of numbers (one score per "
                f"target_options entry) for a reranking task"
            )
        if len(target) != len(options):
            raise PredictionError(
                f"predictions[{index}]['target'] has {len(target)} scores, expected {len(options)} "
                "(one per target_options entry)"
            )


def reranking_metrics(
    config: CrossEncoderRerankingMetricConfig, targets: Sequence[Any], gold_targets: Sequence[Any], target_options: Any
) -> dict:
    """The ``cross_encoder_reranking`` metrics of per-candidate scores (see the module docstring).

    >>> from genbench.config._schema import CrossEncoderRerankingMetricConfig as Config
    >>> result = reranking_metrics(Config(type="cross_encoder_reranking", at_k=3), [[0.1, 0.9]], [["a"]], [["a", "b"]])
    >>> {key: round(value, 4) for key, value in result.items()}
    {'map': 0.5, 'mrr@3': 0.5, 'ndcg@3': 0.6309}
    """
    from genbench.metrics._reranking_samples import RerankingSamples

    check_reranking_scores(targets, target_options)
    samples, score_of = [], []
    for index, (gold, options, scores) in enumerate(zip(gold_targets, target_options, targets, strict=True)):
        positives = _positives(index, gold)
        options = list(options)
        if config.first_stage_ranking:
            sample = {"query": f"q{index}", "positive": positives, "documents": options}
            if config.always_rerank_positives and any(p not in options for p in positives):
                raise MetricError(
                    f"gold[{index}] has positives that are not among its target_options, so they have no score: "
                    "add them to target_options or use always_rerank_positives: false"
                )
        else:
            sample = {
                "query": f"q{index}",
                "positive": [p for p in positives if p in options],
                "negative": [o for o in options if o not in positives],
            }
        samples.append(sample)
        score_of.append(dict(zip(options, scores, strict=True)))
    prepared = RerankingSamples(
        samples,
        always_rerank_positives=config.always_rerank_positives,
        penalize_missing_positives=config.penalize_missing_positives,
    )
    # Scores in the order of the prepared candidates (a permutation of each example's target_options).
    rows = [[float(table[doc]) for doc in docs] for table, docs in zip(score_of, prepared.candidates, strict=True)]
    return prepared.compute_metrics(rows, at_k=config.at_k)


def classification_metrics(targets: Sequence[Any], gold_targets: Sequence[Any]) -> dict:
    """``cross_encoder_classification``: binary metrics of one score per example, or multi-class F1 of logits."""
    from genbench.metrics._classification_metrics import (
        binary_classification_metrics,
        multiclass_classification_metrics,
    )

    binary = all(_is_number(t) for t in targets)
    if not binary:
        bad = next((i for i, t in enumerate(targets) if not _is_number_list(t) or not t), None)
        if bad is not None:
            raise PredictionError(
                f"predictions[{bad}]['target'] is {kind_of(targets[bad])}, expected a number (binary score) or a "
                "non-empty list of numbers (logits), the same kind for every prediction"
            )
        widths = {len(t) for t in targets}
        if len(widths) != 1:
            first = next(i for i, t in enumerate(targets) if len(t) != len(targets[0]))
            raise PredictionError(
                f"predictions[{first}]['target'] has {len(targets[first])} logits, predictions[0] has "
                f"{len(targets[0])}: every prediction needs one logit per class"
            )
    check_no_nan(targets)
    bad_gold = next((i for i, g in enumerate(gold_targets) if not isinstance(g, int) or isinstance(g, bool)), None)
    if bad_gold is not None:
        raise PredictionError(f"gold[{bad_gold}] target is {kind_of(gold_targets[bad_gold])}, expected an int label")
    if binary:
        return binary_classification_metrics([float(t) for t in targets], list(gold_targets))
    return multiclass_classification_metrics([list(map(float, t)) for t in targets], list(gold_targets))


def correlation_scores(targets: Sequence[Any], gold_targets: Sequence[Any]) -> dict:
    """``cross_encoder_correlation``: Pearson and Spearman of predicted and gold numbers."""
    from genbench.metrics._correlation_metrics import correlation_metrics

    bad = next((i for i, t in enumerate(targets) if not _is_number(t)), None)
    if bad is not None:
        raise PredictionError(f"predictions[{bad}]['target'] is {kind_of(targets[bad])}, expected a number")
    check_no_nan(targets)
    bad_gold = next((i for i, g in enumerate(gold_targets) if not _is_number(g)), None)
    if bad_gold is not None:
        raise PredictionError(f"gold[{bad_gold}] target is {kind_of(gold_targets[bad_gold])}, expected a number")
    return correlation_metrics([float(t) for t in targets], [float(g) for g in gold_targets])


def compute(
    config: CrossEncoderMetricConfig, targets: Sequence[Any], gold_targets: Sequence[Any], target_options: Any
) -> dict:
    """The metrics of one typed entry, unprefixed."""
    if config.type == RERANKING:
        return reranking_metrics(config, targets, gold_targets, target_options)
    if config.type == CLASSIFICATION:
        return classification_metrics(targets, gold_targets)
    return correlation_scores(targets, gold_targets)


def main_key(config: CrossEncoderMetricConfig, result_keys: Sequence[str]) -> str | None:
    """The prefixed key of a typed entry's main score: NDCG@k, average precision / macro F1, Spearman."""
    prefix = f"{config.type}__"
    if config.type == RERANKING:
        names = [f"ndcg@{config.at_k}"]
    elif config.type == CLASSIFICATION:
        names = ["average_precision", "f1_macro"]
    else:
        names = ["spearman"]
    return next((prefix + name for name in names if prefix + name in result_keys), None)
