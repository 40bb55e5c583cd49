"""The crashes the fuzz tests found, each as a plain test (and where they were fixed).

A segmentation fault would end the whole test session, so those cases run in a child process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from genbench._core.errors import GenBenchError
from genbench.data._jsonl import read_jsonl

NULL_FIRST = b'null\n{"messages": [{"role": "user", "content": "hi"}]}\n'


def test_a_first_line_null_is_an_error_not_a_segmentation_fault(tmp_path: Path):
    """pyarrow's JSON reader (26.x) kills the process on it; genbench.data._jsonl and the contamination sources
    must not hand such a file to it."""
    path = tmp_path / "null_first.jsonl"
    path.write_bytes(NULL_FIRST)
    code = textwrap.dedent(
        f"""
        from genbench.contamination._training_data import load_training_dataset
        from genbench.data._jsonl import read_jsonl
        from genbench._core.errors import GenBenchError

        for load in (lambda: read_jsonl({str(path)!r}, split="train"), lambda: load_training_dataset({str(path)!r})):
            try:
                load()
            except GenBenchError as exc:
                print("error:", exc)
        """
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    errors = [line for line in run.stdout.splitlines() if line.startswith("error:")]
    assert len(errors) == 2 and all("line 1: expected one JSON object per line, got null" in e for e in errors)


@pytest.mark.parametrize(
    "content", [b'{"input": "a", "target": "b"}\nnull\n', b'{"input": "a", "target": "b"}\n  7\n']
)
def test_a_later_line_that_is_not_an_object_is_an_error_not_a_row_of_nulls(tmp_path: Path, content: bytes):
    path = tmp_path / "data.jsonl"
    path.write_bytes(content)
    with pytest.raises(GenBenchError, match="line 2: expected one JSON object per line"):
        read_jsonl(path, split="test")


def test_training_data_lines_are_checked_across_read_blocks(tmp_path: Path):
    """The contamination reader checks line starts block by block (pyarrow also crashes on a *block* that starts
    with `null`): a `null` line cut by a block boundary after its leading spaces is still found."""
    path = tmp_path / "train.jsonl"
    path.write_bytes(b'{"messages": []}\n' + b" " * 6 + b"null\n" + b'{"messages": []}\n')
    code = textwrap.dedent(
        f"""
        from genbench.contamination import _training_data as sources
        from genbench._core.errors import GenBenchError

        sources._READ_BLOCK = 20  # the first block ends inside the spaces before `null`
        try:
            sources.load_training_dataset({str(path)!r})
        except GenBenchError as exc:
            print("error:", exc)
        """
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "line 2: expected one JSON object per line, got null" in run.stdout


def test_a_list_of_strings_starting_with_null_gives_a_valid_table(tmp_path: Path):
    """pyarrow's reader builds an invalid table for it (list offsets past the values); datasets then failed with
    ``ArrowIndexError: array slice would exceed array length`` while preparing the split."""
    path = tmp_path / "train.jsonl"
    path.write_text('{"target_options": [null, "b", "c"]}\n{"target_options": ["a", "b", "c"]}\n', encoding="utf-8")
    dataset = read_jsonl(path, split="train")
    dataset.data.table.validate(full=True)
    assert dataset[0]["target_options"] == [None, "b", "c"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (None, r"gold\[0\] target_options is a NoneType"),
        ([None, "d1"], r"gold\[0\] target_options\[0\] is a NoneType"),
    ],
)
def test_reranking_gold_without_usable_candidates_is_a_prediction_error(options, message):
    """Were a ``TypeError: object of type 'NoneType' has no len()`` and a ``ValueError`` of the metric core."""
    from genbench._core.errors import PredictionError
    from genbench.metrics import evaluate_predictions

    gold = [{"input": "q", "target": ["d1"], "target_options": options}]
    with pytest.raises(PredictionError, match=message):
        evaluate_predictions(
            predictions=[{"target": [0.5, 0.2]}],
            gold=gold,
            task_type="reranking",
            metrics=[{"type": "cross_encoder_reranking", "at_k": 2}],
        )


def test_a_field_name_with_a_nul_character_is_a_data_load_error(tmp_path: Path):
    """datasets cut such a name at the NUL, then failed with ``CastError: column names don't match``."""
    path = tmp_path / "data.jsonl"
    path.write_text('{"input": "a", "target": "b"}\n{"x": 1, "a\\u0000b": null}\n', encoding="utf-8")
    with pytest.raises(GenBenchError, match=r"field name 'a\\x00b' contains a NUL character"):
        read_jsonl(path, split="test")


def test_a_data_path_longer_than_the_file_system_allows_is_a_data_load_error(tmp_path: Path):
    """Was ``OSError: [Errno 36] File name too long`` from the existence check of a manual data file."""
    from genbench.data._cache import fetch

    with pytest.raises(GenBenchError, match="cannot be used: File name too long"):
        fetch("x" * 5000, base_dir=tmp_path)
