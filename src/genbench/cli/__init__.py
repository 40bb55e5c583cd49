"""``genbench-cli``: thin click commands over the public API.

Each command lives in ``genbench/cli/_<command>.py``, attached by name in :data:`COMMANDS` (the plugin group
``genbench.cli_commands``) and imported only when it runs; ``--help`` lists genbench's own from :data:`SHORT_HELP`.
Errors print ``Error: ...`` and exit 1 (the traceback only under ``--debug``); usage errors exit 2. See
docs/cli.md#conventions.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Iterable
from typing import Any

import click

from genbench._core.errors import GenBenchError, UnknownPluginError
from genbench._core.plugins import PluginGroup
from genbench._core.progress import progress_bars

COMMANDS: PluginGroup[click.Command] = PluginGroup(
    "genbench.cli_commands",
    "command",
    builtins={
        "changed-tasks": "genbench.cli._changed_tasks:changed_tasks",
        "compare": "genbench.cli._compare:compare",
        "contamination": "genbench.cli._contamination:contamination",
        "create-task": "genbench.cli._create_task:create_task",
        "data": "genbench.cli._data:data",
        "demo": "genbench.cli._demo:demo",
        "eval-card": "genbench.cli._eval_card:eval_card",
        "evaluate": "genbench.cli._evaluate:evaluate",
        "leaderboard": "genbench.cli._leaderboard:leaderboard",
        "list-tasks": "genbench.cli._list_tasks:list_tasks",
        "merge-shards": "genbench.cli._merge_shards:merge_shards",
        "models": "genbench.cli._models:models",
        "rerank": "genbench.cli._rerank:rerank",
        "run": "genbench.cli._run:run",
        "schema": "genbench.cli._schema:schema",
        "shift": "genbench.cli._shift:shift",
        "show-task": "genbench.cli._show_task:show_task",
        "submit-task": "genbench.cli._submit_task:submit_task",
        "test-task": "genbench.cli._test_task:cli_test_task",
    },
)
"""Command name -> its click command: genbench's own, then those of installed plug-ins."""

# The first paragraph of each built-in command's help, so that `genbench-cli --help` lists the commands without
# importing their modules (each imports what its command needs: ~45 ms for all of them). click shortens it as it
# shortens the command's own help; tests/cli/test_cli_help_and_reference.py checks that the two agree.
GLOBAL_FLAGS: tuple[str, ...] = ("--debug", "-q", "--quiet", "--progress", "--no-progress")
"""Options of ``genbench-cli`` itself, accepted before or after the command's name (commands read them with
:func:`genbench.cli.params.global_setting`)."""


def hoist_global_flags(args: list[str]) -> list[str]:
    """``args`` with the global flags that follow the command's name moved before it (up to a ``--``).

    >>> hoist_global_flags(["run", "-t", "x", "--debug", "--", "--quiet"])
    ['--debug', 'run', '-t', 'x', '--', '--quiet']
    """
    command_at = next((i for i, arg in enumerate(args) if not arg.startswith("-")), len(args))
    end = args.index("--") if "--" in args[command_at:] else len(args)
    tail = args[command_at:end]
    hoisted = [arg for arg in tail if arg in GLOBAL_FLAGS]
    kept = [arg for arg in tail if arg not in GLOBAL_FLAGS]
    return [*args[:command_at], *hoisted, *kept, *args[end:]]


SHORT_HELP: dict[str, str] = {
    "changed-tasks": (
        "Print the ids of the tasks changed by the commits of HEAD since it forked from REF, one per line."
    ),
    "compare": "Compare two results files of one task (A - B) on the examples both scored.",
    "contamination": "Check test sets for contamination by training data, and decontaminate training data.",
    "create-task": "Create a new task with the given name, id and optional subtask ids.",
    "data": "Download task data once, and move it to machines without internet.",
    "demo": "Run every task with simple baseline predictors, zero- and few-shot, and record the scores.",
    "eval-card": "Render a task's GenBench evaluation card: the taxonomy's five axes, the task's values marked.",
    "evaluate": "Score a file of predictions against a task's split and print the metrics.",
    "leaderboard": (
        "Build a static leaderboard site from the results files under RESULTS_DIR... (searched recursively)."
    ),
    "list-tasks": "List the tasks of the registry: id, name, type and declared splits.",
    "merge-shards": (
        "Write the results files of a sharded run from its shards' answers, as one process's run writes them."
    ),
    "models": "Make models to try genbench with, without any download.",
    "rerank": "Rerank the test set of a reranking task and print MAP, MRR@k and NDCG@k (Base -> Reranked).",
    "run": "Run a model over tasks: prompts, answers (cached), metrics with 95% bootstrap intervals, results files.",
    "schema": "Print the JSON Schema of a task's config.jsonnet (for editor autocompletion), or of results files.",
    "shift": "Measure how far test sets are from a pretraining corpus (n-gram hits, verbatim spans, cross-entropy).",
    "show-task": (
        "Show a task: its config summary, split sizes and an example prompt (0-shot and k-shot) with its target."
    ),
    "submit-task": "Submit a task for review: open its pull request on the GenBench repository.",
    "test-task": "Check that a task is well-formed, by running genbench's validation suite on it.",
}


_UNBROKEN_HYPHEN = "\u2011"  # a non-breaking hyphen: the textwrap that click wraps help with never splits at it


