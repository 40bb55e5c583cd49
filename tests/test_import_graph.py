"""The package's import graph has no cycle, and the task feature seam resolves every feature.

The graph counts every ``import`` of a ``genbench`` module in ``src/genbench`` (tasks excluded), at module level
and inside functions alike (a function-level import is a dependency too); only imports under ``if TYPE_CHECKING:``
are left out, as they never run.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from genbench.task.feature_seam import FEATURES, feature

import genbench

PACKAGE_DIR = Path(genbench.__file__).resolve().parent


def _module_names() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        if parts[1:2] == ["tasks"] and len(parts) > 2:  # the task registry's own code is not the framework's
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    return skipped


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Module -> the genbench modules it imports (``from pkg import name`` counts the submodule when it is one)."""
    modules = _module_names()

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        skipped = _type_checking_nodes(tree)
        targets: set[str | None] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                targets.update(owner(alias.name) for alias in node.names if alias.name.startswith("genbench"))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                if base.startswith("genbench"):
                    for alias in node.names:
                        full = f"{base}.{alias.name}"
                        targets.add(full if full in modules else owner(base))
        graph[module] = {target for target in targets if target is not None and target != module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path ``[a, b, ..., a]``, or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph.get(nxt, ()))))
    return None


def test_find_cycle_finds_a_cycle_and_accepts_a_dag() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_import_graph_sees_function_level_imports() -> None:
    graph = import_graph()
    # task.py imports the seam inside its methods; the registry's task builder imports task.py inside a function.
    assert "genbench.task.feature_seam" in graph["genbench.task"]
    assert "genbench.task" in graph["genbench.task.classes"]
    assert {"genbench.task.classes", "genbench.registry.directories"} <= graph["genbench.task.factory"]


def test_package_import_graph_is_acyclic() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_task_imports_no_feature_module() -> None:
    graph = import_graph()
    features = {"genbench.contamination", "genbench.reranking", "genbench.runs", "genbench.task.factory"}
    assert not {m for m in graph["genbench.task"] if m.split(".")[0:2] and ".".join(m.split(".")[:2]) in features}


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_every_feature_resolves_to_a_function(name: str) -> None:
    assert callable(feature(name))


def test_unknown_feature_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="check_contamination"):
        feature("no_such_feature")
