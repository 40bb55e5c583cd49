"""Every ``genbench-cli`` command line that genbench teaches: in docs/, the README, the task templates and the
commands' own ``--help``; with a parser that checks one without running it (see test_documented_commands.py)."""

from __future__ import annotations

import bisect
import html
import io
import itertools
import re
import shlex
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import click

from genbench.cli import COMMANDS, cli, hoist_global_flags

REPO_ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = REPO_ROOT / "src" / "genbench" / "authoring" / "templates"

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`([^`\n]*genbench-cli[^`\n]*)`")
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")
# Shell separators between commands of one line; a command is the part that starts with genbench-cli.
_SEPARATORS = re.compile(r"&&|\|\||;|\||(?<![>&])&")
# Shell arithmetic (`--shard $((i + 1))/4`) stands for a number.
_ARITHMETIC = re.compile(r"\$\(\([^)]*\)\)")
# A value to fill in: `--shots N`, `--model SPEC`.
_PLACEHOLDER = re.compile(r"[A-Z][A-Z_]*")


@dataclass(frozen=True)
class DocumentedCommand:
    """One command line as written, and where: ``docs/cli.md:12`` or ``--help of run``."""

    where: str
    text: str


def _commands_in_line(where: str, line: str) -> Iterator[DocumentedCommand]:
    line = _ARITHMETIC.sub("1", html.unescape(_JINJA.sub("my_task", line)))
    for segment in _SEPARATORS.split(line):
        segment = segment.strip().removeprefix("$ ").strip()
        found = re.search(r"(?<!\S)genbench-cli(?!\S)", segment)
        if found is not None and "[OPTIONS]" in segment:
            continue  # a usage synopsis (`genbench-cli run [OPTIONS]`), not a command line
        # Only environment variables may come before it (`HF_HUB_OFFLINE=1 genbench-cli ...`).
        if found is not None and all(re.fullmatch(r"\w+=\S*", word) for word in segment[: found.start()].split()):
            yield DocumentedCommand(where, segment[found.start() :].strip())


def _joined_lines(lines: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """Lines with their backslash continuations joined, each with the number of its first line."""
    pending: tuple[int, str] | None = None
    for number, line in lines:
        if pending is not None:
            number, line = pending[0], pending[1] + " " + line.strip()
        if line.rstrip().endswith("\\"):
            pending = (number, line.rstrip()[:-1])
            continue
        pending = None
        yield number, line
    if pending is not None:
        yield pending


def commands_in_text(name: str, text: str) -> Iterator[DocumentedCommand]:
    """The commands of a Markdown (or other text) file: every line of its code blocks, and its code spans (which
    may run over a line break)."""
    in_block = False
    block: list[tuple[int, str]] = []
    prose: list[tuple[int, str]] = []
    for number, line in [*enumerate(text.splitlines(), 1), (0, "")]:
        if not in_block and (not line.strip() or _FENCE.match(line)) and prose:
            joined = " ".join(part.strip() for _, part in prose)
            starts = list(itertools.accumulate(len(part.strip()) + 1 for _, part in prose))
            for span in _CODE_SPAN.finditer(joined):
                first = prose[bisect.bisect_right(starts, span.start())][0]
                yield from _commands_in_line(f"{name}:{first}", span.group(1))
            prose = []
        if _FENCE.match(line):
            if in_block:
                for first, joined in _joined_lines(block):
                    yield from _commands_in_line(f"{name}:{first}", joined)
                block = []
            in_block = not in_block
        elif in_block:
            block.append((number, line))
        elif line.strip():
            prose.append((number, line))


def commands_in_help(path: str, command: click.Command) -> Iterator[DocumentedCommand]:
    """The commands of a command's help: its ``\\b`` example blocks line by line, its prose paragraph by paragraph."""
    texts = [command.help or "", command.epilog or ""]
    texts += [param.help or "" for param in command.params if isinstance(param, click.Option)]
    for text in texts:
        for paragraph in re.split(r"\n\s*\n", text):
            lines = paragraph.strip().splitlines()
            if lines and lines[0].strip() == "\b":
                joined = [line for _, line in _joined_lines(list(enumerate(lines[1:])))]
            else:
                joined = [" ".join(line.strip() for line in lines)]
            for line in joined:
                spans = _CODE_SPAN.findall(line)
                for span in spans or [line[line.find("genbench-cli") :]] if "genbench-cli" in line else []:
                    yield from _commands_in_line(f"--help of {path}", span)


def walk_commands(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
    """``(path, command)`` of a command and of every subcommand of a group, e.g. ``('contamination search', ...)``."""
    yield path, command
    if isinstance(command, click.Group):
        for name in command.list_commands(click.Context(command)):
            sub = command.get_command(click.Context(command), name)
            if sub is not None:
                yield from walk_commands(sub, f"{path} {name}")


def documented_commands() -> list[DocumentedCommand]:
    """Every command line of docs/, README.md, the templates and the built-in commands' help."""
    found: list[DocumentedCommand] = []
    files = sorted((REPO_ROOT / "docs").rglob("*.md")) + [REPO_ROOT / "README.md"]
    files += sorted(p for p in TEMPLATES.rglob("*") if p.is_file() and p.suffix in (".md", ".jsonnet", ".py", ""))
    for file in files:
        found += commands_in_text(str(file.relative_to(REPO_ROOT)), file.read_text(encoding="utf-8"))
    found += commands_in_help("genbench-cli", cli)
    for name in COMMANDS.builtins:
        for path, command in walk_commands(cli.get_command(click.Context(cli), name), name):
            found += commands_in_help(path, command)
    return found


def _arguments(text: str) -> list[str]:
    """The arguments of a documented command line: comments, redirections, ``[ ]`` of optional parts and ``...``
    dropped."""
    words = shlex.split(text, comments=True)[1:]
    arguments: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
            continue
        if re.fullmatch(r"\d?>>?|<", word):
            skip_next = True
            continue
        if re.fullmatch(r"\d?>>?\S+|\d>&\d", word) or word in ("...", "…"):
            continue
        word = word.removeprefix("[").removesuffix("]").removesuffix("...")
        if word:
            arguments.append(word)
    return arguments


def problems_of(command: DocumentedCommand) -> list[str]:
    """What is wrong with a documented command line, parsed as ``genbench-cli`` parses it but not run: an unknown
    command or option, an extra argument, an option's hidden spelling (a snake_case alias or a deprecated one), a
    deprecation note, a value click refuses (other than a file that does not exist here, or a missing option)."""
    arguments = _arguments(command.text)
    problems: list[str] = []
    stderr = io.StringIO()
    with redirect_stderr(stderr), redirect_stdout(io.StringIO()):  # `--help` prints the help
        problems += _parse(arguments, resilient=True)
        if not problems:
            problems += _parse(arguments, resilient=False)
    if "deprecated" in stderr.getvalue():
        problems.append(stderr.getvalue().strip())
    return problems


def _parse(arguments: list[str], *, resilient: bool) -> list[str]:
    """Problems of parsing ``arguments``: the command resolved and its context made, down to the last subcommand."""
    problems: list[str] = []
    command: click.Command = cli
    args = hoist_global_flags(list(arguments))
    parent: click.Context | None = None
    name = "genbench-cli"
    try:
        while True:
            # make_context consumes the list it is given
            ctx = command.make_context(name, list(args), parent=parent, resilient_parsing=resilient)
            hidden = {
                spelling
                for param in command.params
                for spelling in (*getattr(param, "aliases", ()), *getattr(param, "deprecated_spellings", ()))
            }
            for word in args:
                if word.split("=", 1)[0] in hidden:
                    problems.append(f"{name}: {word.split('=', 1)[0]} is a hidden spelling (--help does not list it)")
            if not isinstance(command, click.Group):
                if ctx.args:
                    problems.append(f"{name}: unexpected arguments {ctx.args}")
                return problems
            rest = [*ctx._protected_args, *ctx.args] if hasattr(ctx, "_protected_args") else ctx.args
            if not rest:
                return problems
            name, sub, args = command.resolve_command(ctx, rest)
            if sub is None:
                return [*problems, f"no command {rest[0]!r}"]
            command, parent = sub, ctx
    except click.exceptions.Exit:  # --help, --version
        return problems
    except click.BadParameter as error:
        param_type = getattr(error.param, "type", None)
        if isinstance(param_type, click.Path) or isinstance(error, click.MissingParameter):
            return problems  # a file of the example that does not exist here, or an option the text leaves out
        message = error.format_message()
        if any(f"{word!r}" in message for word in arguments if _PLACEHOLDER.fullmatch(word)):
            return problems  # a placeholder: `--shots N`
        return [*problems, message]
    except click.UsageError as error:
        if type(error).__name__ == "NoArgsIsHelpError":  # `genbench-cli contamination`: prints the group's help
            return problems
        return [*problems, error.format_message()]
