"""The package's architecture, counted honestly: no import cycle, contracts that hold and fail when broken.

The graph (:func:`import_graph`) counts every import of a genbench module in ``src/genbench`` (task code excluded):
at module level and inside functions alike, the parent packages that an import runs (importing
``genbench.contamination.registry`` runs ``genbench/contamination/__init__.py`` first), and module names written as
strings (``importlib.import_module("genbench.x")``, ``"genbench.x:attr"`` targets). Only imports under
``if TYPE_CHECKING:`` are left out, as they never run. docs/architecture.md draws the layers.
"""

from __future__ import annotations

import ast
import functools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import genbench

PACKAGE_DIR = Path(genbench.__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parents[1]

# The top of src/genbench: the package root and the original framework's own module paths, nothing else.
TOP_LEVEL_MODULES = {"__init__.py", "api.py", "loading.py", "task_config.py", "task_dict.py"}
ORIGINAL_PATHS = {"genbench.api", "genbench.loading", "genbench.task_config", "genbench.task_dict", "genbench.utils"}
# The two imports of genbench.compat from inside genbench, each serving old import paths (see genbench.compat).
COMPAT_IMPORTS = {
    ("genbench", "genbench.compat"),
    ("genbench", "genbench.compat.aliases"),
    ("genbench.task", "genbench.compat"),
    ("genbench.task", "genbench.compat.task_helpers"),
}


def module_names(package_dir: Path) -> dict[str, Path]:
    """Module name -> file, for every module of the package (the task registry's own code left out)."""
    modules = {}
    for path in package_dir.rglob("*.py"):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[1:2] == ["tasks"] and len(parts) > 2 or "templates" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    return skipped


def _function_nodes(tree: ast.AST) -> set[int]:
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update(id(child) for child in ast.walk(node) if child is not node)
    return inside


def _imported(node: ast.AST, module: str, package: str, modules: dict[str, Path]) -> list[str]:
    """The genbench modules an import statement or a module-name string names (before parent packages)."""

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    if isinstance(node, ast.Import):
        return [o for alias in node.names if alias.name.startswith("genbench") and (o := owner(alias.name))]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
        if not base.startswith("genbench"):
            return []
        found = []
        for alias in node.names:
            full = f"{base}.{alias.name}"
            target = full if full in modules else owner(base)
            if target:
                found.append(target)
        return found
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("genbench."):
        name = node.value.partition(":")[0]
        # A string naming one's own package is a resource lookup in an already imported package, not a dependency.
        if name in modules and name not in _ancestors(module):
            return [name]
    return []


@functools.cache
def import_edges(package_dir: Path = PACKAGE_DIR) -> frozenset[tuple[str, str, bool]]:
    """Every ``(importer, imported, inside a function)`` of the package, parent packages of the imported included."""
    modules = module_names(package_dir)
    edges = set()
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        skipped, in_function = _type_checking_nodes(tree), _function_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            for target in _imported(node, module, package, modules):
                # Importing a.b.c runs a/__init__ and a/b/__init__ first, unless they are the importer's own parents.
                for name in [target, *_ancestors(target)]:
                    if name != module and name not in _ancestors(module) and name in modules:
                        edges.add((module, name, id(node) in in_function))
    return frozenset(edges)


def import_graph(package_dir: Path = PACKAGE_DIR) -> dict[str, set[str]]:
    """Module -> the genbench modules it imports (see :func:`import_edges`)."""
    graph: dict[str, set[str]] = {module: set() for module in module_names(package_dir)}
    for importer, imported, _ in import_edges(package_dir):
        graph[importer].add(imported)
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


def _write_package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "genbench"


# -- the graph counts what runs ----------------------------------------------------------------------------------


def test_find_cycle_finds_a_cycle_and_accepts_a_dag() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_counts_parent_packages_function_level_imports_and_module_strings(tmp_path: Path) -> None:
    package = _write_package(
        tmp_path,
        {
            "genbench/__init__.py": "",
            "genbench/low/__init__.py": "from genbench.high import feature\n",
            "genbench/low/leaf.py": "X = 1\n",
            "genbench/high/__init__.py": "from genbench.high.user import f\n\nfeature = 1\n",
            "genbench/high/user.py": "def f():\n    from genbench.low.leaf import X\n    return X\n",
            "genbench/strings.py": "import importlib\nM = importlib.import_module('genbench.low.leaf')\n",
            "genbench/typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import genbench.high\n",
        },
    )
    edges = import_edges(package)
    # The leaf's parent package runs first: a cycle high.user -> low -> high hides behind a function-level import.
    assert ("genbench.high.user", "genbench.low", True) in edges
    assert ("genbench.high.user", "genbench.low.leaf", True) in edges
    assert ("genbench.strings", "genbench.low.leaf", False) in edges
    assert not any(importer == "genbench.typed" for importer, _, _ in edges)
    assert find_cycle(import_graph(package)) is not None


def test_the_graph_sees_the_real_layers() -> None:
    graph = import_graph()
    assert "genbench.registry.directories" in graph["genbench.task.task"]
    assert "genbench.core.plugins" in graph["genbench.task.task"]
    # Parent packages: the CLI's contamination command runs genbench/contamination/__init__.py.
    assert "genbench.contamination" in graph["genbench.cli.contamination"]


# -- the architecture ---------------------------------------------------------------------------------------------


def test_package_import_graph_is_acyclic() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_top_of_the_package_holds_the_root_and_the_original_paths_only() -> None:
    assert {p.name for p in PACKAGE_DIR.glob("*.py")} == TOP_LEVEL_MODULES
    for name in TOP_LEVEL_MODULES - {"__init__.py"}:
        code = [line for line in (PACKAGE_DIR / name).read_text().splitlines() if line and not line.startswith('"""')]
        assert len(code) <= 4, f"{name} re-exports only"


def test_nothing_inside_genbench_imports_compat_or_the_original_paths() -> None:
    compat = {
        (importer, imported)
        for importer, imported, _ in import_edges()
        if imported.startswith("genbench.compat")
        and not importer.startswith("genbench.compat")
        and not any(importer == p or importer.startswith(p + ".") for p in ORIGINAL_PATHS)
    }
    assert compat == COMPAT_IMPORTS
    original = {
        (importer, imported)
        for importer, imported, _ in import_edges()
        if any(imported == p or imported.startswith(p + ".") for p in ORIGINAL_PATHS)
        and not importer.startswith(("genbench.compat", *ORIGINAL_PATHS))
    }
    assert original == set()


def test_the_task_layer_imports_no_feature() -> None:
    features = ("genbench.contamination", "genbench.reranking", "genbench.runs", "genbench.display", "genbench.cli")
    imported = {b for a, b, _ in import_edges() if a == "genbench.task" or a.startswith("genbench.task.")}
    assert not {m for m in imported if m.startswith(features)}


def test_no_module_imports_another_modules_private_names() -> None:
    """The original framework's private names (``genbench.loading._load_task_class``) are compat's to keep."""
    modules = module_names(PACKAGE_DIR)
    private = []
    for module, path in modules.items():
        if module.startswith(("genbench.compat", *ORIGINAL_PATHS)):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("genbench"):
                private += [
                    f"{module}: from {node.module} import {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__") and node.module != module
                ]
    assert private == []


