"""Classification metrics from cross-encoder scores, as sentence-transformers' ``CrossEncoderClassificationEvaluator``.

Binary: accuracy and F1 at their best thresholds (found as ``BinaryClassificationEvaluator`` finds them) and average
precision; multi-class: the F1s of the arg-max class (``sklearn.metrics.f1_score``). Vectorised numpy, no Python
loop over the pairs. How ties and thresholds are handled: docs/reranking.md#metric-core-scores-produced-elsewhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from genbench.metrics._ranking_metrics import check_no_nan, ranking_metrics_per_query

__all__ = [
    "average_precision",
    "binary_classification_metrics",
    "find_best_accuracy_and_threshold",
    "find_best_f1_and_threshold",
    "multiclass_classification_metrics",
]


def _binary_inputs(scores: npt.ArrayLike, labels: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    scores_array = np.asarray(scores)
    labels_array = np.asarray(labels)
    if scores_array.ndim != 1 or labels_array.ndim != 1:
        raise ValueError(
            f"binary classification needs one score and one label per pair, got shapes {scores_array.shape} "
            f"and {labels_array.shape}"
        )
    if scores_array.shape != labels_array.shape:
        raise ValueError(f"got {scores_array.shape[0]} scores but {labels_array.shape[0]} labels")
    if scores_array.dtype.kind not in "iuf":
        raise ValueError(f"scores must be numeric, got dtype {scores_array.dtype}")
    if scores_array.dtype.kind == "f":
        check_no_nan(scores_array)
    if labels_array.dtype != bool and not np.isin(labels_array, (0, 1)).all():
        bad = sorted({v for v in labels_array.tolist() if v not in (0, 1)})[:5]
        raise ValueError(f"binary labels must be 0 or 1, got {bad}")
    return scores_array, labels_array.astype(np.int64)


def _sorted_groups(scores: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores and labels in decreasing score order, and the positions that end a group of tied scores."""
    order = np.argsort(scores, kind="stable")[::-1]
    ranked_scores = scores[order]
    ranked_labels = labels[order]
    ends = np.flatnonzero(np.append(ranked_scores[:-1] != ranked_scores[1:], True))
    return ranked_scores, ranked_labels, ends


def _threshold_after(ranked_scores: np.ndarray, end: int) -> Any:
    """Halfway between a group's score and the next lower one, in the scores' dtype; the score itself at the end."""
    if end == ranked_scores.shape[0] - 1:
        return ranked_scores[end]
    threshold = (ranked_scores[end] + ranked_scores[end + 1]) / 2
    # A rounded midpoint must not include the next score group.
    if threshold == ranked_scores[end + 1]:
        threshold = ranked_scores[end]
    return threshold


def find_best_accuracy_and_threshold(scores: npt.ArrayLike, labels: npt.ArrayLike) -> tuple[float, float]:
    """Best accuracy of ``score > threshold`` over all thresholds, and that threshold.

    Args:
        scores: One score per pair; higher means more likely positive.
        labels: 0/1 gold labels.

    Returns:
        ``(accuracy, threshold)``. When predicting every pair negative is best, the threshold is the next
        representable value above the highest score.

    >>> find_best_accuracy_and_threshold([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 0])
    (1.0, 0.55)
    """
    scores_array, labels_array = _binary_inputs(scores, labels)
    num_pairs = labels_array.shape[0]
    if num_pairs == 0:
        return 0.0, -1.0
    ranked_scores, ranked_labels, ends = _sorted_groups(scores_array, labels_array)
    positives_so_far = np.cumsum(ranked_labels == 1)
    remaining_negatives = np.sum(labels_array == 0) - np.cumsum(ranked_labels != 1)
    # Candidate 0 predicts every pair negative; the others put the threshold after each group of tied scores.
    accuracies = np.concatenate(
        [[np.sum(labels_array == 0) / num_pairs], (positives_so_far[ends] + remaining_negatives[ends]) / num_pairs]
    )
    best = int(np.argmax(accuracies))
    if best == 0:
        score_dtype = np.result_type(scores_array.dtype, np.float16)
        threshold = np.nextafter(ranked_scores[0], np.inf, dtype=score_dtype)
    else:
        threshold = _threshold_after(ranked_scores, int(ends[best - 1]))
    return float(accuracies[best]), float(threshold)


def find_best_f1_and_threshold(scores: npt.ArrayLike, labels: npt.ArrayLike) -> tuple[float, float, float, float]:
    """Best F1 of ``score > threshold`` over all thresholds, with its precision, recall and threshold.

    Args:
        scores: One score per pair; higher means more likely positive.
        labels: 0/1 gold labels.

    Returns:
        ``(f1, precision, recall, threshold)``; all 0 when there is no positive pair.

    >>> find_best_f1_and_threshold([0.9, 0.8, 0.3, 0.1], [1, 0, 1, 0])
    (0.8, 0.6666666666666666, 1.0, 0.2)
    """
    scores_array, labels_array = _binary_inputs(scores, labels)
    if labels_array.shape[0] == 0:
        return 0.0, 0.0, 0.0, 0.0
    ranked_scores, ranked_labels, ends = _sorted_groups(scores_array, labels_array)
    extracted = ends + 1
    correct = np.cumsum(ranked_labels == 1)[ends]
    total_positives = labels_array.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = correct / extracted
        recall = correct / total_positives
        f1 = 2 * precision * recall / (precision + recall)
    f1 = np.where(correct > 0, f1, 0.0)
    best = int(np.argmax(f1))
    if f1[best] <= 0:
        return 0.0, 0.0, 0.0, 0.0
    threshold = _threshold_after(ranked_scores, int(ends[best]))
    return float(f1[best]), float(precision[best]), float(recall[best]), float(threshold)


