"""Every command's ``--help``, and the CLI reference in docs/cli.md generated from the commands."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from genbench.cli import cli
from genbench.cli._reference import BEGIN_MARKER, END_MARKER, cli_reference_markdown, update_reference_block

REPO_ROOT = Path(__file__).resolve().parents[2]
MY_COMMANDS = ["create-task", "list-tasks", "show-task", "evaluate"]


@pytest.mark.parametrize("command", MY_COMMANDS)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help(runner, command, flag):
    result = runner.invoke(cli, [command, flag])
    assert result.exit_code == 0, result.output
    assert f"{command} [OPTIONS]" in result.stdout
    assert "Examples:" in result.stdout and f"genbench-cli {command}" in result.stdout


def test_group_help_lists_the_commands(runner):
    result = runner.invoke(cli, ["--help"])
    assert result.exit_code == 0
    for command in MY_COMMANDS:
        assert command in result.stdout


def test_help_imports_no_heavy_library():
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from genbench.cli import cli\n"
        f"for command in {MY_COMMANDS!r}:\n"
        "    assert CliRunner().invoke(cli, [command, '--help']).exit_code == 0\n"
        "heavy = ('datasets', 'evaluate', 'torch', 'cookiecutter')\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ""


def test_reference_covers_every_command_and_option():
    text = cli_reference_markdown()
    for command in MY_COMMANDS:
        assert f"### `genbench-cli {command}`" in text
    assert "| `-s, --subtask-ids SUBTASK_ID` |" in text
    assert "| `-p, --predictions FILE` |" in text
    assert "```console\ngenbench-cli create-task --name" in text
    assert "<task_id>" not in text  # escaped for markdown


def test_docs_cli_reference_is_up_to_date():
    doc = REPO_ROOT / "docs" / "cli.md"
    text = doc.read_text(encoding="utf-8")
    assert BEGIN_MARKER in text and END_MARKER in text
    stale = "docs/cli.md is out of date: run python -m genbench.cli._reference docs/cli.md"
    assert update_reference_block(text) == text, stale


def _cells(row: str) -> list[str]:
    """The cells of a Markdown table row as GitHub-flavoured Markdown splits it: at every ``|`` not escaped as ``\\|``,
    inside backticks too (the rule is this short; a Markdown parser would pad or drop cells and hide the defect)."""
    return re.split(r"(?<!\\)\|", row.strip().removeprefix("|").removesuffix("|"))


def test_cells_split_like_github_markdown():
    assert len(_cells("| `--a [x|y]` | help |")) == 3
    assert len(_cells("| `--a [x\\|y]` | help |")) == 2


def test_every_table_row_of_docs_cli_has_as_many_cells_as_its_header():
    # Regression: choice lists such as `[skip|latest|fail]` split their row's cells (a pipe inside backticks splits).
    lines = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8").splitlines()
    header: list[str] | None = None
    in_code = False
    rows = 0
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("|"):
            header = None
            continue
        if header is None:
            header = _cells(line)
            continue
        rows += 1
        assert len(_cells(line)) == len(header), f"docs/cli.md:{number}: {len(_cells(line))} cells, not {len(header)}"
    assert rows > 100  # the generated reference's option tables were read
    assert any(line.startswith("| `--on-stale [skip\\|latest\\|fail]` |") for line in lines)


def test_update_reference_block_needs_the_markers():
    with pytest.raises(ValueError, match="markers"):
        update_reference_block("# no markers here\n")


@pytest.mark.parametrize("limit", [20, 45, 60, 80, 200])
def test_the_short_help_table_agrees_with_every_command(limit):
    """`--help` lists genbench's commands from SHORT_HELP; click must shorten it as it shortens the command's help."""
    import click

    from genbench.cli import COMMANDS, SHORT_HELP

    assert set(SHORT_HELP) == set(COMMANDS.builtins)
    for name in SHORT_HELP:
        command = COMMANDS.load(name)
        listed = click.Command(name, help=SHORT_HELP[name]).get_short_help_str(limit)
        assert listed == command.get_short_help_str(limit), name


def test_group_help_imports_no_command_module():
    code = (
        "import sys\nfrom genbench.cli import cli\ntry:\n    cli(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('genbench.cli.')), file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "list-tasks" in result.stdout
    assert result.stderr.strip() == "[]"


def test_python_dash_m_genbench_cli_is_the_command(tmp_path):
    # For an environment whose scripts folder is not on PATH: `python -m genbench.cli` runs the same group.
    env_path = str(REPO_ROOT / "src")
    result = subprocess.run(
        [sys.executable, "-m", "genbench.cli", "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": env_path},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: genbench-cli [OPTIONS] COMMAND [ARGS]...")
    assert "list-tasks" in result.stdout


def _every_command() -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []

    def walk(group: click.Group, ctx: click.Context) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            found.append((f"{ctx.command_path} {name}", command))
            if isinstance(command, click.Group):
                walk(command, click.Context(command, info_name=name, parent=ctx))

    walk(cli, click.Context(cli, info_name="genbench-cli"))
    return found


def test_examples_of_more_than_a_short_line_are_shown_as_written():
    # click rewraps a paragraph unless a `\b` line opens it: a long example broke inside a word ("genbench-\ncli"),
    # and a `\\b` (a backslash and a b, not click's marker) showed as text with the example's lines run together
    for path, command in _every_command():
        help_text = inspect.cleandoc(command.help or "")
        assert "\\b" not in help_text, f"{path}: a literal \\b in its help (use \\b in a plain docstring)"
        for paragraph in help_text.split("\n\n"):
            if paragraph.startswith("Example") and len(paragraph) > 72:
                pytest.fail(f"{path}: its example is rewrapped by click (open the paragraph with a \\b line)")


def test_help_lines_never_break_at_a_hyphen(runner):
    # click wraps at hyphens: `genbench-\ncli merge-shards`, `--index-\ndir` and `cross-\nencoder:PATH` were printed
    for path, _ in _every_command():
        result = runner.invoke(cli, [*path.split()[1:], "--help"], terminal_width=80)
        assert result.exit_code == 0, result.output
        assert "\u2011" not in result.output
        lines = result.output.splitlines()
        broken = [f"{a.strip()} / {b.strip()}" for a, b in zip(lines, lines[1:], strict=False)
                  if re.search(r"\w-$", a) and re.match(r"\s*[a-z]", b)]  # fmt: skip
        assert broken == [], f"{path}: {broken}"
