"""The public surface (docs/api.md, :mod:`genbench._core.public`): the docs' examples and the shipped tasks import
only public modules, and the page's list is generated from the table in code."""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from genbench._core.public import PublicModule, public_modules, update_public_modules_block

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PYTHON_BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
# For code that does not parse (a template with Jinja placeholders, a doctest line continued on the next one).
IMPORT_LINE = re.compile(r"^\s*(?:>>>\s*)?(?:from\s+([\w.]+)\s+import\s+([\w\s,()]+)|import\s+([\w.]+))", re.MULTILINE)


def is_public(module: str) -> bool:
    """Whether ``module`` may be imported by users, plug-ins and tasks (every module outside genbench may)."""
    if module != "genbench" and not module.startswith("genbench."):
        return True
    return any(
        module == entry.name or entry.with_submodules and module.startswith(entry.name + ".")
        for entry in public_modules()
    )


def test_is_public() -> None:
    assert is_public("genbench.runs") and is_public("numpy") and is_public("genbench.tasks.my_task.helpers")
    assert not is_public("genbench.runs._execute") and not is_public("genbench._core.lazy")


def _is_submodule_import(package: str, name: str) -> bool:
    """Whether ``from package import name`` imports genbench's module ``package.name`` (not a name it exports)."""
    path = SRC.joinpath(*package.split("."), name)
    if not package.startswith("genbench") or not (
        path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()
    ):
        return False
    return name not in getattr(importlib.import_module(package), "__all__", ())


