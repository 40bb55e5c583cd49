"""No dead module-level functions in src/genbench: vulture (the lint extra) finds none that nothing uses.

A function counts as used when genbench's code calls it, names it in a ``"module:attr"`` target (CLI commands,
built-in metrics), registers it with a decorator (a click group's commands), pytest calls it (the review's plug-in
hooks), or the benchmarks use it; the few that only
documents and tests use are listed below, each with its reason. A function only tests use is dead code.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import vulture

import genbench

SRC = Path(genbench.__file__).resolve().parent
BENCHMARKS = SRC.parents[1] / "benchmarks"
USED_OUTSIDE_THE_CODE = {
    "contamination/_analysis.py:longest_run": "the definition of a match that every backend is tested against",
    "contamination/_analysis.py:best_match": "the definition of a match that every backend is tested against",
    "display/_statistics.py:lengths_in_tokens": "the task viewer notebook's statistics (docs/task_viewer.md)",
    "display/_statistics.py:label_counts": "the task viewer notebook's statistics (docs/task_viewer.md)",
    "display/_statistics.py:ngram_overlap": "the task viewer notebook's statistics (docs/task_viewer.md)",
    "display/_html.py:visible_whitespace": "the task viewer notebook's prompt cells (docs/task_viewer.md)",
}
_TARGET = re.compile(r"^genbench(?:\.\w+)+:(\w+)$")


def _registered() -> set[str]:
    """``module:function`` of the functions that a ``"genbench.module:attr"`` string names (resolved on first use)
    or a decorator registers, and ``:attr`` of every such string's attribute."""
    names = set()
    for module in SRC.rglob("*.py"):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (match := _TARGET.match(node.value)):
                names.add(f":{match[1]}")
        relative = module.relative_to(SRC)
        names.update(f"{relative}:{n.name}" for n in tree.body if isinstance(n, ast.FunctionDef) and n.decorator_list)
    return names


def test_no_dead_module_level_function() -> None:
    scan = vulture.Vulture()
    scan.scavenge([str(SRC), str(BENCHMARKS)], exclude=["*/genbench/tasks/*", "*/templates/*"])
    registered = _registered()
    unused = [item for item in scan.get_unused_code(min_confidence=60) if item.typ == "function"]
    places = [
        f"{Path(i.filename).resolve().relative_to(SRC)}:{i.name}"
        for i in unused
        if Path(i.filename).resolve().is_relative_to(SRC)
    ]
    dead = sorted(
        where
        for where in places
        if where not in registered
        and ":" + where.partition(":")[2] not in registered
        and not where.partition(":")[2].startswith(("pytest_", "test_"))  # genbench.review's pytest plug-in and suite
        and where not in USED_OUTSIDE_THE_CODE
    )
    assert dead == [], "remove these (or, if documents use them, list them with the reason)"
