"""Checks shared by the built-in metrics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genbench._core.errors import MetricError


def check_same_length(metric: str, predictions: Sequence[Any], references: Sequence[Any]) -> None:
    """Raise :class:`MetricError` unless there is one reference per prediction.

    ``evaluate`` raises on this too; we say which metric and both lengths.

    >>> check_same_length("accuracy", [1, 0], [1])
    Traceback (most recent call last):
    ...
    genbench._core.errors.MetricError: accuracy: got 2 predictions but 1 references; they must be as many
    """
    if len(predictions) != len(references):
        raise MetricError(
            f"{metric}: got {len(predictions)} predictions but {len(references)} references; they must be as many"
        )
