"""The package's architecture, counted honestly: no import cycle, contracts that hold and fail when broken.

The graph (:func:`import_graph`) counts every import of a genbench module in ``src/genbench`` (task code excluded):
at module level and inside functions alike, the parent packages that an import runs (importing
``genbench.contamination._backend_registry`` runs ``genbench/contamination/__init__.py`` first), and module names
written as strings (``importlib.import_module("genbench.x")``, ``"genbench.x:attr"`` targets). Only imports under
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
# The one import of genbench._compat from inside genbench, serving the original framework's path
# (see genbench._compat).
COMPAT_IMPORTS = {
    ("genbench.task", "genbench._compat"),
    ("genbench.task", "genbench._compat.task_helpers"),
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
    assert "genbench._registry.directories" in graph["genbench.task._task"]
    assert "genbench._core.features" in graph["genbench.task._task"]
    # Parent packages: the CLI's contamination command runs genbench/contamination/__init__.py.
    assert "genbench.contamination" in graph["genbench.cli._contamination"]


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
        if imported.startswith("genbench._compat")
        and not importer.startswith("genbench._compat")
        and not any(importer == p or importer.startswith(p + ".") for p in ORIGINAL_PATHS)
    }
    assert compat == COMPAT_IMPORTS
    original = {
        (importer, imported)
        for importer, imported, _ in import_edges()
        if any(imported == p or imported.startswith(p + ".") for p in ORIGINAL_PATHS)
        and not importer.startswith(("genbench._compat", *ORIGINAL_PATHS))
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
        if module.startswith(("genbench._compat", *ORIGINAL_PATHS)):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("genbench"):
                private += [
                    f"{module}: from {node.module} import {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__") and node.module != module
                ]
    assert private == []


@pytest.mark.parametrize("former", ["genbench.testing", "genbench.errors", "genbench.reranking.tasks"])
def test_genbenchs_own_former_paths_are_gone(former: str) -> None:
    """genbench 0.1.0 was never released: its own earlier module paths need no aliases (the original framework's
    paths, ``genbench.api``, ``genbench.utils.file``, ..., stay)."""
    code = "import importlib, sys\ntry:\n    importlib.import_module(sys.argv[1])\n"
    code += "except ModuleNotFoundError:\n    print('gone')"
    assert _run(code, former).strip() == "gone"
    assert not [finder for finder in sys.meta_path if type(finder).__module__.startswith("genbench")]


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
        ("_core/errors.py", "import genbench.cli\n", "Layers import downwards only"),
        ("data/_cache.py", "def f():\n    from genbench.task import _factory\n", "Layers import downwards only"),
        ("runs/_results.py", "from genbench._compat import task_helpers\n", "Nothing inside genbench imports"),
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


# -- lazy imports -------------------------------------------------------------------------------------------------

# Third-party libraries that are heavy to import: more than ~20 ms in a fresh process (`python -c "import X"`, the
# import timed alone, min of 5, 2 shared cores, other jobs running): numpy 65-115 ms, pydantic 35-45, pytest
# 115-170, pyarrow 90-140, pandas 290-340, scipy 75-190, sklearn 0.9-1.1 s, datasets 0.6-0.8 s, evaluate 4.2-4.5 s,
# torch 1.0-1.4 s, transformers 0.6-1.0 s, sentence_transformers 5.2-6.9 s, elasticsearch 0.35-0.53 s
# (elastic_transport 0.43 s), openai 1.4 s, sacrebleu 0.26 s, seqeval 2.7 s, cookiecutter.main 140-200 ms,
# rich.console 35 ms, jsonschema 65-110 ms, regex 39 ms, tqdm.auto 45-170 ms, filelock 40-85 ms, platformdirs 32 ms.
# Not heavy: jsonnet (_gojsonnet 3-5 ms), yaml (18 ms), and click (25 ms): every `genbench-cli`
# process loads click before it runs a command, and only genbench.cli imports it.
#
# Of these, genbench imports three at module level, so they decide which genbench modules are heavy: numpy (the
# numeric cores: prompting, metrics' and reranking's kernels, contamination, runs' scoring), pydantic (the config
# package: pydantic itself plus building its ~240 model classes, `import genbench.config` 140-160 ms against ~20 ms for
# genbench._core) and pytest (genbench.review._plugin, genbench.review._task_suite). The others are imported inside
# functions only. What must stay free of them: `import genbench` (tests/registry/test_loading.py), `genbench-cli
# --help` (below), and the registry's listing as far as it goes (benchmarks/registry.py: list-tasks warm < 0.2 s).
HEAVY_LIBRARIES = frozenset(
    {
        "cookiecutter",
        "datasets",
        "elastic_transport",
        "elasticsearch",
        "evaluate",
        "filelock",
        "jsonschema",
        "numpy",
        "openai",
        "pandas",
        "pyarrow",
        "pydantic",
        "pytest",
        "regex",
        "rich",
        "sacrebleu",
        "scipy",
        "sentence_transformers",
        "seqeval",
        "sklearn",
        "torch",
        "tqdm",
        "transformers",
    }
)

# Every function-level import of a genbench module (import statements and module-name strings, see
# :func:`function_level_imports`), each allowed by name:
#
# - a genbench module -> the heavy library (above) that importing it loads; a function may import the module lazily
#   when its own module does not load that library at module level (so the lazy import defers it);
# - an ``(importer, imported)`` pair -> why that one import stays in a function although nothing heavy is deferred.
#
# Any other function-level import belongs at the top of its module; a cycle or a layer contract in the way is a
# design problem to fix, not a reason to import lazily (the graph above counts function-level imports anyway).
LAZY_IMPORTS: dict[str | tuple[str, str], str] = {
    "genbench.config._documents": "pydantic",
    "genbench.config._json_schema": "pydantic",
    "genbench.config._jsonnet": "pydantic",
    "genbench.config._locate": "pydantic",
    "genbench.config._regex_guard": "pydantic",
    "genbench.config._schema": "pydantic",
    "genbench.contamination": "numpy",
    "genbench.contamination._index_backend": "numpy",
    "genbench.contamination._oneshot": "numpy",
    "genbench.contamination.shift._report": "numpy",
    "genbench.contamination._es": "numpy",
    "genbench.contamination.shift": "numpy",
    "genbench.contamination.shift._elasticsearch": "numpy",
    "genbench.contamination.shift._infinigram": "numpy",
    "genbench.contamination._backend_registry": "numpy",
    "genbench.contamination._task_checks": "numpy",
    "genbench.contamination._workflow": "numpy",
    "genbench.data._arrow_values": "numpy",
    "genbench.metrics._classification_metrics": "numpy",
    "genbench.metrics._correlation_metrics": "numpy",
    "genbench.metrics._reranking_samples": "numpy",
    "genbench.prompting": "numpy",
    "genbench.prompting._builder": "numpy",
    "genbench.prompting._prompt_lint": "numpy",
    "genbench._registry.task_configs": "pydantic",
    "genbench._registry.task_taxonomy": "pydantic",
    "genbench.reranking._evaluation.evaluator_base": "numpy",
    "genbench.reranking._task_evaluation": "numpy",
    "genbench.runs._compare": "numpy",
    "genbench.runs._chat": "numpy",
    "genbench.runs._evaluation": "numpy",
    "genbench.runs._execute": "numpy",
    "genbench.runs._offline": "numpy",
    "genbench.runs._results_model": "pydantic",
    "genbench.runs._shard_merge": "numpy",
    "genbench.task": "pydantic",
    "genbench.task._factory": "pydantic",
    "genbench.task._task": "pydantic",
    "genbench.task._task_dict": "pydantic",
    # `genbench-cli --help` imports no module of genbench.cli; a running command renders config warnings with it.
    ("genbench.cli", "genbench.cli._warnings_output"): "genbench-cli --help imports no genbench.cli module",
    # The package root fills genbench._core.features' slots on first use (the others defer numpy, listed above).
    ("genbench", "genbench.display._card"): "import genbench imports no feature package; a card's slot is filled once",
}


def _modules_parsed() -> dict[str, tuple[ast.Module, str, set[int], set[int]]]:
    """Module -> (tree, its package, the nodes inside functions, the nodes under ``if TYPE_CHECKING:``)."""
    parsed = {}
    for module, path in module_names(PACKAGE_DIR).items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        parsed[module] = (tree, package, _function_nodes(tree), _type_checking_nodes(tree))
    return parsed


@functools.cache
def function_level_imports() -> frozenset[tuple[str, str]]:
    """Every ``(importer, imported)`` that a function imports, as the import names it (parent packages left out).

    Unlike :func:`import_edges`, an import of the importer's own package counts: it may still be running.
    """
    modules = module_names(PACKAGE_DIR)
    found = set()
    for module, (tree, package, inside, skipped) in _modules_parsed().items():
        for node in ast.walk(tree):
            if id(node) in inside and id(node) not in skipped:
                found.update((module, t) for t in _imported(node, module, package, modules) if t != module)
    return frozenset(found)


@functools.cache
def _module_level() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Module -> (the genbench modules, the top-level third-party modules) that it imports when it is imported.

    Import statements only: a module-name string at module level (``genbench._EXPORTS``) imports nothing yet.
    """
    modules = module_names(PACKAGE_DIR)
    result = {}
    for module, (tree, package, inside, skipped) in _modules_parsed().items():
        own, third_party = set(), set()
        for node in ast.walk(tree):
            if id(node) in inside or id(node) in skipped or not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _imported(node, module, package, modules):
                own.update(name for name in [target, *_ancestors(target)] if name != module and name in modules)
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.Import) or not node.level:
                third_party.update(n.split(".")[0] for n in names if n and not n.startswith("genbench"))
        result[module] = (frozenset(own), frozenset(third_party))
    return result


