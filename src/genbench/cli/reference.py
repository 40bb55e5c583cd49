"""The CLI reference of the docs (``docs/cli.md``), generated from the click commands so the two cannot drift.

Regenerate with ``python -m genbench.cli.reference docs/cli.md``; a test fails while the document is out of date.
"""

from __future__ import annotations

import inspect

import click

from genbench.cli import cli
from genbench.core.generated_docs import replace_generated_block

BEGIN_MARKER = "<!-- BEGIN GENERATED CLI REFERENCE (python -m genbench.cli.reference docs/cli.md) -->"
END_MARKER = "<!-- END GENERATED CLI REFERENCE -->"


def _help_markdown(text: str) -> list[str]:
    """A command's help as markdown: paragraphs joined, ``\\b`` (verbatim) paragraphs as code blocks."""
    lines: list[str] = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        if paragraph.startswith("\b"):
            body = paragraph[1:].strip("\n").splitlines()
            heading = body[0].strip() if body and body[0].strip().endswith(":") else None
            code = body[1:] if heading else body
            if heading:
                lines += [heading, ""]
            lines += ["```console", *inspect.cleandoc("\n".join(code)).splitlines(), "```", ""]
        else:
            lines += [_text(" ".join(line.strip() for line in paragraph.splitlines())), ""]
    return lines


def _text(text: str) -> str:
    """Markdown text that shows as written: ``<task_id>`` would otherwise be taken for an HTML tag."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cell(text: str) -> str:
    return _text(text).replace("|", "\\|").replace("\n", " ")


def _options_table(command: click.Command, ctx: click.Context) -> list[str]:
    rows = []
    # click caches a command's help option from the first context that asked for it, so it may lack `-h` when a
    # command was invoked on its own before: render it from this context's settings instead.
    help_names = ", ".join(ctx.help_option_names)
    for param in command.get_params(ctx):
        if isinstance(param, click.Option) and param.is_flag and set(param.opts) & {"--help"}:
            if help_names:
                rows.append(f"| `{help_names}` | Show this message and exit. |")
            continue
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = record
        rows.append(f"| `{names}` | {_cell(help_text)} |")  # a pipe inside backticks does not split a cell
    if not rows:
        return []
    return ["| option | description |", "|---|---|", *rows, ""]


def _usage(command: click.Command, ctx: click.Context) -> str:
    pieces = command.collect_usage_pieces(ctx)
    return " ".join([ctx.command_path, *pieces])


def _commands_markdown(group: click.Group, parent: click.Context, width: dict[str, int]) -> list[str]:
    """Every command of ``group`` (and, depth first, of its sub-groups) with its help, usage and options."""
    lines: list[str] = []
    for name in group.list_commands(parent):
        command = group.get_command(parent, name)
        if command is None:  # pragma: no cover - listed commands exist
            continue
        ctx = click.Context(command, info_name=name, parent=parent, **{**command.context_settings, **width})
        lines += [
            f"### `{ctx.command_path}`",
            "",
            *_help_markdown(command.help or ""),
            "```text",
            _usage(command, ctx),
            "```",
            "",
            *_options_table(command, ctx),
        ]
        if isinstance(command, click.Group):
            lines += _commands_markdown(command, ctx, width)
    return lines


def cli_reference_markdown() -> str:
    """Markdown reference of ``genbench-cli``: the global options, then every command with its usage and options.

    >>> text = cli_reference_markdown()
    >>> "### `genbench-cli create-task`" in text and "| `-n, --name TEXT` |" in text
    True
    """
    # Wide contexts: help texts stay on one line whatever the terminal; context_settings give `-h, --help`.
    width = {"terminal_width": 1000, "max_content_width": 1000}
    root = click.Context(cli, info_name="genbench-cli", **{**cli.context_settings, **width})
    lines = [
        "### `genbench-cli`",
        "",
        *_help_markdown(cli.help or ""),
        "```text",
        f"{_usage(cli, root)}",
        "```",
        "",
        *_options_table(cli, root),
    ]
    lines += _commands_markdown(cli, root, width)
    return "\n".join(lines).rstrip("\n") + "\n"


def update_reference_block(text: str) -> str:
    """Replace the generated block between the markers of a markdown document with the current reference.

    Raises:
        ValueError: the document lacks the markers.
    """
    return replace_generated_block(text, BEGIN_MARKER, END_MARKER, cli_reference_markdown())


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import sys

    from genbench.core.generated_docs import update_file

    update_file(sys.argv[1:], "docs/cli.md", update_reference_block)
