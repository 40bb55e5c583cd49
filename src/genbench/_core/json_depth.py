"""How deeply the arrays and objects of JSON text nest, counted on its bytes before any parser recurses.

Python's ``json`` recurses once per level and pyarrow's JSON reader crashes somewhere past 10,000 levels, and no
library counts the depth first, so it is counted here (:func:`max_depth`) for both guards: the strict reader's
(:mod:`genbench._core.json_files`, 200 levels) and the one in front of pyarrow (:mod:`genbench.data._json_nesting`).
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_NOT_QUOTE_OR_BRACKET = bytes(b for b in range(256) if b not in b'"[]{}')
_BRACES_AS_BRACKETS = bytes.maketrans(b"{}", b"[]")
_PEEL_PASSES = 16
_PEEL_BYTES = 1 << 20
"""Skeletons up to this size are peeled (at most :data:`_PEEL_PASSES` passes, and only while a pass removes at
least an eighth of what is left: deep chains go to numpy at once); larger ones are counted with numpy."""
_CHUNK = 1 << 20
"""Bytes counted per numpy step: small enough to stay in the processor's cache (4x faster than 16 MiB)."""


def bracket_skeleton(data: str | bytes) -> bytes:
    r"""The brackets of ``data`` outside strings, in order, ``{``/``}`` written as ``[``/``]``.

    >>> bracket_skeleton(rb'{"a": [1, "[x]", {"b": "\\"}], "c": "\"[["}')
    b'[[[]]]'
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if b"\\" in raw:
        raw = _ESCAPE.sub(b"", raw)
    kept = raw.translate(None, _NOT_QUOTE_OR_BRACKET)
    if b'"' in kept:
        kept = b"".join(kept.split(b'"')[::2])  # the odd parts lie between a quote and the next: inside strings
    return kept.translate(_BRACES_AS_BRACKETS)


def max_depth(data: str | bytes, *, stop_above: int | None = None) -> int:
    """The deepest nesting of arrays and objects in ``data``, counted without recursion, linear in the text.

    Escapes are removed (so every ``"`` left opens or closes a string), then every byte but quotes and brackets,
    then what lies between a quote and the next (:func:`bracket_skeleton`). A small skeleton is peeled, innermost
    pairs first, until nothing is left: the number of passes is the depth (genbench's own files nest fewer than 10
    levels, and numpy's import costs 0.1 s); any other is counted with numpy (:func:`_running_max`). For valid JSON
    this is the exact depth; for invalid JSON it may differ, but only after the point where a parser stops with an
    error, so a guard in front of the parser is never too lenient.

    Args:
        data: JSON text (one document, or several: their depths are not added).
        stop_above: Stop counting once the depth exceeds this (the value returned is then only known to be larger).

    >>> max_depth(b'{"a": [[1], {"b": "[[[["}]}'), max_depth('[1, "\\\\"]"]'), max_depth(b""), max_depth("[]]]]")
    (3, 1, 0, 1)
    >>> max_depth("[" * 5000 + "]" * 5000)
    5000
    """
    skeleton = bracket_skeleton(data)
    if len(skeleton) <= _PEEL_BYTES:
        rest = skeleton
        for passes in range(_PEEL_PASSES + 1):
            if not rest:
                return passes
            peeled = rest.replace(b"[]", b"")
            if len(peeled) > len(rest) - max(len(rest) // 8, 1):
                break  # unbalanced, or deep chains: counted below
            rest = peeled
    return _running_max(skeleton, stop_above)


def _running_max(skeleton: bytes, stop_above: int | None) -> int:
    """The largest running sum of +1 per ``[`` and -1 per ``]`` (at least 0), a chunk at a time."""
    import numpy as np

    deepest, depth = 0, 0
    for start in range(0, len(skeleton), _CHUNK):
        raw = np.frombuffer(skeleton, dtype=np.int8, count=min(_CHUNK, len(skeleton) - start), offset=start)
        running = np.cumsum(np.int8(ord("\\")) - raw, dtype=np.int32)  # "[" is 0x5B, "\\" 0x5C, "]" 0x5D
        deepest, depth = max(deepest, depth + int(running.max())), depth + int(running[-1])
        if stop_above is not None and deepest > stop_above:
            break
    return deepest


def nests_deeper_than(data: str | bytes, limit: int) -> bool:
    """Whether ``data`` nests deeper than ``limit``; a count of its brackets first (C speed), which is all that
    ordinary text needs.

    >>> nests_deeper_than("[[[]]]", 2), nests_deeper_than('["[[[[[["]', 2)
    (True, False)
    """
    opening = data.count("[") + data.count("{") if isinstance(data, str) else data.count(b"[") + data.count(b"{")
    return opening > limit and max_depth(data, stop_above=limit) > limit
