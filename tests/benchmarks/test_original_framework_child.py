"""The child process of benchmarks/prompt_preparation.py runs under the original framework too (its anchor): it may
import only module paths that the original framework has (``make bench`` failed once on ``genbench._core``)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_import_graph import ORIGINAL_PATHS

CHILD = Path(__file__).resolve().parents[2] / "benchmarks" / "_prompt_child.py"
# Also in the original framework (github.com/GenBench/genbench_cbt, src/genbench/): the package and its task module.
ORIGINAL_MODULES = ORIGINAL_PATHS | {"genbench", "genbench.task"}


def genbench_imports(source: str) -> set[str]:
    """Every ``genbench...`` module a Python source imports, at any depth of the code."""
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
    return {name for name in modules if name == "genbench" or name.startswith("genbench.")}


def test_the_prompt_child_imports_only_what_the_original_framework_has() -> None:
    imported = genbench_imports(CHILD.read_text(encoding="utf-8"))
    assert imported, "the child imports genbench"
    assert imported <= ORIGINAL_MODULES, sorted(imported - ORIGINAL_MODULES)


def test_the_check_sees_a_module_the_original_framework_lacks() -> None:
    assert genbench_imports("def f():\n    from genbench._core.vocabulary import X\n") == {"genbench._core.vocabulary"}
