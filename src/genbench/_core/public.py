"""genbench's public surface: the modules that users and plug-in authors may import; every other one is internal.

The table ``public_modules.json`` beside this module is the single source of truth (a data file: module names written
as strings in code count as imports, see docs/architecture.md): docs/api.md lists it between markers
(``python -m genbench._core.public docs/api.md`` rewrites the list) and a test checks that the docs' examples and the
shipped tasks import nothing else.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from genbench._core.generated_docs import replace_generated_block, update_file
from genbench._core.json_files import read_json_file


@dataclass(frozen=True)
class PublicModule:
    """One public module: its import line, what it offers, and the docs page that explains it."""

    name: str
    imports: str
    summary: str
    page: str
    with_submodules: bool = False


TABLE = Path(__file__).with_name("public_modules.json")


@functools.cache
def public_modules() -> tuple[PublicModule, ...]:
    """The public modules, in the order docs/api.md lists them (read from :data:`TABLE`)."""
    rows = read_json_file(TABLE, what="table of public modules")
    return tuple(
        PublicModule(row["module"], row["import"], row["summary"], row["page"], row.get("with_submodules", False))
        for row in rows
    )


BEGIN_MARKER = "<!-- BEGIN GENERATED PUBLIC MODULES (python -m genbench._core.public docs/api.md) -->"
END_MARKER = "<!-- END GENERATED PUBLIC MODULES -->"


def public_modules_markdown() -> str:
    """The table of docs/api.md: one row per public module."""
    rows = ["| module | import | what it is | docs |", "|---|---|---|---|"]
    for entry in public_modules():
        title = entry.page.removesuffix(".md").replace("_", " ")
        rows.append(f"| `{entry.name}` | `{entry.imports}` | {entry.summary} | [{title}]({entry.page}) |")
    return "\n".join(rows) + "\n"


def update_public_modules_block(text: str) -> str:
    """``text`` (docs/api.md) with its generated list rewritten from :func:`public_modules`."""
    return replace_generated_block(text, BEGIN_MARKER, END_MARKER, public_modules_markdown())


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import sys

    update_file(sys.argv[1:], "docs/api.md", update_public_modules_block)
