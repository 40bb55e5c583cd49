"""The leaderboard's pages and the task cards come from Jinja2 templates with autoescaping; style and script are
package files."""

from __future__ import annotations

import ast
import importlib.resources
import re
from pathlib import Path

import pytest

import genbench._leaderboard
import genbench.display
from genbench._leaderboard.templating import render_page
from genbench.display._html import card_css, templates

PACKAGES = [Path(genbench._leaderboard.__file__).parent, Path(genbench.display.__file__).parent]
TAG = re.compile(r"</?[a-z][a-z0-9]*[\s>/]")


def html_in_code(package: Path) -> list[str]:
    """``file:line`` of every f-string in ``package``'s modules that writes an HTML tag."""
    found = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr):
                parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
                text = "".join(p for p in parts if isinstance(p, str))
                if TAG.search(text):
                    found.append(f"{path.name}:{node.lineno}")
    return found


@pytest.mark.parametrize("package", PACKAGES, ids=lambda path: path.name)
def test_no_html_is_assembled_in_f_strings(package: Path) -> None:
    """The leaderboard's pages, the task cards and the evaluation cards come from templates (59 and 34 places on
    main built markup in f-strings)."""
    assert html_in_code(package) == []


def test_templates_autoescape_and_refuse_undefined_names() -> None:
    environment = templates("genbench._leaderboard")
    assert environment.from_string("{{ x }}").render(x='<b a="1">') == "&lt;b a=&#34;1&#34;&gt;"
    undefined = environment.from_string("{{ missing }}")
    try:
        undefined.render()
    except Exception as exc:  # jinja2.UndefinedError: a misspelt name fails the build, never renders empty
        assert "missing" in str(exc)
    else:
        raise AssertionError("an undefined name rendered")


def test_style_and_script_are_package_files_inlined_into_every_page() -> None:
    static = importlib.resources.files("genbench._leaderboard") / "static"
    css, js = (static / "site.css").read_text(encoding="utf-8"), (static / "site.js").read_text(encoding="utf-8")
    page = render_page(
        "model.html.j2",
        root="../",
        model=type("M", (), {"label": "m"})(),
        facts=[],
        rows=[],
    )
    assert f"<style>{css}{card_css()}</style>" in page and f"<script>{js}</script>" in page
    assert "<link" not in page and "src=" not in page  # self-contained: nothing loaded beside it
