"""Counter-based random numbers: the same values on every machine and every NumPy version.

NumPy's streams may change between versions and couple the examples that share them, so every draw here is a pure
function of a few integers: the splitmix64 finaliser chained over ``(domain, seed, example id, counter, ...)``, in
exact uint64 arithmetic, vectorised. See docs/prompting.md#where-shots-come-from-and-the-guarantees.
"""

from __future__ import annotations

import numpy as np

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
_MASK64 = (1 << 64) - 1

# Domains keep the draws of different purposes independent even for the same seed and example id.
DOMAIN_PERMUTE_CHOICES = 1
DOMAIN_SAMPLE_SHOTS = 2
DOMAIN_ORDER_SHOTS = 3


def _as_uint64(value: int | np.ndarray) -> np.ndarray:
    if isinstance(value, (int, np.integer)):
        return np.asarray(int(value) & _MASK64, dtype=np.uint64)
    array = np.asarray(value)
    if array.dtype == np.uint64:
        return array
    if not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"counter-based hashing needs integers, got dtype {array.dtype}")
    # Two's complement wrap for negative int64 values: deterministic, and the same everywhere.
    return array.astype(np.int64, copy=False).view(np.uint64)


def _mix(x: np.ndarray) -> np.ndarray:
    x = (x ^ (x >> np.uint64(30))) * _MUL1
    x = (x ^ (x >> np.uint64(27))) * _MUL2
    return x ^ (x >> np.uint64(31))


def hash64(*parts: int | np.ndarray) -> np.ndarray:
    """Hash integers (scalars or broadcastable arrays) to uniformly distributed uint64 values.

    Args:
        *parts: Python ints (any sign and size; taken modulo 2**64) or integer arrays, broadcast together.

    Returns:
        A uint64 array of the broadcast shape (0-d for scalars only).

    >>> int(hash64(42, 7)[()]) == int(hash64(42, 7)[()])
    True
    >>> hash64(1, np.arange(3)).shape
    (3,)
    """
    with np.errstate(over="ignore"):
        state = np.asarray(0, dtype=np.uint64)
        for part in parts:
            state = _mix((state ^ _as_uint64(part)) + _GAMMA)
    return state


def uniform_below(hashes: np.ndarray, bound: int | np.ndarray) -> np.ndarray:
    """Map uint64 hashes to integers in ``[0, bound)`` (modulo; the bias is below 2**-40 for bounds under 2**24).

    >>> bool(uniform_below(hash64(3, np.arange(5)), 10).max() < 10)
    True
    """
    return (hashes % _as_uint64(bound)).astype(np.int64)
