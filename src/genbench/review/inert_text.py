"""Text that came from a task (check messages, the child's output) made inert before it is printed.

Two readers could take such text for commands:

- **a terminal**, for escape sequences (``ESC[...``: colours, cursor moves, window titles, hyperlinks) and other
  control characters (``\\r`` overwriting a line, backspaces): :func:`inert` shows each one as its Python escape
  (``\\x1b``, ``\\r``), and so the bidirectional-override and invisible formatting characters (``\\u202e``);
- **GitHub Actions**, which reads a log line whose text starts (after spaces) with ``::`` as a workflow command
  (``::error::``, ``::add-mask::``, ``::stop-commands::``), and a line holding ``##[`` anywhere as one in the old
  syntax: :func:`inert` puts a visible ``!`` before such a ``::`` and breaks each ``##[`` as ``##![``.

``genbench-cli test-task`` also wraps its report in ``::stop-commands::<token>`` ... ``::<token>::`` in GitHub
Actions (:func:`actions_guard`), with a token drawn after the task's code has ended, so that nothing of the task can
switch command processing back on.
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
    """``text`` with control characters shown as escapes and workflow commands broken (see the module).

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