def _imported_modules(code: str) -> Iterator[tuple[int, str]]:
    """``(line in code, module)`` of every absolute import in ``code``; ``from pkg import submodule`` gives both."""
    found: list[tuple[int, str, list[str]]] = []
    try:
        tree = ast.parse(code)
    except SyntaxError:
        for match in IMPORT_LINE.finditer(code):
            line = code.count("\n", 0, match.start()) + 1
            names = re.findall(r"\w+", match.group(2) or "")
            found.append((line, match.group(1) or match.group(3), names))
    else:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.extend((node.lineno, alias.name, []) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((node.lineno, node.module, [alias.name for alias in node.names]))
    for line, module, names in found:
        yield line, module
        for name in names:
            if _is_submodule_import(module, name):
                yield line, f"{module}.{name}"


def markdown_imports(text: str) -> Iterator[tuple[int, str]]:
    """``(line, module)`` of the imports in a markdown page's ```python blocks and ``>>>`` lines."""
    for block in PYTHON_BLOCK.finditer(text):
        first = text.count("\n", 0, block.start(1)) + 1
        for offset, module in _imported_modules(block.group(1)):
            yield first + offset - 1, module
    for number, line in enumerate(text.splitlines(), start=1):
        if ">>>" in line:
            for _, module in _imported_modules(line.split(">>>", 1)[1].strip()):
                yield number, module


def example_imports() -> Iterator[tuple[str, str]]:
    """``("file:line", module)`` of every import in the docs, the README, the notebook and the shipped tasks."""
    for page in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        for line, module in markdown_imports(page.read_text(encoding="utf-8")):
            yield f"{page.relative_to(ROOT)}:{line}", module
    notebook = ROOT / "notebooks" / "task_viewer.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            for line, module in _imported_modules("".join(cell["source"])):
                yield f"{notebook.relative_to(ROOT)} cell {index} line {line}", module
    tasks = SRC / "genbench" / "tasks"
    templates = SRC / "genbench" / "authoring" / "templates"
    # The shipped tasks live in the registry's subfolders; its own __init__.py is genbench's code.
    code_files = [path for path in tasks.rglob("*.py") if path.parent != tasks]
    code_files += [path for path in templates.rglob("*") if path.is_file() and ".py" in path.name]
    for path in sorted(code_files):
        for line, module in _imported_modules(path.read_text(encoding="utf-8")):
            yield f"{path.relative_to(ROOT)}:{line}", module


def test_docs_examples_and_shipped_tasks_import_only_public_modules() -> None:
    found = list(example_imports())
    assert any(where.startswith("docs/") for where, _ in found)  # the scan reaches the docs
    assert any(where.startswith("README.md") for where, _ in found) and any("ipynb" in where for where, _ in found)
    assert any(where.startswith("src/genbench/tasks/") for where, _ in found)  # and the shipped tasks
    assert any("templates" in where for where, _ in found)  # and the create-task templates
    internal = [f"{where}: {module}" for where, module in found if not is_public(module)]
    assert not internal, (
        "These examples import internal modules; import from a public module listed in docs/api.md instead "
        "(or add the module to src/genbench/_core/public_modules.json, saying why in docs/api.md):\n"
        + "\n".join(internal)
    )


@pytest.mark.parametrize(
    "page",
    [
        "```python\nfrom genbench.runs._execute import run\n```\n",
        "Text.\n\n```python\nimport genbench._core.lazy\n```\n",
        "```python\nfrom genbench.runs import _execute\n```\n",
        ">>> from genbench.display._html import card_css\n",
        "```python\nfrom genbench._registry.listing import (\n    list_tasks,\n```\n",  # does not parse
    ],
)
def test_an_internal_import_in_a_docs_example_is_caught(page: str) -> None:
    assert [module for _, module in markdown_imports(page) if not is_public(module)]


def test_public_imports_in_a_docs_example_pass() -> None:
    page = "```python\nimport numpy as np\nfrom genbench import Task\nfrom genbench.runs import baselines, run\n```\n"
    assert [module for _, module in markdown_imports(page)] == [
        "numpy",
        "genbench",
        "genbench.runs",
        "genbench.runs.baselines",
    ]
    assert all(is_public(module) for _, module in markdown_imports(page))


def test_the_line_of_an_internal_import_is_reported() -> None:
    page = "# Title\n\n```python\nx = 1\nfrom genbench._core.lazy import lazy_exports\n```\n"
    assert list(markdown_imports(page)) == [(5, "genbench._core.lazy")]


def test_docs_api_page_lists_the_public_modules_from_code() -> None:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert update_public_modules_block(text) == text, "run: python -m genbench._core.public docs/api.md"
    assert "](api.md" in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("entry", public_modules(), ids=lambda entry: entry.name)
def test_every_public_module_and_its_import_line_work(entry: PublicModule) -> None:
    importlib.import_module(entry.name)
    assert (ROOT / "docs" / entry.page).is_file()
    if "..." not in entry.imports:
        exec(entry.imports, {})  # noqa: S102 - the documented import line, from the table in code


def _module_names() -> Iterator[tuple[str, bool]]:
    """Every module of genbench (its tasks aside): its dotted name, and whether it is a package."""
    for path in sorted((SRC / "genbench").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        if parts[:2] == ("genbench", "tasks") or parts[-1] == "__main__":
            continue
        folders = [folder for folder in path.parents if folder.is_relative_to(SRC / "genbench")]
        if not all((folder / "__init__.py").exists() for folder in folders):
            continue  # a script among a package's data files, not an importable module
        package = parts[-1] == "__init__"
        yield ".".join(parts[:-1] if package else parts), package


def test_every_module_not_listed_as_public_says_it_is_internal() -> None:
    # docs/api.md's rule: a module is public when listed; every other one has an underscore in its own name or in
    # a package above it (a package that holds public modules keeps its name)
    public = {entry.name for entry in public_modules()}
    named_public = [
        name
        for name, package in _module_names()
        if not any(part.startswith("_") for part in name.split(".")[1:])
        and name not in public
        and not (package and any(p.startswith(name + ".") for p in public))
    ]
    assert named_public == []


def test_the_rule_catches_an_internal_module_with_a_public_name(tmp_path: Path, monkeypatch) -> None:
    fake = tmp_path / "genbench" / "runs"
    fake.mkdir(parents=True)
    (fake.parent / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "helpers.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    with pytest.raises(AssertionError, match="genbench.runs.helpers"):
        test_every_module_not_listed_as_public_says_it_is_internal()