def average_precision(scores: npt.ArrayLike, labels: npt.ArrayLike) -> float:
    """Average precision of the ranking of the pairs by score (``sklearn.metrics.average_precision_score``).

    Tied scores form one threshold; with no positive pair the result is 0.

    >>> average_precision([0.9, 0.8, 0.3, 0.1], [1, 0, 1, 0])
    0.8333333333333333
    """
    scores_array, labels_array = _binary_inputs(scores, labels)
    if labels_array.shape[0] == 0:
        return 0.0
    return float(ranking_metrics_per_query(scores_array[None, :], labels_array[None, :], at_k=1)["map"][0])


def binary_classification_metrics(scores: npt.ArrayLike, labels: npt.ArrayLike) -> dict[str, float]:
    """The binary metrics of ``CrossEncoderClassificationEvaluator`` (a model with one output), in its key order.

    Args:
        scores: One score per pair.
        labels: 0/1 gold labels.

    Returns:
        ``accuracy``, ``accuracy_threshold``, ``f1``, ``f1_threshold``, ``precision``, ``recall``,
        ``average_precision``.

    >>> metrics = binary_classification_metrics([0.9, 0.8, 0.3, 0.1], [1, 0, 1, 0])
    >>> metrics["accuracy"], metrics["f1"], metrics["average_precision"]
    (0.75, 0.8, 0.8333333333333333)
    """
    accuracy, accuracy_threshold = find_best_accuracy_and_threshold(scores, labels)
    f1, precision, recall, f1_threshold = find_best_f1_and_threshold(scores, labels)
    return {
        "accuracy": accuracy,
        "accuracy_threshold": accuracy_threshold,
        "f1": f1,
        "f1_threshold": f1_threshold,
        "precision": precision,
        "recall": recall,
        "average_precision": average_precision(scores, labels),
    }


def multiclass_classification_metrics(scores: npt.ArrayLike, labels: npt.ArrayLike) -> dict[str, float]:
    """Macro, micro and weighted F1 of the arg-max class, as ``CrossEncoderClassificationEvaluator`` reports them.

    Args:
        scores: ``(pairs, classes)`` scores (logits or probabilities); or a 1-D array of predicted class ids.
        labels: Gold class ids.

    Returns:
        ``{"f1_macro": ..., "f1_micro": ..., "f1_weighted": ...}``. With one label per pair, micro F1 equals
        the accuracy.

    >>> multiclass_classification_metrics([[2.0, 0.1, 0.3], [0.2, 1.5, 0.1], [0.1, 0.2, 0.4]], [0, 1, 1])
    {'f1_macro': 0.5555555555555555, 'f1_micro': 0.6666666666666666, 'f1_weighted': 0.7777777777777777}
    """
    scores_array = np.asarray(scores)
    true_labels = np.asarray(labels)
    if scores_array.ndim == 2:
        predicted = np.argmax(scores_array, axis=1)
    elif scores_array.ndim == 1:
        predicted = scores_array
    else:
        raise ValueError(f"scores must be (pairs, classes) or one predicted class per pair, got {scores_array.shape}")
    if true_labels.ndim != 1 or true_labels.shape[0] != predicted.shape[0]:
        raise ValueError(f"got {predicted.shape[0]} predictions but labels of shape {true_labels.shape}")
    if predicted.shape[0] == 0:
        raise ValueError("no pairs to score")
    classes = np.union1d(true_labels, predicted)
    true_index = np.searchsorted(classes, true_labels)
    predicted_index = np.searchsorted(classes, predicted)
    num_classes = classes.shape[0]
    true_positives = np.bincount(true_index[true_index == predicted_index], minlength=num_classes)
    true_sum = np.bincount(true_index, minlength=num_classes)
    predicted_sum = np.bincount(predicted_index, minlength=num_classes)

    def f_score(tp: np.ndarray, support: np.ndarray, predicted_count: np.ndarray) -> np.ndarray:
        denominator = 1.0 * support.astype(np.float64) + predicted_count.astype(np.float64)
        numerator = 2.0 * tp.astype(np.float64)
        return np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator != 0)

    per_class = f_score(true_positives, true_sum, predicted_sum)
    micro = f_score(true_positives.sum(keepdims=True), true_sum.sum(keepdims=True), predicted_sum.sum(keepdims=True))
    weighted = np.average(per_class, weights=true_sum) if true_sum.sum() > 0 else np.mean(per_class)
    return {"f1_macro": float(np.mean(per_class)), "f1_micro": float(micro[0]), "f1_weighted": float(weighted)}
