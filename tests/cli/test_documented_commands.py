"""Every ``genbench-cli`` command line of docs/, README.md, the task templates and the commands' ``--help`` parses
as written (command resolved, context made, nothing run): no unknown option, no hidden or deprecated spelling, no
deprecation note. And every option the docs name in a code span is one that ``--help`` lists."""

from __future__ import annotations

import re

import click
import pytest

from genbench.cli import COMMANDS, GLOBAL_FLAGS, cli
from tests.cli.documented_commands import (
    REPO_ROOT,
    DocumentedCommand,
    commands_in_help,
    commands_in_text,
    documented_commands,
    problems_of,
    walk_commands,
)

COMMANDS_SHOWN = documented_commands()


def test_the_commands_are_found_where_they_are_written():
    places = {command.where.split(":")[0] for command in COMMANDS_SHOWN}
    for place in ("docs/getting_started.md", "docs/creating_a_task.md", "docs/contamination.md", "README.md"):
        assert place in places
    assert any("templates" in place and place.endswith("config.jsonnet") for place in places)
    assert any(place.startswith("--help of data") for place in places)
    assert len(COMMANDS_SHOWN) > 150


@pytest.mark.parametrize("command", COMMANDS_SHOWN, ids=[f"{c.where} {c.text[:60]}" for c in COMMANDS_SHOWN])
def test_documented_command_parses_without_a_note(command):
    assert problems_of(command) == [], f"{command.where}: {command.text}"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("genbench-cli contamination search --output_dir out", "--output_dir is a hidden spelling"),
        ("genbench-cli schema -o config.schema.json", "Note: -o is deprecated"),
        ("genbench-cli test-task -i my_task", "Note: -i is deprecated"),
        ("genbench-cli rerank -t x --at_k 10", "--at_k is a hidden spelling"),
        ("genbench-cli run -m x -t y --no-such-option", "No such option"),
        ("genbench-cli show-task -t x extra", "unexpected arguments"),
        ("genbench-cli show-tasks -t x", "no command 'show-tasks'"),
        ("genbench-cli eval-card -t x -f pdf", "'pdf' is not one of"),
    ],
)
def test_the_parser_catches_what_it_should(text, problem):
    problems = problems_of(DocumentedCommand("example", text))
    assert any(problem in p for p in problems), problems


def test_placeholders_missing_files_and_left_out_options_are_no_problem():
    for text in (
        "genbench-cli evaluate -t my_task -p predictions.jsonl --results-dir DIR --model NAME [--shots N]",
        "genbench-cli data import no_such_bundle.tar",
        "genbench-cli run --shots 0,5",  # -m and -o left out of a sentence about --shots
        "genbench-cli contamination",
        "genbench-cli --help",
    ):
        assert problems_of(DocumentedCommand("example", text)) == [], text


def test_extraction_of_blocks_spans_continuations_and_templates():
    text = (
        "Run `genbench-cli test-task -t\nmy_task` first.\n\n"
        "```console\n$ genbench-cli run -m hf:gpt2 \\\n    -t all -o results  # a comment\n"
        "$ cd x && genbench-cli list-tasks --json | head\n```\n"
        "// `genbench-cli eval-card -t {{ cookiecutter.task_id }}`\n"
    )
    found = [(c.where, c.text) for c in commands_in_text("f.md", text)]
    assert found == [
        ("f.md:1", "genbench-cli test-task -t my_task"),
        ("f.md:5", "genbench-cli run -m hf:gpt2  -t all -o results  # a comment"),
        ("f.md:7", "genbench-cli list-tasks --json"),
        ("f.md:9", "genbench-cli eval-card -t my_task"),
    ]
    assert [c.text for c in commands_in_help("data", cli.get_command(click.Context(cli), "data"))] == [
        "genbench-cli data fetch my_task",
        "genbench-cli data export my_task --output-file my_task-data.tar",
        "genbench-cli data import my_task-data.tar",
    ]


def _spellings() -> tuple[set[str], set[str]]:
    """The spellings ``--help`` lists (every command's), and the hidden ones (aliases and deprecated)."""
    visible, hidden = set(GLOBAL_FLAGS), set()
    for name in COMMANDS.builtins:
        for _, command in walk_commands(cli.get_command(click.Context(cli), name), name):
            for param in command.params:
                visible |= {*param.opts, *param.secondary_opts}
                hidden |= {*getattr(param, "aliases", ()), *getattr(param, "deprecated_spellings", ())}
    return visible, hidden - visible


def test_options_named_in_the_docs_are_the_listed_spellings():
    visible, hidden = _spellings()
    assert {"--output_dir", "-i", "--at_k", "--subtask_ids"} <= hidden
    files = [*sorted((REPO_ROOT / "docs").rglob("*.md")), REPO_ROOT / "README.md"]
    taught = []
    for file in files:
        for paragraph in re.split(r"\n\s*\n", file.read_text(encoding="utf-8")):
            if "hidden" in paragraph:
                continue  # a paragraph that says which spellings are hidden (docs/cli.md)
            for span in re.findall(r"`([^`]+)`", paragraph):
                for word in re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", span):
                    if word in hidden:
                        taught.append(f"{file.relative_to(REPO_ROOT)}: {word} in `{span}`")
    assert taught == []
