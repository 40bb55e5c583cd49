"""What counts as a metric value to compute with: a finite real number that is not a boolean.

One definition for everything that merges, resamples, compares or ranks results (``True`` is an ``int`` in Python,
JSON may spell ``NaN``, and an integer of 400 digits has no float; none of them is a score).
"""

from __future__ import annotations

import math
from numbers import Real


def is_finite_number(value: object) -> bool:
    """Whether ``value`` is a finite real number and not a boolean (numpy's scalars included).

    >>> is_finite_number(0.5), is_finite_number(True), is_finite_number(float("nan")), is_finite_number("1")
    (True, False, False, False)
    >>> is_finite_number(10**400)
    False
    """
    if not isinstance(value, Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an int (or Fraction) beyond the largest float
        return False


def finite_number(value: object) -> float | None:
    """``value`` as a float when :func:`is_finite_number`, else None.

    >>> finite_number(3), finite_number(None)
    (3.0, None)
    """
    return float(value) if isinstance(value, Real) and is_finite_number(value) else None
