"""Every module of src/genbench (tasks/ excluded) has a short docstring: what it is for, and a link to the docs."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "genbench"
MAX_LINES = 7


def _docstring_lines() -> dict[str, int]:
    """Lines of each module's docstring (0 when it has none), by path relative to src/genbench."""
    lines = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("tasks/"):
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        lines[relative] = len(doc.strip().splitlines()) if doc else 0
    return lines


def test_every_module_has_a_docstring() -> None:
    missing = [path for path, count in _docstring_lines().items() if count == 0]
    assert not missing, f"modules without a docstring (say what the module is for): {missing}"


def test_no_module_docstring_grows_over_the_limit() -> None:
    too_long = {path: count for path, count in _docstring_lines().items() if count > MAX_LINES}
    assert not too_long, (
        f"module docstrings over {MAX_LINES} lines: {too_long}; say what the module is for in a few lines and link "
        "the docs page for the rest"
    )
