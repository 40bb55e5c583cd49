"""Every numeric option of every command is range-checked by its click type: a bad value is a usage error (exit 2)
naming the option, raised before the command does any work (issue 13, item 11)."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from genbench.cli import COMMANDS, cli
from genbench.cli.params import THRESHOLD, FiniteFloatRange

SEARCH = ["contamination", "search", "--train_dataset_names", "t.jsonl", "--output_dir", "out"]
INDEX = ["contamination", "index", "--dataset", "t.jsonl"]

BAD_VALUES = [
    (SEARCH, "--match_threshold", "nan"),
    (SEARCH, "--match_threshold", "NaN"),
    (SEARCH, "--match_threshold", "inf"),
    (SEARCH, "--match_threshold", "-inf"),
    (SEARCH, "--match_threshold", "-5"),
    (SEARCH, "--match_threshold", "1.5"),
    (SEARCH, "--match_threshold", "half"),
    (SEARCH, "--match-threshold", "nan"),
    (SEARCH, "--ngram_size", "0"),
    (SEARCH, "--ngram_size", "-3"),
    (SEARCH, "--top_k", "0"),
    (SEARCH, "--field", ""),
    (SEARCH, "--split", " "),
    (INDEX, "--ngram_size", "0"),
    (INDEX, "--max_batch_tokens", "0"),
    (INDEX, "--shard_rows", "-1"),
    (INDEX, "--text_field", ""),
    (INDEX, "--messages_field", ""),
    (INDEX, "--split", ""),
    (["rerank", "-t", "passage_reranking_shift", "--bi-encoder"], "--at_k", "0"),
    (["rerank", "-t", "passage_reranking_shift", "--bi-encoder"], "--batch-size", "0"),
    (["show-task", "-t", "arithmetic_length"], "--shots", "-1"),
    (["show-task", "-t", "arithmetic_length"], "--seed", "-1"),
    (["show-task", "-t", "arithmetic_length"], "--seed", str(2**32)),
    (["demo", "-t", "arithmetic_length"], "--seed", "-7"),
    (["evaluate", "-t", "arithmetic_length", "-p", "p.jsonl"], "--split", ""),
]


@pytest.mark.parametrize(("command", "option", "value"), BAD_VALUES)
def test_bad_value_is_a_usage_error_naming_the_option(command: list[str], option: str, value: str, tmp_path):
    result = CliRunner().invoke(cli, [*command, option, value])
    assert result.exit_code == 2, result.output
    assert "Invalid value for" in result.output
    assert option.lstrip("-").replace("-", "_") in result.output.replace("-", "_")
    assert "Traceback" not in result.output


@pytest.mark.parametrize("value", ["0", "0.0", "0.5", "1", "1e-3"])
def test_thresholds_in_the_unit_interval_are_accepted(value: str):
    assert 0.0 <= THRESHOLD.convert(value, None, None) <= 1.0


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", float("nan"), float("inf")])
def test_finite_float_range_refuses_non_finite_numbers_even_without_bounds(value):
    with pytest.raises(click.BadParameter, match="not a finite number"):
        FiniteFloatRange().convert(value, None, None)


def _all_commands() -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    ctx = click.Context(cli)
    for name in COMMANDS.names():
        command = cli.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            found += [(f"{name} {sub}", command.commands[sub]) for sub in command.commands]
        else:
            found.append((name, command))
    return found


@pytest.mark.parametrize(("name", "command"), _all_commands(), ids=lambda item: item if isinstance(item, str) else "")
def test_no_option_takes_an_unchecked_number(name: str, command: click.Command):
    """Plain ``int``/``float`` options accept -5, nan and inf: every number must have a range type."""
    for param in command.params:
        if isinstance(param.type, (click.types.IntParamType, click.types.FloatParamType)):
            assert isinstance(param.type, click.types._NumberRangeBase), f"{name} {param.opts}: {param.type!r}"
        if isinstance(param.type, click.types.FloatParamType):
            assert isinstance(param.type, FiniteFloatRange), f"{name} {param.opts}: NaN passes a plain FloatRange"
