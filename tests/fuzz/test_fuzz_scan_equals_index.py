"""``scan`` = ``index`` + ``search`` on fuzzed training data: the same scores and matched rows, or the same genbench
error (class and message). The training files are those of :mod:`.test_fuzz_contamination` (values of other types,
nested lists and objects, missing fields, lines that are not objects, other encodings, cut short)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from genbench._core.errors import GenBenchError
from genbench.contamination import TestSet, build_index, search
from genbench.contamination._oneshot import scan

from .harness import CASES, FUZZ, OUTCOMES
from .test_fuzz_contamination import ROWS
from .test_fuzz_tasks import jsonl_bytes

TESTS = [TestSet.from_texts("questions", ["what is 1 plus 1", "the sum of 2"])]


def _outcome(action: Any) -> tuple[Any, ...]:
    try:
        report = action()
    except GenBenchError as exc:
        OUTCOMES["error"] += 1
        return ("error", type(exc).__name__, str(exc))
    OUTCOMES["ok"] += 1
    return ("ok", _scores(report))


def _scores(report: Any) -> list[tuple[Any, ...]]:
    return [(r.score, [i.raw_score for i in r.instances], r.matched_rows.tolist()) for r in report.results]


@FUZZ
@given(data=st.data())
def test_scan_and_index_read_the_same_rows_and_refuse_the_same_files(data: st.DataObject):
    content = data.draw(jsonl_bytes(ROWS), label="train.jsonl")
    text_field = data.draw(st.sampled_from([None, "text", "messages"]), label="text_field")
    CASES["scan = index + search"] += 1
    with tempfile.TemporaryDirectory() as folder:
        train = Path(folder) / "train.jsonl"
        train.write_bytes(content)
        options: dict[str, Any] = {"ngram_size": 2, "match_threshold": 0.5}

        def index_and_search() -> Any:
            build_index(str(train), text_field=text_field, index_dir=Path(folder) / "idx", shard_rows=2)
            first = search(str(train), test_sets=TESTS, index_dir=Path(folder) / "idx", **options)  # token file
            second = search(str(train), test_sets=TESTS, index_dir=Path(folder) / "idx", **options)  # n-gram table
            assert _scores(first) == _scores(second)
            return second

        indexed = _outcome(index_and_search)
        scanned = _outcome(lambda: scan(str(train), test_sets=TESTS, text_field=text_field, **options))
        assert indexed == scanned
