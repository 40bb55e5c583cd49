"""Fuzzed training data for the contamination index: building and searching succeed or raise a GenBenchError.

Training rows (chat messages and a text field) are mutated like the task data of :mod:`.test_fuzz_tasks` (values of
other types, nested lists and objects, missing fields, lines that are not objects, other encodings, cut short) and
indexed both ways, then searched with an n-gram match.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from genbench.contamination import TestSet, build_index, search

from .harness import FUZZ, genbench_error_or_success
from .test_fuzz_tasks import jsonl_bytes

ROWS = [
    {
        "messages": [{"role": "user", "content": f"what is {i} plus {i}"}, {"role": "assistant", "content": "ok"}],
        "text": f"the sum of {i} and {i}",
    }
    for i in range(3)
]


@FUZZ
@given(data=st.data())
def test_fuzzed_training_data(data: st.DataObject):
    content = data.draw(jsonl_bytes(ROWS), label="train.jsonl")
    text_field = data.draw(st.sampled_from([None, "text", "messages"]), label="text_field")
    test_set = TestSet.from_texts("questions", ["what is 1 plus 1", "the sum of 2"])

    with tempfile.TemporaryDirectory() as folder:
        train = Path(folder) / "train.jsonl"
        train.write_bytes(content)

        def index_and_search() -> None:
            build_index(str(train), text_field=text_field, index_dir=Path(folder) / "idx", shard_rows=2)
            search(str(train), test_sets=[test_set], ngram_size=2, match_threshold=0.5, index_dir=Path(folder) / "idx")

        genbench_error_or_success(f"contamination data[{text_field}]", index_and_search)
