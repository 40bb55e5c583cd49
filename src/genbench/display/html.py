"""HTML shared by the task cards and the leaderboard: the Jinja2 environment of a package's templates (autoescaping),
its static files (CSS, JavaScript), escaping and visible whitespace.

Pages come from templates (``<package>/templates/*.j2``) with autoescaping: every value is escaped unless it is
:class:`~markupsafe.Markup` already (HTML made by another template). Style and script are package files
(``<package>/static/``), inlined into each page because a page opened from ``file://`` (or a notebook output) can load
no stylesheet.
"""

from __future__ import annotations

import functools
import html
import importlib.resources
from collections.abc import Iterable, Sequence
from typing import Any

import jinja2
from markupsafe import Markup


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


@functools.cache
def templates(package: str) -> jinja2.Environment:
    """The Jinja2 environment of ``package``'s ``templates/`` folder: autoescaping, undefined names an error, block
    tags leave no blank lines, ``tojson`` compact (it escapes ``<``, ``>``, ``&`` and ``'``, so JSON stays inert
    inside ``<script>``)."""
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.policies["json.dumps_kwargs"] = {"sort_keys": True, "separators": (",", ":")}
    return environment


@functools.cache
def static_text(package: str, name: str) -> Markup:
    """A file of ``package``'s ``static/`` folder (a stylesheet, a script), as markup to inline into a page.

    >>> "gb-card" in static_text("genbench.display", "card.css")
    True
    """
    return Markup(importlib.resources.files(package).joinpath("static").joinpath(name).read_text(encoding="utf-8"))


def card_css() -> Markup:
    """The task card's style, scoped under ``.gb-card`` so that a notebook's own styles are not touched."""
    return static_text("genbench.display", "card.css")
