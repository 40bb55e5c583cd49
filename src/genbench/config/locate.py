"""Finding the line of a dotted config field in jsonnet source, for messages that name ``file:line``."""

from __future__ import annotations

import re


def locate(source: str | None, field: str) -> int | None:
    """Best-effort 1-based line of a dotted field in jsonnet source (each key searched after its parent).

    >>> locate("{\\n  data_source: {\\n    type: 'hf',\\n  },\\n  type: 'x',\\n}", "data_source.type")
    3
    """
    if not source or not field:
        return None
    pos = 0
    line = None
    for part in field.split("."):
        if part.isdigit():
            continue
        match = re.compile(r"""(?:^|[\s{,])['"]?""" + re.escape(part) + r"""['"]?\s*:""").search(source, pos)
        if match is None:
            return line
        pos = match.end()
        line = source.count("\n", 0, match.start() + 1) + 1
    return line