class _HelpFormatter(click.HelpFormatter):
    """click's help formatter, except that a line never breaks at a hyphen: ``genbench-cli``, ``--index-dir`` and
    ``length-normalised`` stay whole. click's ``wrap_text`` has no switch for it, so hyphens are swapped for
    :data:`_UNBROKEN_HYPHEN` before wrapping and back in the output."""

    def write_text(self, text: str) -> None:
        super().write_text(text.replace("-", _UNBROKEN_HYPHEN))

    def write_dl(self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        super().write_dl([(term, text.replace("-", _UNBROKEN_HYPHEN)) for term, text in rows], col_max, col_spacing)

    def getvalue(self) -> str:
        return super().getvalue().replace(_UNBROKEN_HYPHEN, "-")


class _Context(click.Context):
    formatter_class = _HelpFormatter


def _with_help_formatter(command: click.Command) -> click.Command:
    """``command`` (and a group's subcommands) rendering ``--help`` with :class:`_HelpFormatter`."""
    command.context_class = _Context
    for subcommand in getattr(command, "commands", {}).values():
        _with_help_formatter(subcommand)
    return command


class _PluginCommands(click.Group):
    """A click group whose subcommands are :data:`COMMANDS`, each imported when it is first needed."""

    context_class = _Context

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS.names())

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``: genbench's own commands from :data:`SHORT_HELP`, plug-ins loaded."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in SHORT_HELP:  # genbench's own: builtins cannot be taken over by an entry point
                rows.append((name, click.Command(name, help=SHORT_HELP[name]).get_short_help_str(limit)))
            elif (command := self.get_command(ctx, name)) is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        try:
            command: object = COMMANDS.load(cmd_name)
        except UnknownPluginError as error:  # a plug-in's command that does not import: listed, fails when run
            return _broken_command(cmd_name, error)
        if not isinstance(command, click.Command):
            target = COMMANDS.target(cmd_name)
            return _broken_command(
                cmd_name, UnknownPluginError(f"The command {cmd_name!r} ({target}) is not a click command.")
            )
        return _with_help_formatter(command)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # `genbench-cli run ... --debug`: the global flags are accepted after the command's name too.
        return super().parse_args(ctx, hoist_global_flags(args))

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as error:
            # click's NoSuchCommand (click >= 8.2) suggests the close matches among `self.commands`, which this lazy
            # group leaves empty: raised again with the names of COMMANDS.
            no_such_command: Any = getattr(click.exceptions, "NoSuchCommand", None)
            if no_such_command is None or not isinstance(error, no_such_command) or error.possibilities:
                raise
            raise no_such_command(error.command_name, possibilities=self.list_commands(ctx), ctx=ctx) from None

    def invoke(self, ctx: click.Context) -> Any:
        # Imported here: `genbench-cli --help` imports no module of genbench.cli (see SHORT_HELP).
        from genbench.cli._warnings_output import rendered_config_warnings

        try:
            with rendered_config_warnings():
                return super().invoke(ctx)
        except click.exceptions.NoSuchOption as error:
            raise _without_hidden_spellings(error) from None
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except BrokenPipeError:  # output piped into `head` and closed: not an error of the command
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise click.exceptions.Exit(0) from None
        except Exception as exc:  # noqa: BLE001 - the CLI's one place that turns errors into messages
            if (ctx.obj or {}).get("debug"):
                traceback.print_exc()
            raise click.ClickException(format_error(exc)) from None


def _without_hidden_spellings(error: click.exceptions.NoSuchOption) -> click.exceptions.NoSuchOption:
    """The error with close matches among the command's visible options only (not a deprecated or alias spelling)."""
    command = error.ctx.command if error.ctx is not None else None
    if command is None or not error.possibilities:
        return error
    hidden = {
        spelling
        for param in command.params
        for spelling in (*getattr(param, "aliases", ()), *getattr(param, "deprecated_spellings", ()))
    }
    visible = [name for name in error.possibilities if name not in hidden]
    if visible == error.possibilities:
        return error
    shown = [opt for param in command.params for opt in (*param.opts, *param.secondary_opts) if opt.startswith("--")]
    return click.exceptions.NoSuchOption(error.option_name, possibilities=shown, ctx=error.ctx)


def format_error(exc: BaseException) -> str:
    """The message of an error for the terminal: genbench errors as they are, others with their type."""
    message = str(exc).strip() or type(exc).__name__
    if isinstance(exc, GenBenchError):
        return message
    return f"{type(exc).__name__}: {message} (rerun with --debug for the traceback)"


def _broken_command(name: str, error: UnknownPluginError) -> click.Command:
    """A stand-in for a plug-in's command that cannot be loaded: ``--help`` lists it, running it is the error."""

    def fail() -> None:
        raise error

    settings = {"ignore_unknown_options": True, "allow_extra_args": True}
    return click.Command(name, callback=fail, help=str(error), add_help_option=False, context_settings=settings)


@click.group(cls=_PluginCommands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="genbench")
@click.option("--debug", is_flag=True, help="Show full tracebacks of errors.")
@click.option("-q", "--quiet", is_flag=True, help="Print only results, warnings and errors: no progress or notes.")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bars and spinners anywhere / nowhere (default: where they redraw: a terminal, a notebook).",
)
@click.pass_context
def cli(ctx: click.Context, debug: bool, quiet: bool, progress: bool | None) -> None:
    """GenBench: build, test and run generalisation benchmark tasks.

    --debug, --quiet and --progress/--no-progress (below) are accepted before or after the command's name
    (`genbench-cli run ... --debug`).

    Example: genbench-cli list-tasks
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    ctx.obj["quiet"] = quiet
    setting = False if quiet else progress
    ctx.obj["progress"] = setting is not False
    ctx.with_resource(progress_bars(setting))  # the one switch, libraries' bars included, for this command only
