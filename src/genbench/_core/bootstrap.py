"""Confidence intervals and paired tests from per-sample scores (NumPy, seeded, vectorised).

Hand-written rather than ``scipy.stats.bootstrap``: the explicit index matrix (:func:`resample_indices`) lets results
files state exactly what was drawn and lets a paired test reuse the same draws for both systems. The methods:
docs/running_models.md, "Confidence intervals" and "Comparing two results".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_PERMUTATIONS = 10_000
CONFIDENCE = 0.95


def resample_indices(n: int, resamples: int, seed: int | np.random.Generator) -> np.ndarray:
    """The ``(resamples, n)`` matrix of indices drawn with replacement (by ``seed``'s generator, or ``seed`` itself).

    Raises:
        MemoryError: the matrix does not fit in memory (the message says how much it needs and what to lower).
    """
    try:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        return rng.integers(0, n, size=(resamples, n))
    except MemoryError as exc:
        needed = resamples * n * 8 / 2**30
        raise MemoryError(
            f"{resamples:,} bootstrap resamples of {n:,} examples need {needed:,.1f} GiB of memory for their indices: "
            "ask for fewer resamples (--bootstrap-resamples)."
        ) from exc


def _quantiles(values: np.ndarray, confidence: float) -> tuple[float, float]:
    low, high = np.quantile(values, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


def bootstrap_mean_interval(
    scores: Sequence[float] | np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 42,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``scores``: the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles (``numpy.quantile``, linear) of the means of :func:`resample_indices`' rows.

    >>> bootstrap_mean_interval([1.0, 1.0, 1.0])
    (1.0, 1.0)
    """
    values = np.asarray(scores, dtype=float)
    if values.size == 0:
        raise ValueError("no scores to bootstrap")
    means = values[resample_indices(values.size, resamples, seed)].mean(axis=1)
    return _quantiles(means, confidence)


@dataclass(frozen=True)
class PairedDifference:
    """``mean(a) - mean(b)`` over paired scores, its bootstrap interval and permutation-test p-value."""

    difference: float
    low: float
    high: float
    p_value: float
    n: int


def paired_difference(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 42,
    confidence: float = CONFIDENCE,
) -> PairedDifference:
    """Compare paired per-sample scores of two systems (same examples, same order).

    The interval is :func:`bootstrap_mean_interval` of ``a - b``; the p-value, of a two-sided paired permutation
    (sign-flip) test, is ``(1 + #{|mean(s * d)| >= |mean(d)|}) / (1 + permutations)``.

    >>> result = paired_difference([1, 1, 1, 0] * 10, [0, 0, 1, 0] * 10)
    >>> round(result.difference, 2), result.p_value < 0.01
    (0.5, True)
    """
    differences = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if differences.size == 0:
        raise ValueError("no paired scores to compare")
    observed = float(differences.mean())
    low, high = bootstrap_mean_interval(differences, resamples=resamples, seed=seed, confidence=confidence)
    signs = np.random.default_rng(seed + 1).choice(np.array([-1.0, 1.0]), size=(permutations, differences.size))
    permuted = np.abs((signs * differences).mean(axis=1))
    # a small tolerance so that ties by floating-point noise count as ties
    extreme = int(np.sum(permuted >= abs(observed) - 1e-12 * max(1.0, abs(observed))))
    p_value = (1 + extreme) / (1 + permutations)
    return PairedDifference(observed, low, high, min(1.0, p_value), int(differences.size))


def is_mean_of(value: float, scores: Sequence[float]) -> bool:
    """Whether a corpus-level value is the mean of the per-sample scores (then its interval is a mean's)."""
    values = np.asarray(scores, dtype=float)
    if values.size == 0 or not np.all(np.isfinite(values)):
        return False
    return math.isclose(float(values.mean()), float(value), rel_tol=1e-9, abs_tol=1e-9)
