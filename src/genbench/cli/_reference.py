"""The CLI reference of the docs (``docs/cli.md``), generated from the click commands so the two cannot drift.

Regenerate with ``python -m genbench.cli._reference docs/cli.md``; a test fails while the document is out of date.
"""

from __future__ import annotations

import inspect

import click

from genbench._core.generated_docs import replace_generated_block
from genbench.cli import cli
from genbench.cli.params import VOCABULARY, SharedOption

BEGIN_MARKER = "<!-- BEGIN GENERATED CLI REFERENCE (python -m genbench.cli._reference docs/cli.md) -->"
END_MARKER = "<!-- END GENERATED CLI REFERENCE -->"
COMMANDS_BEGIN = "<!-- BEGIN GENERATED COMMAND TABLE (python -m genbench.cli._reference docs/cli.md) -->"
COMMANDS_END = "<!-- END GENERATED COMMAND TABLE -->"
VOCABULARY_BEGIN = "<!-- BEGIN GENERATED OPTION VOCABULARY (python -m genbench.cli._reference docs/cli.md) -->"
VOCABULARY_END = "<!-- END GENERATED OPTION VOCABULARY -->"

# The page of the docs that tells more about a command (the command table links it).
DOC_PAGES = {
    "contamination": "contamination.md",
    "create-task": "creating_a_task.md",
    "data": "data.md#working-offline",
    "leaderboard": "leaderboard.md",
    "rerank": "reranking.md",
    "run": "running_models.md",
    "merge-shards": "running_models.md",
    "models": "running_models.md",
    "submit-task": "review.md",
    "test-task": "testing.md",
}

# What each concept of the option vocabulary means, for the docs' table.
CONCEPT_MEANINGS = {
    "task": "the task(s) to work on: `id` or `id:subtask`; where a command takes several, repeat the option or "
    "separate ids with commas, and `all` selects every task",
    "output_dir": "a folder the command writes into (created if missing)",
    "output_file": "the one file the command writes",
    "shots": "the numbers of few-shot examples, `N[,N...]` (`evaluate` and `leaderboard` take one: the setting)",
    "seed": "the random seed (few-shot selection, choice order, resamples); 42 unless given",
    "model": "the model: a spec such as `hf:gpt2` (run), a path or id (rerank, contamination), or a label (evaluate)",
    "json": "print the results as JSON on stdout instead of a table (notes go to stderr)",
    "bootstrap_resamples": "the resamples of a bootstrap (intervals, rank intervals, paired differences); 1000 unless "
    "given",
}


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


def _code_cell(text: str) -> str:
    """``text`` as code in a table cell. A pipe splits the cell even inside backticks (GitHub-flavoured Markdown
    splits the row before it reads code spans), so it is escaped; ``\\|`` shows as ``|`` in the code."""
    escaped = text.replace("|", "\\|")
    return f"`{escaped}`"


def _options_table(command: click.Command, ctx: click.Context) -> list[str]:
    rows = []
    # click caches a command's help option from the first context that asked for it, so it may lack `-h` when a
    # command was invoked on its own before: render it from this context's settings instead.
    help_names = ", ".join(ctx.help_option_names)
    for param in command.get_params(ctx):
        if isinstance(param, click.Option) and param.is_flag and set(param.opts) & {"--help"}:
            if help_names:
                rows.append(f"| {_code_cell(help_names)} | Show this message and exit. |")
            continue
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = record
        rows.append(f"| {_code_cell(names)} | {_cell(help_text)} |")  # choices `[a|b]` are escaped: `[a\\|b]`
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


def _walk(group: click.Group, parent: click.Context) -> list[tuple[str, click.Command]]:
    """``(path, command)`` of every command under ``group``, depth first."""
    found = []
    for name in group.list_commands(parent):
        command = group.get_command(parent, name)
        if command is None:  # pragma: no cover - listed commands exist
            continue
        ctx = click.Context(command, info_name=name, parent=parent)
        path = ctx.command_path.removeprefix("genbench-cli ")
        found.append((path, command))
        if isinstance(command, click.Group):
            found += _walk(command, ctx)
    return found


def command_table_markdown() -> str:
    """The table of commands: name, the first sentence of its help, the page of the docs about it.

    >>> "| `leaderboard` |" in command_table_markdown()
    True
    """
    root = click.Context(cli, info_name="genbench-cli")
    rows = ["| command | what it does |", "|---|---|"]
    for name in cli.list_commands(root):
        command = cli.get_command(root, name)
        if command is None or command.hidden:  # pragma: no cover - listed commands exist
            continue
        summary = command.get_short_help_str(limit=1000)
        if name in DOC_PAGES:
            summary += f" See [{DOC_PAGES[name].split('.')[0].replace('_', ' ')}]({DOC_PAGES[name]})."
        rows.append(f"| {_code_cell(name)} | {_cell(summary)} |")
    return "\n".join(rows) + "\n"


def vocabulary_markdown() -> str:
    """The table of the option vocabulary: each concept's spellings, meaning and the commands that take it.

    >>> "| `-t, --task` |" in vocabulary_markdown()
    True
    """
    root = click.Context(cli, info_name="genbench-cli")
    users: dict[str, list[str]] = {concept: [] for concept in VOCABULARY}
    for path, command in _walk(cli, root):
        for param in command.params:
            if isinstance(param, SharedOption) and param.concept in users and path not in users[param.concept]:
                users[param.concept].append(path)
    rows = ["| option | meaning | commands |", "|---|---|---|"]
    for concept, spellings in VOCABULARY.items():
        commands = ", ".join(f"`{path}`" for path in users[concept])
        rows.append(f"| {_code_cell(', '.join(spellings))} | {CONCEPT_MEANINGS[concept]} | {commands} |")
    return "\n".join(rows) + "\n"


def update_reference_block(text: str) -> str:
    """Replace the generated blocks of a markdown document (command table, option vocabulary, reference).

    Raises:
        ValueError: the document lacks the markers.
    """
    text = replace_generated_block(text, COMMANDS_BEGIN, COMMANDS_END, command_table_markdown())
    text = replace_generated_block(text, VOCABULARY_BEGIN, VOCABULARY_END, vocabulary_markdown())
    return replace_generated_block(text, BEGIN_MARKER, END_MARKER, cli_reference_markdown())


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import sys

    from genbench._core.generated_docs import update_file

    update_file(sys.argv[1:], "docs/cli.md", update_reference_block)
