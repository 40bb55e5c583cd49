"""Classification metrics: twins of the ``evaluate`` metrics ``accuracy``, ``f1``, ``precision``, ``recall`` and
``matthews_correlation``.

Each one calls the scikit-learn function that the ``evaluate`` script calls, with the same arguments and defaults,
and returns the same key. As in ``evaluate``, a score that is one number is a ``float`` and a per-class score
(``average=None``) is the NumPy array scikit-learn returns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from genbench.metrics._builtin._common import check_same_length


def accuracy(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    normalize: bool = True,
    sample_weight: Sequence[float] | None = None,
) -> dict[str, Any]:
    """Fraction (or, with ``normalize=False``, weighted number) of predictions equal to their reference.

    Args:
        predictions: Predicted labels.
        references: Gold labels, one per prediction.
        normalize: Return the fraction of correct predictions; ``False`` returns their (weighted) count.
        sample_weight: One weight per example.

    Returns:
        ``{"accuracy": float}``

    >>> accuracy([0, 1, 1, 2, 1, 0], [0, 1, 2, 0, 1, 2])
    {'accuracy': 0.5}
    >>> accuracy([0, 1, 1, 2, 1, 0], [0, 1, 2, 0, 1, 2], normalize=False)
    {'accuracy': 3.0}
    """
    from sklearn.metrics import accuracy_score

    check_same_length("accuracy", predictions, references)
    score = accuracy_score(references, predictions, normalize=normalize, sample_weight=sample_weight)
    return {"accuracy": float(score)}


def _set_wise_score(
    name: str,
    scorer: Callable[..., Any],
    predictions: Sequence[Any],
    references: Sequence[Any],
    **kwargs: Any,
) -> dict[str, Any]:
    import numpy as np

    check_same_length(name, predictions, references)
    score = np.asarray(scorer(references, predictions, **kwargs))
    # evaluate returns a float for one number and keeps the array for per-class scores (average=None).
    return {name: float(score.item()) if score.size == 1 else score}


def f1(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    labels: Sequence[Any] | None = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Sequence[float] | None = None,
    zero_division: str | float = "warn",
) -> dict[str, Any]:
    """F1 score, the harmonic mean of precision and recall (scikit-learn's ``f1_score``).

    Args:
        predictions: Predicted labels.
        references: Gold labels, one per prediction.
        labels: Labels to include (and their order when ``average`` is None); default: every label seen.
        pos_label: The positive class when ``average="binary"``.
        average: ``"binary"``, ``"micro"``, ``"macro"``, ``"weighted"``, ``"samples"`` or None (one score per
            label, as an array).
        sample_weight: One weight per example.
        zero_division: Value when a score divides by zero: ``"warn"`` (0 with a warning), 0, 1 or NaN.

    Returns:
        ``{"f1": float}``, or ``{"f1": numpy.ndarray}`` when ``average`` is None.

    >>> f1([0, 0, 1, 1, 0], [0, 1, 0, 1, 0])
    {'f1': 0.5}
    >>> f1([0, 2, 1, 0, 0, 1], [0, 1, 2, 0, 1, 2], average=None)["f1"].tolist()
    [0.8, 0.0, 0.0]
    """
    from sklearn.metrics import f1_score

    return _set_wise_score(
        "f1",
        f1_score,
        predictions,
        references,
        labels=labels,
        pos_label=pos_label,
        average=average,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )


def precision(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    labels: Sequence[Any] | None = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Sequence[float] | None = None,
    zero_division: str | float = "warn",
) -> dict[str, Any]:
    """Precision, the fraction of positive predictions that are right (scikit-learn's ``precision_score``).

    Args:
        predictions: Predicted labels.
        references: Gold labels, one per prediction.
        labels: As in :func:`f1`.
        pos_label: As in :func:`f1`.
        average: As in :func:`f1`.
        sample_weight: One weight per example.
        zero_division: As in :func:`f1`.

    Returns:
        ``{"precision": float}``, or ``{"precision": numpy.ndarray}`` when ``average`` is None.

    >>> precision([0, 1, 1, 1], [0, 1, 0, 1])
    {'precision': 0.6666666666666666}
    """
    from sklearn.metrics import precision_score

    return _set_wise_score(
        "precision",
        precision_score,
        predictions,
        references,
        labels=labels,
        pos_label=pos_label,
        average=average,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )


def recall(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    labels: Sequence[Any] | None = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    sample_weight: Sequence[float] | None = None,
    zero_division: str | float = "warn",
) -> dict[str, Any]:
    """Recall, the fraction of gold positives that are predicted (scikit-learn's ``recall_score``).

    Args:
        predictions: Predicted labels.
        references: Gold labels, one per prediction.
        labels: As in :func:`f1`.
        pos_label: As in :func:`f1`.
        average: As in :func:`f1`.
        sample_weight: One weight per example.
        zero_division: As in :func:`f1`.

    Returns:
        ``{"recall": float}``, or ``{"recall": numpy.ndarray}`` when ``average`` is None.

    >>> recall([0, 1, 0, 1], [0, 1, 1, 1])
    {'recall': 0.6666666666666666}
    """
    from sklearn.metrics import recall_score

    return _set_wise_score(
        "recall",
        recall_score,
        predictions,
        references,
        labels=labels,
        pos_label=pos_label,
        average=average,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )


def matthews_correlation(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    sample_weight: Sequence[float] | None = None,
) -> dict[str, Any]:
    """Matthews correlation coefficient, binary or multi-class (scikit-learn's ``matthews_corrcoef``).

    Args:
        predictions: Predicted labels.
        references: Gold labels, one per prediction.
        sample_weight: One weight per example.

    Returns:
        ``{"matthews_correlation": float}`` in [-1, 1].

    >>> matthews_correlation([1, 2, 2, 0, 3, 3], [1, 3, 2, 0, 3, 2])
    {'matthews_correlation': 0.5384615384615384}
    """
    from sklearn.metrics import matthews_corrcoef

    check_same_length("matthews_correlation", predictions, references)
    score = matthews_corrcoef(references, predictions, sample_weight=sample_weight)
    return {"matthews_correlation": float(score)}