@functools.cache
def heavy_libraries_loaded(module: str) -> frozenset[str]:
    """The heavy libraries that importing ``module`` loads: its parent packages' and its module-level imports'."""
    level = _module_level()
    seen = {module, *(a for a in _ancestors(module) if a in level)}
    stack = list(seen)
    while stack:
        for imported in level[stack.pop()][0] - seen:
            seen.add(imported)
            stack.append(imported)
    return frozenset(lib for name in seen for lib in level[name][1] if lib in HEAVY_LIBRARIES)


def _run(code: str, *args: str) -> str:
    env = {"PYTHONPATH": str(PACKAGE_DIR.parent), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return result.stdout


@functools.cache
def help_modules() -> frozenset[str]:
    """Every module that ``genbench-cli --help`` imports, genbench's and others (a fresh process)."""
    code = (
        "import contextlib, io, sys\n"
        "from genbench.cli import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    cli.main(['--help'], standalone_mode=False)\n"
        "print('\\n'.join(sys.modules))\n"
    )
    return frozenset(_run(code).split())


def test_every_function_level_import_of_a_genbench_module_is_listed() -> None:
    unlisted = sorted(
        f"{a} -> {b}" for a, b in function_level_imports() if (a, b) not in LAZY_IMPORTS and b not in LAZY_IMPORTS
    )
    assert unlisted == [], "import these at the top of the module (or list them, with the reason)"


def test_a_lazily_imported_module_defers_a_heavy_library_its_importer_does_not_load() -> None:
    for module, library in LAZY_IMPORTS.items():
        if isinstance(module, str):
            assert library in HEAVY_LIBRARIES and library in heavy_libraries_loaded(module), (module, library)
    not_deferred = sorted(
        f"{a} -> {b} ({LAZY_IMPORTS[b]})"
        for a, b in function_level_imports()
        if (a, b) not in LAZY_IMPORTS and LAZY_IMPORTS.get(b) in heavy_libraries_loaded(a)
    )
    assert not_deferred == [], "these importers load the library already: import these at the top"


@pytest.mark.parametrize("module", sorted(m for m in LAZY_IMPORTS if isinstance(m, str)))
def test_a_listed_module_loads_its_heavy_library(module: str) -> None:
    """The static count above, checked by importing the module in a fresh process."""
    code = "import importlib, sys\nimportlib.import_module(sys.argv[1])\nprint('\\n'.join(sys.modules))\n"
    loaded = {name.split(".")[0] for name in _run(code, module).split()}
    assert LAZY_IMPORTS[module] in loaded
    assert loaded & HEAVY_LIBRARIES == heavy_libraries_loaded(module)


def test_a_listed_pair_defers_no_heavy_library() -> None:
    """A pair is the exception for an import that defers nothing heavy; a heavy one is listed by its module."""
    for pair, reason in LAZY_IMPORTS.items():
        if isinstance(pair, tuple):
            importer, imported = pair
            assert imported not in LAZY_IMPORTS, f"{pair}: {imported} is listed as a heavy module already"
            assert not heavy_libraries_loaded(imported) - heavy_libraries_loaded(importer), pair
            assert reason.strip(), pair


def test_help_imports_no_heavy_library() -> None:
    """``genbench-cli --help`` imports no command module (their short help is in ``genbench.cli.SHORT_HELP``), and
    no heavy library."""
    loaded = help_modules()
    assert "genbench.cli" in loaded and not {name for name in loaded if name.startswith("genbench.cli.")}
    assert not {name.split(".")[0] for name in loaded} & HEAVY_LIBRARIES


def test_no_listed_lazy_import_is_stale() -> None:
    imports = function_level_imports()
    used = {b for _, b in imports} | set(imports)
    assert sorted(str(key) for key in LAZY_IMPORTS if key not in used) == []


def architecture_counts(package_dir: Path = PACKAGE_DIR) -> dict[str, int]:
    """The numbers docs/architecture.md and the session notes quote: modules, top-level modules, the largest
    strongly connected component of :func:`import_graph` (1 when there is no cycle) and function-level imports."""
    graph = import_graph(package_dir)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    largest = 0
    for root in sorted(graph):  # Tarjan's algorithm, iterative
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                size = 0
                while True:
                    size += 1
                    if stack.pop() == node:
                        break
                largest = max(largest, size)
    return {
        "modules": len(graph),
        "top_level_modules": len([p for p in package_dir.glob("*.py") if p.name != "__init__.py"]),
        "largest_cycle_component": largest,
        "function_level_edges": len({(a, b) for a, b, inside in import_edges(package_dir) if inside}),
    }


def test_architecture_counts_see_a_cycle(tmp_path: Path) -> None:
    package = _write_package(
        tmp_path,
        {"genbench/__init__.py": "", "genbench/a.py": "import genbench.b\n", "genbench/b.py": "import genbench.a\n"},
    )
    assert architecture_counts(package)["largest_cycle_component"] == 2
    assert architecture_counts()["largest_cycle_component"] == 1


if __name__ == "__main__":  # python -m tests.test_import_graph [path/to/src/genbench]
    print(architecture_counts(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else PACKAGE_DIR))
