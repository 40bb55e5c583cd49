"""Text that came from a task (check messages, the child's output) made inert before it is printed.

:func:`inert` shows terminal control characters as their Python escapes and defuses GitHub Actions workflow commands
(``::`` and ``##[``); :func:`actions_guard` wraps the report in ``::stop-commands::``. See
docs/review.md#what-a-pull-request-can-and-cannot-influence.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

# C0 and C1 controls but newline and tab (so CR, VT, FF, NEL), DEL, and Unicode formatting characters: bidi
# overrides, zero-width ones, the line and paragraph separators (each would start a log line unchecked).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_COMMAND_LINE = re.compile(r"^(\s*)::", re.MULTILINE)
_OLD_COMMAND = "##["


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r":
        return "\\r"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str) -> str:
    """``text`` with control characters shown as escapes and workflow commands broken (``::`` as ``!::``).

    >>> inert("::error title=Review::All checks passed")
    '!::error title=Review::All checks passed'
    >>> inert("fine\\n  ::add-mask::failed\\x1b[2J ##[error]x")
    'fine\\n  !::add-mask::failed\\\\x1b[2J ##![error]x'
    """
    text = _CONTROL.sub(_escape, text)
    return _COMMAND_LINE.sub(r"\1!::", text).replace(_OLD_COMMAND, "##![")


def in_github_actions(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this process runs in a GitHub Actions job (``GITHUB_ACTIONS=true``)."""
    return (os.environ if environ is None else environ).get("GITHUB_ACTIONS") == "true"


@contextmanager
def actions_guard(write: Callable[[str], None], *, enabled: bool) -> Iterator[None]:
    """While the block runs, GitHub Actions executes no workflow command of the log: ``::stop-commands::TOKEN``
    before, ``::TOKEN::`` after, with a fresh random token (nothing is written when not ``enabled``)."""
    if not enabled:
        yield
        return
    token = f"genbench-{secrets.token_hex(16)}"
    write(f"::stop-commands::{token}")
    try:
        yield
    finally:
        write(f"::{token}::")


__all__ = ["actions_guard", "in_github_actions", "inert"]