def test_former_module_paths_are_the_new_modules() -> None:
    import genbench.testing.checks  # type: ignore[import-not-found]

    import genbench.review.checks

    assert genbench.testing.checks is genbench.review.checks
    from genbench.errors import GenBenchError  # type: ignore[import-not-found]

    assert GenBenchError.__module__ == "genbench.core.errors"


# -- import-linter ------------------------------------------------------------------------------------------------


def _lint_imports(cwd: Path, package_parent: Path) -> subprocess.CompletedProcess[str]:
    lint = Path(sys.executable).with_name("lint-imports")
    env = {"PYTHONPATH": str(package_parent), "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
    return subprocess.run(
        [str(lint), "--config", str(REPO_ROOT / "pyproject.toml"), "--no-cache"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_import_linter_contracts_hold() -> None:
    result = _lint_imports(REPO_ROOT, REPO_ROOT / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("core/errors.py", "import genbench.cli\n", "Layers import downwards only"),
        ("data/cache.py", "def f():\n    from genbench.task import factory\n", "Layers import downwards only"),
        ("runs/results.py", "from genbench.compat import task_helpers\n", "Nothing inside genbench imports"),
    ],
)
def test_a_broken_contract_fails(tmp_path: Path, module: str, line: str, contract: str) -> None:
    copy = tmp_path / "src" / "genbench"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__", "tasks"))
    (copy / "tasks").mkdir()
    (copy / "tasks" / "__init__.py").write_text("")
    with (copy / module).open("a") as handle:
        handle.write("\n" + line)
    result = _lint_imports(tmp_path, tmp_path / "src")
    assert result.returncode != 0
    assert f"{contract}" in result.stdout and "BROKEN" in result.stdout
