"""HTML shared by the task cards and the leaderboard: the Jinja2 environment of a package's templates (autoescaping),
its static files (CSS, JavaScript), escaping and visible whitespace.

Style and script are package files (``<package>/static/``), inlined into each page because a page opened from
``file://`` (or a notebook output) can load no stylesheet. See docs/leaderboard.md#how-the-pages-are-made.
"""

from __future__ import annotations

import html
from typing import Any

import jinja2
from markupsafe import Markup

from genbench._core.html_templates import package_templates, static_text


def escape(value: Any) -> str:
    """HTML-escape any value's ``str`` (quotes included, so it is safe in attributes too).

    >>> escape('<b a="1">')
    '&lt;b a=&quot;1&quot;&gt;'
    """
    return html.escape(str(value), quote=True)


def whitespace_tokens(text: str) -> list[tuple[str, str]]:
    r"""Text cut into ``("text", ...)`` and ``("mark", ...)`` pieces that make its whitespace visible: ``↵`` before
    each newline, ``→`` before a tab, ``·`` for each space at the end of a line or of the text (they matter in
    prompts and are otherwise invisible); templates draw the marks dimmed (``text|whitespace_tokens``).

    >>> whitespace_tokens("Q: 1<2 \nA: ")
    [('text', 'Q: 1<2'), ('mark', '·'), ('mark', '↵'), ('text', '\n'), ('text', 'A:'), ('mark', '·')]
    """
    tokens: list[tuple[str, str]] = []
    for number, line in enumerate(text.split("\n")):
        if number:
            tokens += [("mark", "↵"), ("text", "\n")]
        body = line.rstrip(" ")
        for position, part in enumerate(body.split("\t")):
            if position:
                tokens += [("mark", "→"), ("text", "\t")]
            if part:
                tokens.append(("text", part))
        tokens += [("mark", "·")] * (len(line) - len(body))
    return tokens


def visible_whitespace(text: str) -> Markup:
    r"""Escaped text with its whitespace made visible (:func:`whitespace_tokens`, the marks dimmed), as markup.

    >>> str(visible_whitespace("a<b \n"))
    'a&lt;b<span class="gb-ws">·</span><span class="gb-ws">↵</span>\n'
    """
    macro = templates("genbench.display").get_template("whitespace.html.j2").module.whitespace  # type: ignore[attr-defined]
    return Markup(macro(text))


def templates(package: str) -> jinja2.Environment:
    """The Jinja2 environment of ``package``'s ``templates/`` folder
    (:func:`~genbench._core.html_templates.package_templates`), with the ``whitespace_tokens`` filter."""
    environment = package_templates(package)
    environment.filters["whitespace_tokens"] = whitespace_tokens
    return environment


def card_css() -> Markup:
    """The task card's style, scoped under ``.gb-card`` so that a notebook's own styles are not touched."""
    return static_text("genbench.display", "card.css")
