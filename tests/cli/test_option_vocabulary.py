"""One option vocabulary: every command spells task selection, output folder/file, shots, seed and model alike.

The walk goes over every command of the ``genbench.cli_commands`` plugin group (genbench's own and any installed
plug-in's) and every subcommand of a group, so a new command that takes one of these concepts must take it through
``genbench.cli.params``.
"""

from __future__ import annotations

import os

import click
import pytest

import genbench.cli
from genbench._core.plugins import PluginGroup
from genbench.cli import COMMANDS, GLOBAL_FLAGS, cli
from genbench.cli.params import (
    DEPRECATED_SPELLINGS,
    SEED,
    SHOT_LIST,
    VOCABULARY,
    SharedOption,
    TaskIdType,
    global_setting,
)
from tests.cli.documented_commands import walk_commands

# Options that use a spelling of the vocabulary for another concept, with the reason (none at present: create-task's
# id of the new task is --task-id, with -i/--id of the original framework hidden).
OWN_MEANINGS: set[tuple[str, str]] = set()

SPELLINGS = {spelling: concept for concept, spellings in VOCABULARY.items() for spelling in spellings}


def _every_command():
    for name in COMMANDS.names():
        yield from walk_commands(cli.get_command(click.Context(cli), name), name)


ALL_COMMANDS = list(_every_command())


def test_the_walk_sees_every_command_and_subcommand():
    paths = {path for path, _ in ALL_COMMANDS}
    assert {"run", "show-task", "contamination search", "data export", "leaderboard"} <= paths
    assert set(COMMANDS.names()) <= paths


@pytest.mark.parametrize(("path", "command"), ALL_COMMANDS, ids=[path for path, _ in ALL_COMMANDS])
def test_shared_options_have_one_name_and_meaning(path, command):
    for param in command.params:
        if not isinstance(param, click.Option):
            continue
        visible = [*param.opts, *param.secondary_opts]
        concepts = {SPELLINGS[spelling] for spelling in visible if spelling in SPELLINGS}
        own = {spelling for spelling in visible if (path, spelling) in OWN_MEANINGS}
        assert not (set(visible) - own) & DEPRECATED_SPELLINGS, f"{path}: {visible} shows a deprecated spelling"
        assert not set(visible) & {"--debug", "--quiet", "-q"}, f"{path}: {visible} is a global option of genbench-cli"
        if isinstance(param, SharedOption):
            concepts.add(param.concept)
        concepts -= {None}
        if not concepts or set(visible) <= own:
            continue
        assert len(concepts) == 1, f"{path}: {visible} mixes {concepts}"
        concept = concepts.pop()
        assert isinstance(param, SharedOption) and param.concept == concept, (
            f"{path}: {visible} is the vocabulary's {concept!r}: declare it with genbench.cli.params"
        )
        assert tuple(param.opts) == VOCABULARY[concept], f"{path}: {concept} is spelt {param.opts}"
        _check_meaning(path, concept, param)


def _check_meaning(path: str, concept: str, param: click.Option) -> None:
    if concept == "task":
        assert isinstance(param.type, TaskIdType)
        assert param.name == ("task_ids" if param.type.several else "task_id"), path
        assert param.multiple == param.type.several, path
    elif concept == "output_dir":
        assert isinstance(param.type, click.Path) and not param.type.file_okay and param.type.dir_okay, path
    elif concept == "output_file":
        assert isinstance(param.type, click.Path) and param.type.file_okay and not param.type.dir_okay, path
    elif concept == "shots":
        assert param.type is SHOT_LIST, path  # N[,N...] in every command
    elif concept == "seed":
        assert param.type is SEED and param.default == 42, path
    elif concept == "json":
        assert param.is_flag and param.name == "as_json", path
    assert param.name == {
        "task": param.name,
        "output_dir": "output_dir",
        "output_file": "output_file",
        "json": "as_json",
    }.get(concept, concept), path


def test_the_commands_that_print_a_result_table_take_json():
    printing = {path for path, command in ALL_COMMANDS for p in command.params if getattr(p, "concept", "") == "json"}
    expected = {"list-tasks", "compare", "changed-tasks", "evaluate", "rerank", "test-task", "run", "demo"}
    assert expected | {"contamination search", "contamination scan"} <= printing


def test_the_commands_that_select_tasks_all_do_it_with_t():
    selecting = {path for path, command in ALL_COMMANDS for p in command.params if getattr(p, "concept", "") == "task"}
    expected = {"show-task", "test-task", "evaluate", "submit-task", "demo", "rerank", "run"}
    assert expected | {"contamination search", "contamination scan"} <= selecting


@pytest.mark.parametrize(
    ("args", "old"),
    [
        (["show-task", "-i", "arithmetic_length", "--shots", "0"], "-i"),
        (["show-task", "--id", "arithmetic_length", "--shots", "0"], "--id"),
    ],
)
def test_old_spellings_still_work_with_one_note(runner, args, old):
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert result.stderr.count("deprecated") == 1
    assert f"Note: {old} is deprecated and goes in the next release; use -t/--task." in result.stderr
    assert "arithmetic_length: " in result.stdout
    # The old spellings are hidden from --help.
    help_text = runner.invoke(cli, ["show-task", "--help"]).output
    assert "-t, --task ID" in help_text and "--id" not in help_text


