"""The leaderboard's Jinja2 templates (``templates/``) with their filters, and its inlined style and script
(``static/site.css``, ``static/site.js``; the task card's style from :mod:`genbench.display`)."""

from __future__ import annotations

import functools
from typing import Any

import jinja2
from markupsafe import Markup

import genbench.display._html as html
from genbench._core.metric_values import finite_number
from genbench._leaderboard.names import axis_label, metric_label, shots_label, taxonomy_value_label


def fixed(value: float, digits: int = 3) -> str:
    """A number with ``digits`` decimals: ``0.5`` -> ``'0.500'``."""
    return f"{value:.{digits}f}"


def sort_key(value: Any) -> str:
    """A cell's ``data-sort``: a number's (or a score's value's) ``repr``, ``""`` for a missing value (sorted last).

    >>> sort_key(0.25), sort_key(None), sort_key(3)
    ('0.25', '', '3')
    """
    value = getattr(value, "value", value)
    return "" if value is None else repr(value)


def metric_value(metric: dict[str, Any] | None) -> float | None:
    """A results file's metric entry -> its value when it is a finite number, else None (shown as a dash)."""
    return finite_number(metric["value"]) if metric else None


@functools.cache
def templates() -> jinja2.Environment:
    """The leaderboard's template environment (autoescaping, see :func:`genbench.display._html.templates`)."""
    environment = html.templates("genbench._leaderboard")
    environment.filters.update(
        fixed=fixed,
        f1=lambda value: f"{value:.1f}",
        sort_key=sort_key,
        metric_value=metric_value,
        metric_label=metric_label,
        shots_label=shots_label,
        axis_label=axis_label,
        taxonomy_label=lambda value, axis: taxonomy_value_label(axis, value),
    )
    environment.globals["plural"] = lambda count: "" if count == 1 else "s"
    return environment


def render_page(template: str, *, root: str, **context: Any) -> str:
    """A complete, self-contained page (style and script inlined); ``root``: the relative path to the site's root
    (``""`` or ``"../"``)."""
    css = Markup(html.static_text("genbench._leaderboard", "site.css") + html.card_css())
    js = html.static_text("genbench._leaderboard", "site.js")
    return templates().get_template(template).render(root=root, css=css, js=js, **context)
