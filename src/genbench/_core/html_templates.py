"""Jinja2 templates and static files of a package (``<package>/templates/*.j2``, ``<package>/static/``), for every
layer that writes HTML: autoescaping, so that a value is escaped unless it is :class:`~markupsafe.Markup` already."""

from __future__ import annotations

import functools
import importlib.resources

import jinja2
from markupsafe import Markup


@functools.cache
def package_templates(package: str) -> jinja2.Environment:
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
    """A file of ``package``'s ``static/`` folder (a stylesheet, a script), as markup to inline into a page (a page
    opened from ``file://``, or a notebook's output, can load no stylesheet).

    >>> "gb-card" in static_text("genbench.display", "card.css")
    True
    """
    return Markup(importlib.resources.files(package).joinpath("static").joinpath(name).read_text(encoding="utf-8"))