def test_quiet_silences_the_deprecation_note(runner):
    result = runner.invoke(cli, ["show-task", "-i", "arithmetic_length", "--shots", "0", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "deprecated" not in result.stderr


def test_run_takes_tasks_repeated_or_comma_separated(runner, tmp_path):
    # `--tasks` (the old spelling) and `-t` give the same selection; an unknown id fails before any model loads.
    for args in (["-t", "arithmetic_length,zz_no_such"], ["-t", "arithmetic_length", "-t", "zz_no_such"]):
        result = runner.invoke(cli, ["run", "-m", "python:os:getcwd", *args, "-o", str(tmp_path)])
        assert result.exit_code == 1
        assert "zz_no_such" in result.output
    old = runner.invoke(cli, ["run", "-m", "python:os:getcwd", "--tasks", "zz_no_such", "-o", str(tmp_path)])
    assert "Note: --tasks is deprecated" in old.stderr and "zz_no_such" in old.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show-task", "-t", "a,b"], "show-task takes one task ('id' or 'id:subtask'), not 'a,b'."),
        (["evaluate", "-t", "all", "-p", "x.jsonl"], "evaluate takes one task"),
        (["run", "-m", "x", "-t", "all,a", "-o", "out"], "'all' selects every task: give it alone."),
        (["demo", "-t", "a b"], "'a b' is not a task id"),
    ],
)
def test_task_selection_errors_are_usage_errors(runner, args, message):
    result = runner.invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "'-t' / '--task'" in result.output


def test_an_output_file_option_is_not_an_output_folder(runner, tmp_path):
    target = tmp_path / "schema.json"
    result = runner.invoke(cli, ["schema", "--output-file", str(target)])
    assert result.exit_code == 0, result.output
    assert target.is_file()
    old = runner.invoke(cli, ["schema", "-o", str(tmp_path / "old.json")])
    assert old.exit_code == 0 and (tmp_path / "old.json").is_file()
    assert "Note: -o is deprecated and goes in the next release; use --output-file." in old.stderr


def test_unknown_commands_and_options_get_close_matches(runner):
    result = runner.invoke(cli, ["list-task"])
    assert result.exit_code == 2
    assert "'list-tasks'" in result.output
    result = runner.invoke(cli, ["list-tasks", "--jsn"])
    assert result.exit_code == 2
    assert "Did you mean '--json'?" in result.output
    # Close matches come from the options --help shows, never a deprecated spelling.
    result = runner.invoke(cli, ["show-task", "--idd", "x"])
    assert "No such option '--idd'" in result.output and "--id'" not in result.output
    result = runner.invoke(cli, ["show-task", "--tsk", "x"])
    assert "'--task'" in result.output and "No such option '--tsk'" in result.output


@click.command("probe")
@click.option("--name", default="x")
def probe(name: str) -> None:
    """Print the global settings as the command sees them."""
    click.echo(
        f"debug={global_setting('debug')} quiet={global_setting('quiet')} progress={global_setting('progress')}"
    )
    click.echo(f"TQDM_DISABLE={os.environ.get('TQDM_DISABLE')}")
    raise RuntimeError("boom")


@pytest.fixture
def with_probe(monkeypatch):
    group = PluginGroup(
        "genbench.cli_commands", "command", builtins={**COMMANDS.builtins, "probe": f"{__name__}:probe"}
    )
    monkeypatch.setattr(genbench.cli, "COMMANDS", group)


@pytest.mark.parametrize("where", ["before", "after"])
def test_global_flags_are_accepted_before_or_after_the_command(runner, with_probe, monkeypatch, where):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    flags = ["--debug", "--no-progress"]
    args = [*flags, "probe", "--name", "y"] if where == "before" else ["probe", "--name", "y", *flags]
    result = runner.invoke(cli, args)
    assert result.exit_code == 1
    assert "debug=True quiet=False progress=False" in result.stdout
    assert "TQDM_DISABLE=1" in result.stdout
    assert "Traceback" in result.stderr and "RuntimeError: boom" in result.stderr  # --debug took effect
    assert "TQDM_DISABLE" not in os.environ  # restored after the command


def test_quiet_implies_no_progress(runner, with_probe):
    result = runner.invoke(cli, ["probe", "-q"])
    assert "debug=False quiet=True progress=False" in result.stdout
    assert "Traceback" not in result.output
    assert "rerun with --debug" in result.output


def test_the_run_error_advice_works_after_the_command(runner, tmp_path):
    # The advice "rerun with --debug" is followed by appending --debug: no "No such option".
    result = runner.invoke(cli, ["run", "-m", "x", "-t", "zz_no_such", "-o", str(tmp_path), "--debug"])
    assert "No such option" not in result.output


def test_global_flags_are_the_documented_ones():
    assert set(GLOBAL_FLAGS) == {"--debug", "-q", "--quiet", "--progress", "--no-progress"}
    params = {opt for p in cli.params for opt in (*p.opts, *p.secondary_opts)}
    assert set(GLOBAL_FLAGS) <= params


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["evaluate", "-t", "arithmetic_length", "-p", "x.jsonl", "--shots", "0,3"], "evaluate takes one number"),
        (["leaderboard", "results", "-o", "site", "--shots", "0,1"], "leaderboard takes one number of shots"),
    ],
)
def test_shots_is_parsed_alike_where_a_command_takes_one_setting(runner, args, message):
    result = runner.invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "'--shots'" in result.output


def test_show_task_shows_each_listed_setting(runner):
    result = runner.invoke(cli, ["show-task", "-t", "arithmetic_length", "--shots", "1,2"])
    assert result.exit_code == 0, result.output
    titles = [line for line in result.stdout.splitlines() if line.startswith("--- ") and "prompt" in line]
    assert titles == ["--- 1-shot prompt (test example 0) ---", "--- 2-shot prompt (test example 0) ---"]
