"""Pearson and Spearman correlation, as sentence-transformers' ``CrossEncoderCorrelationEvaluator`` computes them.

The evaluator calls ``scipy.stats.pearsonr(gold, predicted)`` and ``scipy.stats.spearmanr(gold, predicted)``;
these numpy versions follow the same steps (the same dtype promotion, centring and scaling for Pearson; average
ranks for ties and ``np.corrcoef`` for Spearman), so the values agree to the last bits. A constant input has no
correlation: the result is NaN with a warning, as in scipy.
"""

from __future__ import annotations

import warnings

import numpy as np
import numpy.typing as npt

__all__ = ["ConstantInputWarning", "correlation_metrics", "pearson", "rankdata_average", "spearman"]


class ConstantInputWarning(RuntimeWarning):
    """An input is constant, so its correlation coefficient is not defined (NaN)."""


def _paired(gold: npt.ArrayLike, predicted: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    gold_array = np.asarray(gold)
    predicted_array = np.asarray(predicted)
    if gold_array.ndim != 1 or predicted_array.ndim != 1:
        raise ValueError(f"expected two 1-D sequences, got shapes {gold_array.shape} and {predicted_array.shape}")
    if gold_array.shape != predicted_array.shape:
        raise ValueError(f"got {gold_array.shape[0]} gold scores but {predicted_array.shape[0]} predictions")
    for name, array in (("gold scores", gold_array), ("predictions", predicted_array)):
        if array.dtype.kind not in "biuf":
            raise ValueError(f"{name} must be numeric, got dtype {array.dtype}")
    return gold_array, predicted_array


def _warn_constant() -> None:
    warnings.warn(
        ConstantInputWarning("An input array is constant; the correlation coefficient is not defined."),
        stacklevel=3,
    )


def pearson(gold: npt.ArrayLike, predicted: npt.ArrayLike) -> float:
    """Pearson's r between gold scores and predictions (``scipy.stats.pearsonr(gold, predicted).statistic``).

    Computed in the common floating dtype of the inputs (``float32`` only if both are ``float32``).

    Raises:
        ValueError: fewer than 2 pairs, or inputs of different lengths.

    >>> round(pearson([1, 2, 3, 4], [0.1, 0.2, 0.25, 0.5]), 4)
    0.9483
    """
    x, y = _paired(gold, predicted)
    if x.shape[0] < 2:
        raise ValueError("Pearson correlation needs at least 2 pairs")
    dtype = np.result_type(x.dtype, y.dtype)
    if dtype.kind != "f":
        dtype = np.result_type(dtype, np.float64)
    x = x.astype(dtype, copy=False)
    y = y.astype(dtype, copy=False)
    if np.isnan(x).any() or np.isnan(y).any():
        return float("nan")
    if (x == x[0]).all() or (y == y[0]).all():
        _warn_constant()
        return float("nan")
    x_centred = x - np.mean(x, axis=-1, keepdims=True)
    y_centred = y - np.mean(y, axis=-1, keepdims=True)
    # Scale before taking the norm, as scipy does, so large values cannot overflow.
    x_max = np.max(np.abs(x_centred), axis=-1, keepdims=True)
    y_max = np.max(np.abs(y_centred), axis=-1, keepdims=True)
    x_norm = x_max * np.linalg.norm(x_centred / x_max, axis=-1, keepdims=True)
    y_norm = y_max * np.linalg.norm(y_centred / y_max, axis=-1, keepdims=True)
    vecdot = getattr(np, "vecdot", None)
    if vecdot is not None:
        r = vecdot(x_centred / x_norm, y_centred / y_norm, axis=-1)
    else:  # numpy < 2
        r = np.sum((x_centred / x_norm) * (y_centred / y_norm), axis=-1)
    r = np.clip(r, -1.0, 1.0)
    if x.shape[0] == 2:
        r = np.round(r)
    return float(r)


def rankdata_average(values: npt.ArrayLike) -> np.ndarray:
    """Ranks from 1, tied values sharing the mean of their ranks (``scipy.stats.rankdata(method="average")``).

    >>> rankdata_average([10, 30, 20, 20]).tolist()
    [1.0, 4.0, 2.5, 2.5]
    """
    array = np.asarray(values).ravel()
    sorter = np.argsort(array, kind="mergesort")
    inverse = np.empty(sorter.size, dtype=np.intp)
    inverse[sorter] = np.arange(sorter.size, dtype=np.intp)
    ranked = array[sorter]
    starts = np.concatenate([[True], ranked[1:] != ranked[:-1]])
    dense = np.cumsum(starts)[inverse]
    bounds = np.concatenate([np.flatnonzero(starts), [starts.size]])
    return 0.5 * (bounds[dense] + bounds[dense - 1] + 1)


def spearman(gold: npt.ArrayLike, predicted: npt.ArrayLike) -> float:
    """Spearman's rho between gold scores and predictions (``scipy.stats.spearmanr(gold, predicted).statistic``).

    NaN for fewer than 2 pairs, a constant input or NaN values, as in scipy.

    >>> round(spearman([1, 2, 3, 4], [0.1, 0.3, 0.2, 0.5]), 4)
    0.8
    """
    x, y = _paired(gold, predicted)
    if x.shape[0] <= 1:
        return float("nan")
    if (x == x[0]).all() or (y == y[0]).all():
        _warn_constant()
        return float("nan")
    if (x.dtype.kind == "f" and np.isnan(x).any()) or (y.dtype.kind == "f" and np.isnan(y).any()):
        return float("nan")
    ranks = np.column_stack((rankdata_average(x), rankdata_average(y)))
    return float(np.corrcoef(ranks, rowvar=False)[1, 0])


def correlation_metrics(predicted: npt.ArrayLike, gold: npt.ArrayLike) -> dict[str, float]:
    """The metrics of ``CrossEncoderCorrelationEvaluator``: ``{"pearson": ..., "spearman": ...}``.

    Args:
        predicted: The model's score per pair.
        gold: The gold score per pair.

    >>> {key: round(value, 4) for key, value in correlation_metrics([0.1, 0.3, 0.2, 0.5], [1, 2, 3, 4]).items()}
    {'pearson': 0.8315, 'spearman': 0.8}
    """
    return {"pearson": pearson(gold, predicted), "spearman": spearman(gold, predicted)}
