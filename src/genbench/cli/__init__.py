"""``genbench-cli``: thin click commands over the public API.

Each command lives in its own module (``genbench/cli/<command>.py``) and is attached here by name; a module is
imported only when its command runs, so ``genbench-cli --help`` stays fast. Errors: a ``GenBenchError`` (or any
other exception) prints ``Error: ...`` and exits 1, with the traceback only under ``--debug``; usage errors exit 2.
"""

from __future__ import annotations

import importlib
import importlib.util
import traceback
from typing import Any

import click

# command name -> (module, attribute)
COMMANDS: dict[str, tuple[str, str]] = {
    "changed-tasks": ("genbench.cli.changed_tasks", "changed_tasks"),
    "compare": ("genbench.cli.compare", "compare"),
    "contamination": ("genbench.cli.contamination", "contamination"),
    "create-task": ("genbench.cli.create_task", "create_task"),
    "data": ("genbench.cli.data", "data"),
    "demo": ("genbench.cli.demo", "demo"),
    "evaluate": ("genbench.cli.evaluate", "evaluate"),
    "leaderboard": ("genbench.cli.leaderboard", "leaderboard"),
    "list-tasks": ("genbench.cli.list_tasks", "list_tasks"),
    "rerank": ("genbench.cli.rerank", "rerank"),
    "run": ("genbench.cli.run", "run"),
    "schema": ("genbench.cli.schema", "schema"),
    "show-task": ("genbench.cli.show_task", "show_task"),
    "submit-task": ("genbench.cli.submit_task", "submit_task"),
    "test-task": ("genbench.cli.test_task", "test_task"),
}


def _available(name: str) -> bool:
    return importlib.util.find_spec(COMMANDS[name][0]) is not None


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if _available(name))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS or not _available(cmd_name):
            return None
        module, attr = COMMANDS[cmd_name]
        command: Any = getattr(importlib.import_module(module), attr)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except BrokenPipeError:  # output piped into `head` and closed: not an error of the command
            import os
            import sys

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise click.exceptions.Exit(0) from None
        except Exception as exc:  # noqa: BLE001 - the CLI's one place that turns errors into messages
            if (ctx.obj or {}).get("debug"):
                traceback.print_exc()
            raise click.ClickException(format_error(exc)) from None


def format_error(exc: BaseException) -> str:
    """The message of an error for the terminal: genbench errors as they are, others with their type."""
    from genbench.core.errors import GenBenchError

    message = str(exc).strip() or type(exc).__name__
    if isinstance(exc, GenBenchError):
        return message
    return f"{type(exc).__name__}: {message} (rerun with --debug for the traceback)"


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="genbench")
@click.option("--debug", is_flag=True, help="Show full tracebacks of errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """GenBench: build, test and run generalisation benchmark tasks.

    Example: genbench-cli list-tasks
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
