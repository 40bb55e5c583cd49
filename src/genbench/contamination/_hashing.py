"""The 64-bit hashing pieces shared by the n-gram table and the one-shot scan (numpy, wrapping arithmetic).

Tokens or windows are folded into one ``uint64`` per item by multiply-and-add with :data:`MULTIPLIER` (the golden
ratio constant) from :data:`SEED`, and :func:`mix` spreads the bits over the high bits (MurmurHash3's finaliser).
No score rests on these hashes: every user compares the hashed items themselves before counting a match.
"""

from __future__ import annotations

import numpy as np

SEED = 0x2545F4914F6CDD1D
MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xFF51AFD7ED558CCD)
MIX2 = np.uint64(0xC4CEB9FE1A85EC53)
SHIFT = np.uint64(33)


def mix(values: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser, in place (returns ``values``)."""
    values ^= values >> SHIFT
    values *= MIX1
    values ^= values >> SHIFT
    values *= MIX2
    values ^= values >> SHIFT
    return values
