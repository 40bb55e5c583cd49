"""A hash table from packed ASCII tokens (``uint64`` keys, never 0) to token ids, looked up a whole array at a time.

Open addressing with linear probing, in two numpy arrays: a lookup is a few passes over the keys, however many there
are. Hand-written because neither numpy nor pyarrow keeps a hash table across calls (pyarrow's ``dictionary_encode``
builds one per call, which cost an index build more than this table's lookups and insertions together).
"""

from __future__ import annotations

import numpy as np

_EMPTY = np.uint64(0)
_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits of key * 2**64 / golden ratio
_INITIAL_BITS = 16


class PackedTable:
    """Distinct non-zero ``uint64`` keys and their ``int32`` values, at most half full."""

    def __init__(self) -> None:
        self._bits = _INITIAL_BITS
        self._keys = np.zeros(1 << self._bits, dtype=np.uint64)
        self._values = np.zeros(1 << self._bits, dtype=np.int32)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def _slots(self, keys: np.ndarray) -> np.ndarray:
        return (keys * _MULTIPLIER) >> np.uint64(64 - self._bits)

    def get(self, keys: np.ndarray, missing: int) -> np.ndarray:
        """The value of each key (``uint64``), ``missing`` for keys not in the table.

        >>> table = PackedTable()
        >>> table.insert(np.array([7, 9], dtype=np.uint64), np.array([0, 1]))
        >>> table.get(np.array([9, 8, 7, 9], dtype=np.uint64), -1).tolist()
        [1, -1, 0, 1]
        """
        slots = self._slots(keys)
        found = self._keys[slots]
        hit = found == keys
        # Most keys are found in their first slot: one pass over all of them, then probing for the few others.
        values = np.where(hit, self._values[slots], missing)
        pending = np.flatnonzero(~hit & (found != _EMPTY))  # an empty slot ends a probe: the key is not there
        mask = np.uint64((1 << self._bits) - 1)
        keys, slots = keys[pending], slots[pending]
        while len(pending):
            slots = (slots + np.uint64(1)) & mask
            found = self._keys[slots]
            hit = found == keys
            values[pending[hit]] = self._values[slots[hit]]
            probe_on = ~hit & (found != _EMPTY)
            pending, keys, slots = pending[probe_on], keys[probe_on], slots[probe_on]
        return values

    def insert(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Add distinct keys that are not in the table yet."""
        if (self._count + len(keys)) * 2 > len(self._keys):
            self._grow(self._count + len(keys))
        self._place(keys, np.asarray(values, dtype=np.int32))
        self._count += len(keys)

    def _place(self, keys: np.ndarray, values: np.ndarray) -> None:
        slots = self._slots(keys)
        mask = np.uint64((1 << self._bits) - 1)
        while len(keys):
            free = self._keys[slots] == _EMPTY
            # Keys probing the same free slot: the first takes it, the others probe on.
            _, first = np.unique(slots[free], return_index=True)
            placed = np.flatnonzero(free)[first]
            self._keys[slots[placed]] = keys[placed]
            self._values[slots[placed]] = values[placed]
            left = np.ones(len(keys), dtype=bool)
            left[placed] = False
            keys, values, slots = keys[left], values[left], (slots[left] + np.uint64(1)) & mask
        return

    def _grow(self, count: int) -> None:
        occupied = self._keys != _EMPTY
        keys, values = self._keys[occupied], self._values[occupied]
        while count * 2 > (1 << self._bits):
            self._bits += 1
        self._keys = np.zeros(1 << self._bits, dtype=np.uint64)
        self._values = np.zeros(1 << self._bits, dtype=np.int32)
        self._place(keys, values)
