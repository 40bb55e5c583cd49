"""Fuzzed option values for the commands: a usage error (exit 2) naming the option, a genbench error (exit 1, one
``Error:`` line), or success; never a raw exception (which the CLI reports with "rerun with --debug")."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from genbench.cli import cli
from genbench.contamination import build_index

from .harness import CASES, FUZZ, texts

OUTCOMES: Counter[tuple[str, int]] = Counter()
NUMBER_LIKE = [
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e309",
    "-5",
    "-1",
    "0",
    "0.5",
    "1",
    "1.0000001",
    "2",
    "3",
    "10",
    "4294967296",
]
values = st.sampled_from(NUMBER_LIKE) | texts.filter(lambda text: "\0" not in text)  # argv cannot hold NUL

# command -> (fixed arguments, the options to fuzz); {train}, {test}, {out} and {idx} are files of the case.
COMMANDS = {
    "search": (
        ["contamination", "search", "--train_dataset_names", "{train}", "--dataset", "{test}", "--field", "q"],
        ["--ngram_size", "--match_threshold", "--top_k", "--split", "--output_dir", "--index_type"],
    ),
    "index": (
        ["contamination", "index", "--dataset", "{train}"],
        ["--ngram_size", "--shard_rows", "--max_batch_tokens", "--split", "--text_field", "--query_filter"],
    ),
    "show-task": (["show-task", "-i", "arithmetic_length"], ["--shots", "--seed"]),
    "evaluate": (["evaluate", "-i", "arithmetic_length", "-p", "{predictions}"], ["--split", "--output"]),
}


@pytest.mark.parametrize("command", list(COMMANDS))
@FUZZ
@given(data=st.data())
def test_fuzzed_option_values(command: str, data: st.DataObject):
    fixed, options = COMMANDS[command]
    chosen = data.draw(st.lists(st.sampled_from(options), min_size=1, max_size=3, unique=True), label="options")
    arguments = [item for option in chosen for item in (option, data.draw(values, label=option))]
    with tempfile.TemporaryDirectory() as folder:
        files = {
            "train": Path(folder) / "train.jsonl",
            "test": Path(folder) / "test.jsonl",
            "predictions": Path(folder) / "predictions.jsonl",
            "idx": Path(folder) / "idx",
        }
        files["train"].write_text(json.dumps({"messages": [{"role": "user", "content": "what is 1 + 1"}]}) + "\n")
        files["test"].write_text(json.dumps({"q": "what is 1 + 1"}) + "\n")
        files["predictions"].write_text(json.dumps({"target": "2"}) + "\n")
        argv = [part.format(**{k: str(v) for k, v in files.items()}) for part in fixed]
        if command in ("search", "index"):
            argv += ["--index_dir", str(files["idx"]), "--no-progress"]
            if command == "search":
                argv += ["--output_dir", str(Path(folder) / "out")]  # a fuzzed --output_dir comes later and wins
                build_index(str(files["train"]), index_dir=files["idx"])
        CASES[f"cli options[{command}]"] += 1
        here = os.getcwd()
        os.chdir(folder)  # fuzzed output paths are relative: keep what they create in here
        try:
            result = CliRunner().invoke(cli, [*argv, *arguments], catch_exceptions=True)
        finally:
            os.chdir(here)
    OUTCOMES[(command, result.exit_code)] += 1
    assert result.exit_code in (0, 1, 2), result.output
    assert "rerun with --debug" not in result.output, result.output  # a raw exception, not a genbench error
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert "Invalid value" in result.output or "Usage:" in result.output
    if result.exit_code == 1:
        assert result.output.count("Error:") == 1, result.output
