"""Correlation metrics: twins of the ``evaluate`` metrics ``pearsonr`` and ``spearmanr`` (SciPy underneath)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genbench.metrics._builtin._common import check_same_length


def _as_float32_values(values: Sequence[float]) -> Any:
    """The values as ``evaluate`` hands them to SciPy.

    ``evaluate`` stores ``pearsonr``/``spearmanr`` inputs in an Arrow column of type ``float`` (32 bits) and reads
    them back before computing, so the metric sees every value rounded to float32. Rounding the same way gives the
    same numbers, not numbers that differ in the seventh digit (or, for Spearman, in which values tie).
    """
    import numpy as np

    return np.asarray(values, dtype=np.float32).astype(np.float64)


def pearsonr(
    predictions: Sequence[float],
    references: Sequence[float],
    *,
    return_pvalue: bool = False,
) -> dict[str, Any]:
    """Pearson correlation coefficient between predictions and references.

    Args:
        predictions: Predicted scores.
        references: Gold scores, one per prediction.
        return_pvalue: Also return the two-sided p-value (key ``"p-value"``, as in ``evaluate``).

    Returns:
        ``{"pearsonr": float}``, plus ``"p-value"`` when asked.

    >>> round(pearsonr([10, 9, 2.5, 6, 4], [1, 2, 3, 4, 5])["pearsonr"], 2)
    -0.74
    """
    from scipy.stats import pearsonr as scipy_pearsonr

    check_same_length("pearsonr", predictions, references)
    result = scipy_pearsonr(_as_float32_values(references), _as_float32_values(predictions))
    output = {"pearsonr": float(result[0])}
    if return_pvalue:
        output["p-value"] = float(result[1])
    return output


def spearmanr(
    predictions: Sequence[float],
    references: Sequence[float],
    *,
    return_pvalue: bool = False,
) -> dict[str, Any]:
    """Spearman rank correlation coefficient between predictions and references (ties get their mean rank).

    Args:
        predictions: Predicted scores.
        references: Gold scores, one per prediction.
        return_pvalue: Also return the two-sided p-value (key ``"spearmanr_pvalue"``, as in ``evaluate``).

    Returns:
        ``{"spearmanr": float}``, plus ``"spearmanr_pvalue"`` when asked.

    >>> spearmanr([10, 9, 2.5, 6, 4], [1, 2, 3, 4, 5])
    {'spearmanr': -0.7}
    """
    from scipy.stats import spearmanr as scipy_spearmanr

    check_same_length("spearmanr", predictions, references)
    result = scipy_spearmanr(_as_float32_values(references), _as_float32_values(predictions))
    output = {"spearmanr": float(result[0])}
    if return_pvalue:
        output["spearmanr_pvalue"] = float(result[1])
    return output
