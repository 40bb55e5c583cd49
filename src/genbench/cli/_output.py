"""Shared output helpers of the CLI commands: rich consoles, a spinner for long work, notes (left out under
``--quiet``), value and path formatting.

``rich`` is imported inside the functions, so importing a command module stays cheap.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from genbench._core.files import to_jsonable
from genbench.cli.params import global_setting

if TYPE_CHECKING:
    from rich.console import Console

# Width of tables when the output is not a terminal (logs, pipes, CliRunner), so rows are not wrapped at 80.
PLAIN_WIDTH = 160


def console(*, stderr: bool = False) -> Console:
    """A rich console on stdout (or stderr), wide and without colour codes when not writing to a terminal."""
    from rich.console import Console

    # No `file=`: rich then writes to the current sys.stdout/sys.stderr, which click's test runner replaces.
    result = Console(stderr=stderr, highlight=False)
    if not result.is_terminal:
        result = Console(stderr=stderr, highlight=False, width=PLAIN_WIDTH, no_color=True)
    return result


def _may_be_terminal(stream: Any) -> bool:
    """False only where rich's ``Console.is_terminal`` is surely False too, so that rich need not be imported."""
    if os.environ.get("TTY_COMPATIBLE") == "1" or os.environ.get("FORCE_COLOR") is not None:
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


@contextlib.contextmanager
def spinner(message: str) -> Iterator[None]:
    """Show a spinner with ``message`` on stderr while the block runs (nothing when stderr is not a terminal, or
    under ``--no-progress`` / ``--quiet``)."""
    import sys

    if not global_setting("progress") or not _may_be_terminal(
        sys.stderr
    ):  # e.g. piped or captured: skip importing rich (a light command stays light)
        yield
        return
    err = console(stderr=True)
    if not err.is_terminal:
        yield
        return
    with err.status(message):
        yield


def note(message: str, *, err: bool = False) -> None:
    """Print a note: what a command is doing or advises (next steps, where the cache is), not its result, a warning
    or an error. ``--quiet`` leaves notes out."""
    if not global_setting("quiet"):
        click.echo(message, err=err)


def format_value(value: Any) -> str:
    """A metric value for a table: numbers with 4 decimals, anything else as text.

    >>> format_value(0.5), format_value(3), format_value(True), format_value("n/a")
    ('0.5000', '3.0000', 'True', 'n/a')
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        return str(value)
    return f"{float(value):.4f}"


def dumps(value: Any) -> str:
    """Indented strict JSON text of ``value`` (see :func:`to_jsonable`), ending with a newline."""
    return json.dumps(to_jsonable(value), indent=2, ensure_ascii=False) + "\n"


def display_path(path: str | os.PathLike[str]) -> str:
    """``path`` relative to the working directory when it is inside it, else absolute.

    >>> display_path(Path.cwd() / "src" / "x")
    'src/x'
    """
    absolute = Path(path).resolve()
    try:
        return str(absolute.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(absolute)
