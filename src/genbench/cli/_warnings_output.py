"""Config warnings rendered for people: one line each, grouped per task, on the CLI's stderr console.

While a command runs, :func:`rendered_config_warnings` collects the
:class:`~genbench._core.errors.GenbenchConfigWarning`s of loading tasks (Python's format reads like a traceback) and
prints them at the end, before any error; other warnings keep Python's format. See docs/cli.md#conventions.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from genbench._core.errors import GenbenchConfigWarning
from genbench._registry.roots import task_roots
from genbench.cli._output import console, display_path


def warning_line(warning: GenbenchConfigWarning) -> str:
    """``file:line: field: what is wrong; the fix`` on one line, the file relative to the working directory.

    >>> from genbench._core.errors import ConfigProblem
    >>> problem = ConfigProblem("has_train_set", "expected a boolean; write true", 27)
    >>> warning_line(GenbenchConfigWarning.from_problem("/nowhere/t/config.jsonnet", problem))
    '/nowhere/t/config.jsonnet:27: has_train_set: expected a boolean; write true'
    """
    if warning.problem is not None:
        text = warning.problem.render(display_path(warning.file) if warning.file else None)
    else:
        text = str(warning)
    return " ".join(text.split())


def task_of(file: str | None) -> str:
    """The id of the task (``id`` or ``id:subtask``) whose file ``file`` is, else the file's folder, else ``config``.

    >>> task_of(None)
    'config'
    """
    if not file:
        return "config"
    folder = Path(file).resolve().parent
    for root in task_roots():
        try:
            parts = folder.relative_to(root.resolve()).parts
        except ValueError:
            continue
        if parts:
            return ":".join(parts)
    return display_path(folder)


def print_config_warnings(collected: list[GenbenchConfigWarning]) -> None:
    """Print the warnings on stderr, each once, grouped per task in the order the tasks first warned."""
    if not collected:
        return
    groups: dict[str, list[str]] = {}
    for warning in collected:
        lines = groups.setdefault(task_of(warning.file), [])
        line = warning_line(warning)
        if line not in lines:
            lines.append(line)
    print_warning_groups(groups)


def print_warning_groups(groups: dict[str, list[str]]) -> None:
    """Print ``task -> warning lines`` on stderr: a heading per task, then its warnings one line each."""
    from rich.markup import escape

    err = console(stderr=True)
    for task, lines in groups.items():
        if not lines:
            continue
        err.print(f"[bold yellow]Config warnings of {escape(task)} ({len(lines)}):[/]")
        for line in lines:
            err.print(f"  {escape(' '.join(line.split()))}", soft_wrap=True)


@contextlib.contextmanager
def rendered_config_warnings() -> Iterator[list[GenbenchConfigWarning]]:
    """Collect the config warnings given inside the block and print them at its end (also when it raises)."""
    collected: list[GenbenchConfigWarning] = []
    with warnings.catch_warnings():
        warnings.simplefilter("always", GenbenchConfigWarning)  # each task's own warnings, even from one code line
        original = warnings.showwarning

        def show(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
            if isinstance(message, GenbenchConfigWarning):
                collected.append(message)
            else:
                original(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        try:
            yield collected
        finally:
            print_config_warnings(collected)
