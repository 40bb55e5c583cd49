"""Small HTML helpers shared by the task cards and the leaderboard: escaping, visible whitespace, tables.

Hand-written because the pages are tiny and must stay dependency-free (no template engine to install for a notebook
card); everything user-controlled goes through :func:`escape`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any


def escape(value: Any) -> str:
    """HTML-escape any value's ``str`` (quotes included, so it is safe in attributes too).

    >>> escape('<b a="1">')
    '&lt;b a=&quot;1&quot;&gt;'
    """
    return html.escape(str(value), quote=True)


def visible_whitespace(text: str) -> str:
    """Escaped text with its whitespace made visible: ``↵`` before each newline, ``→`` for tabs, ``·`` for spaces at
    the end of a line or of the text (they matter in prompts and are otherwise invisible).

    >>> visible_whitespace("Q: 1<2 \\nA: ")
    'Q: 1&lt;2<span class="gb-ws">·</span><span class="gb-ws">↵</span>\\nA:<span class="gb-ws">·</span>'
    """
    marked_lines = []
    for line in text.split("\n"):
        body = line.rstrip(" ")
        trailing = len(line) - len(body)
        marked = escape(body).replace("\t", '<span class="gb-ws">→</span>\t')
        marked_lines.append(marked + '<span class="gb-ws">·</span>' * trailing)
    return '<span class="gb-ws">↵</span>\n'.join(marked_lines)


def table(header: Sequence[str] | None, rows: Iterable[Sequence[str]], *, css_class: str = "gb-table") -> str:
    """A ``<table>`` (no header row when ``header`` is None); header cells are escaped, row cells are HTML already
    (escape them first)."""
    head = (
        ""
        if header is None
        else "<thead><tr>" + "".join(f"<th>{escape(cell)}</th>" for cell in header) + "</tr></thead>"
    )
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<table class="{css_class}">{head}<tbody>{body}</tbody></table>'


# Scoped under .gb-card so that a notebook's own styles are not touched; inlined because a notebook output (and a
# leaderboard page opened from file://) can load no stylesheet.
CARD_CSS = """
.gb-card{font-family:system-ui,sans-serif;font-size:13px;line-height:1.4;border:1px solid #ccd;border-radius:6px;
padding:8px 12px;max-width:60em;background:#fff;color:#222}
.gb-card h3{margin:2px 0 4px 0;font-size:15px}.gb-card h4{margin:8px 0 2px 0;font-size:13px}
.gb-card .gb-id{color:#667;font-family:monospace;font-weight:normal}
.gb-card .gb-kw{display:inline-block;background:#eef;border-radius:3px;padding:0 4px;margin:1px 2px 1px 0}
.gb-card .gb-note{color:#886}
.gb-card .gb-table{border-collapse:collapse;margin:2px 0}
.gb-card .gb-table th,.gb-card .gb-table td{border:1px solid #dde;padding:2px 6px;text-align:left;vertical-align:top}
.gb-card pre{white-space:pre-wrap;background:#f6f6fa;padding:4px 6px;margin:2px 0;max-height:20em;overflow:auto}
.gb-card .gb-ws{color:#bbc}
.gb-card details>summary{cursor:pointer}
"""
