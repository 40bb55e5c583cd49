"""``genbench-cli``: thin click commands over the public API.

Each command lives in its own module and is attached here; modules are imported only when their command
runs, so ``genbench-cli --help`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

# command name -> (module, attribute)
_COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("genbench.cli.demo", "demo"),
    "schema": ("genbench.cli.schema", "schema"),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in _COMMANDS:
            return None
        module, attr = _COMMANDS[cmd_name]
        command: Any = getattr(importlib.import_module(module), attr)
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="genbench")
def cli() -> None:
    """GenBench: build, test and run generalisation benchmark tasks."""
