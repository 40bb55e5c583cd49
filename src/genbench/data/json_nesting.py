"""How deeply the values of JSON text nest, counted on its bytes (before a parser sees them).

pyarrow's JSON reader recurses once per level of nesting and kills the process (segmentation fault, pyarrow 21-26)
somewhere past 10,000 levels; Python's ``json`` raises ``RecursionError`` near its recursion limit. Text nested deeper
than :data:`ARROW_NESTING_LIMIT` is therefore never handed to pyarrow. No parser reports the depth before it
recurses, so this counts it with numpy: brackets outside strings (a quote opens or closes a string unless an odd run
of backslashes precedes it), ``+1`` for ``[``/``{`` and ``-1`` for ``]``/``}``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

ARROW_NESTING_LIMIT = 4096
"""Deepest nesting handed to pyarrow's JSON reader (it crashes past about 10,000 levels)."""

_QUOTE, _BACKSLASH, _NEWLINE = ord('"'), ord("\\"), ord("\n")


@functools.cache
def _steps() -> Any:
    """Depth change of each byte value (numpy is imported on first use: ``genbench.data`` is imported light)."""
    import numpy as np

    steps = np.zeros(256, dtype=np.int8)
    steps[[ord("["), ord("{")]] = 1
    steps[[ord("]"), ord("}")]] = -1
    return steps


def max_nesting(data: bytes) -> int:
    """The deepest nesting of the JSON values in ``data`` (one or more lines; strings' brackets do not count).

    >>> max_nesting(b'{"a": [[1], {"b": "[[[["}]}'), max_nesting(b'{"a": "\\\\"}"}\\n[[[]]]'), max_nesting(b"")
    (3, 3, 0)
    >>> max_nesting(b'{"a": "open}\\n{"b": [[]]}'), max_nesting(b'{}]]]]\\n{"b": [[]]}')  # lines counted alone
    (3, 3)
    """
    import numpy as np

    raw = np.frombuffer(data, dtype=np.uint8)
    if not len(raw):
        return 0
    steps = _steps()[raw]
    if not steps.any():
        return 0
    positions = np.arange(len(raw), dtype=np.int64)
    # Each line is counted on its own (a parser may read the lines of a file in parallel): strings and depth restart.
    line_start = np.maximum.accumulate(np.where(raw == _NEWLINE, positions, -1))
    quotes = np.flatnonzero(raw == _QUOTE)
    if len(quotes):
        # A quote is escaped when the run of backslashes just before it is odd.
        last_other = np.maximum.accumulate(np.where(raw != _BACKSLASH, positions, -1))
        before = quotes - 1
        run = np.where(before >= 0, before - last_other[np.maximum(before, 0)], 0)
        real = quotes[run % 2 == 0]
        # Between an odd-numbered real quote of a line and the next one: inside a string.
        toggles = np.zeros(len(raw), dtype=np.int64)
        toggles[real] = 1
        inside = (_since_line_start(np.cumsum(toggles), line_start) - toggles) % 2 == 1
        inside[real] = True  # the quotes themselves are not brackets either way
        steps = np.where(inside, 0, steps)
    depth = _since_line_start(np.cumsum(steps, dtype=np.int64), line_start)
    return int(depth.max(initial=0))


def _since_line_start(totals: np.ndarray, line_start: np.ndarray) -> np.ndarray:
    """Running ``totals`` restarted after each newline (``line_start``: the last newline at or before each byte)."""
    import numpy as np

    return totals - np.where(line_start >= 0, totals[np.maximum(line_start, 0)], 0)


def nests_deeper_than(data: bytes, limit: int = ARROW_NESTING_LIMIT) -> bool:
    """Whether a line of ``data`` nests its values deeper than ``limit``; cheap on ordinary text.

    Only a line with more than ``limit`` opening brackets can, so only such lines are counted (:func:`max_nesting`).

    >>> nests_deeper_than(b'{"a": 1}\\n' + b'{"b": ' + b"[" * 50 + b"]" * 50 + b"}", 40)
    True
    >>> nests_deeper_than(b'{"a": "' + b"[" * 50 + b'"}', 40)
    False
    """
    if len(data) <= limit:
        return False
    # bytes.split and bytes.count run in C: faster here than finding the long lines with numpy.
    return any(
        len(line) > limit and line.count(b"[") + line.count(b"{") > limit and max_nesting(line) > limit
        for line in data.split(b"\n")
    )
