"""How deeply the values of JSON Lines text nest, line by line, before pyarrow's JSON reader sees them.

pyarrow's JSON reader recurses once per level of nesting and kills the process (segmentation fault, pyarrow 21-26)
somewhere past 10,000 levels. Text nested deeper than :data:`ARROW_NESTING_LIMIT` is therefore never handed to
pyarrow. The depth is counted by :mod:`genbench._core.json_depth` (the strict JSON reader's counter too), on each
line alone: a parser may read the lines of a file in parallel, so strings and depth restart at every line.
"""

from __future__ import annotations

from genbench._core import json_depth

ARROW_NESTING_LIMIT = 4096
"""Deepest nesting handed to pyarrow's JSON reader (it crashes past about 10,000 levels)."""


def max_nesting(data: bytes) -> int:
    """The deepest nesting of the JSON values in ``data`` (one or more lines; strings' brackets do not count).

    >>> max_nesting(b'{"a": [[1], {"b": "[[[["}]}'), max_nesting(b'{"a": "\\\\"}"}\\n[[[]]]'), max_nesting(b"")
    (3, 3, 0)
    >>> max_nesting(b'{"a": "open}\\n{"b": [[]]}'), max_nesting(b'{}]]]]\\n{"b": [[]]}')  # lines counted alone
    (3, 3)
    """
    return max((json_depth.max_depth(line) for line in data.split(b"\n")), default=0)


def a_line_nests_deeper_than(data: bytes, limit: int = ARROW_NESTING_LIMIT) -> bool:
    """Whether a line of ``data`` nests its values deeper than ``limit``; cheap on ordinary text.

    Only a line with more than ``limit`` opening brackets can, so only such lines are counted.

    >>> a_line_nests_deeper_than(b'{"a": 1}\\n' + b'{"b": ' + b"[" * 50 + b"]" * 50 + b"}", 40)
    True
    >>> a_line_nests_deeper_than(b'{"a": "' + b"[" * 50 + b'"}', 40)
    False
    """
    if len(data) <= limit:
        return False
    import numpy as np  # here: the data layer loads no numpy until data is read

    # The long lines found on the bytes with numpy (no Python object per line: several times faster than
    # bytes.split on ordinary text, where no line is that long), then counted one by one.
    newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
    starts = np.concatenate([[0], newlines + 1])
    ends = np.concatenate([newlines, [len(data)]])
    long = np.flatnonzero(ends - starts > limit)
    return any(
        json_depth.nests_deeper_than(data[start:end], limit)
        for start, end in zip(starts[long].tolist(), ends[long].tolist(), strict=True)
    )
