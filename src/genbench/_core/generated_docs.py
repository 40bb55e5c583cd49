"""Generated blocks in the docs: a marked region of a markdown page rewritten from code, so the two cannot drift.

Used by ``python -m genbench.config._reference docs/config.md`` and ``python -m genbench.cli._reference docs/cli.md``;
a test of each compares the page with a fresh rendering.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from genbench._core.files import write_text_atomic


def replace_generated_block(text: str, begin: str, end: str, body: str) -> str:
    """Replace what stands between the ``begin`` and ``end`` marker lines of ``text`` with ``body``.

    Raises:
        ValueError: the text lacks one of the markers.

    >>> replace_generated_block("a\\n<!-- B -->\\nold\\n<!-- E -->\\nz", "<!-- B -->", "<!-- E -->", "new\\n")
    'a\\n<!-- B -->\\n\\nnew\\n\\n<!-- E -->\\nz'
    """
    head, sep, rest = text.partition(begin)
    _, sep2, tail = rest.partition(end)
    if not sep or not sep2:
        raise ValueError("The document lacks the generated-reference markers.")
    return f"{head}{begin}\n\n{body}\n{end}{tail}"


def update_file(argv: Sequence[str], default: str, update: Callable[[str], str]) -> None:
    """Rewrite the page named in ``argv`` (else ``default``) with ``update``, atomically; the modules' ``__main__``."""
    target = Path(argv[0] if argv else default)
    write_text_atomic(target, update(target.read_text(encoding="utf-8")))
    print(f"Updated {target}", file=sys.stdout)
