"""Where genbench's own code imports a third-party or standard-library module (for tests of "one library per job")."""

from __future__ import annotations

import ast
from pathlib import Path

import genbench

SRC = Path(genbench.__file__).resolve().parent


def importers(libraries: set[str]) -> list[str]:
    """``path:line`` (relative to src/genbench) of every import of one of ``libraries`` (by top-level name)."""
    found = []
    for module in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            found += [f"{module.relative_to(SRC)}:{node.lineno}" for name in names if name.split(".")[0] in libraries]
    return found
