"""``scan`` = ``index`` + ``search`` on every input, errors included: one reader of training data for both (issue 20).

Each file below is read by an index build and by the one-shot scan; both must give the same scores, or the same
genbench error (class and message). The cases are the reproducers of the issue: a chat row with an extra field that
mixes types (accepted by one and refused by the other before), invalid UTF-8 in a JSON key, deep nesting.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from genbench._core.errors import GenBenchError
from genbench.contamination import TestSet, build_index, search
from genbench.contamination._oneshot import scan
from genbench.data._json_nesting import ARROW_NESTING_LIMIT, a_line_nests_deeper_than, max_nesting

QUESTION = "what is one plus one"


def _line(row: object) -> bytes:
    return json.dumps(row).encode() + b"\n"


def _chat(content: str, **extra: object) -> dict:
    return {"role": "user", "content": content, **extra}


def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


CASES = {
    # An extra key of the messages holding a number in one message and text in the next: genbench never reads it.
    "mixed extra key": _line({"messages": [_chat(QUESTION, extra=1), _chat("two", extra="x")]}),
    "mixed extra key, blank line": _line({"messages": [_chat(QUESTION, extra=1), _chat("x", extra="x")]}) + b"\n",
    "mixed extra column": _line({"messages": [_chat(QUESTION)], "meta": 3}) + _line({"messages": [], "meta": "s"}),
    "lists and objects mixed": _line({"messages": [_chat(QUESTION, extra=[1, {"a": 1}]), _chat("y", extra={"b": 2})]}),
    "invalid UTF-8 in a key": b'{"messages": [{"role": "user", "content": "what", "\xff\xfe": 1}]}\n',
    "invalid UTF-8 in a later key": _line({"messages": [_chat(QUESTION)]}) + b'{"\xc3": 1, "messages": []}\n',
    "5,000-deep nesting": b'{"messages": [{"role": "user", "content": "x"}], "deep": ' + _deep(5000) + b"}\n",
    "5,000-deep nesting in a message": b'{"messages": [{"role": "user", "content": "x", "d": '
    + _deep(5000)
    + b"}]}\n",
    "100,000-deep nesting (crashed pyarrow)": b'{"messages": [], "deep": ' + _deep(100_000) + b"}\n",
    "deep nesting after a blank line": _line({"messages": [_chat(QUESTION)]})
    + b"\n"
    + b'{"d": '
    + _deep(20_000)
    + b"}\n",
    "brackets in strings are not nesting": _line({"messages": [_chat(QUESTION + " " + "[{" * 6000)]}),
}


def _outcome(action) -> tuple[str, object]:
    try:
        report = action()
    except GenBenchError as exc:
        return type(exc).__name__, str(exc)
    return "ok", [(result.score, [i.raw_score for i in result.instances]) for result in report.results]


@pytest.mark.parametrize("case", list(CASES))
def test_index_and_scan_accept_and_refuse_the_same_files(tmp_path: Path, case: str):
    train = tmp_path / "train.jsonl"
    train.write_bytes(CASES[case])
    tests = [TestSet.from_texts("t", [QUESTION])]

    def index_and_search():
        build_index(str(train), index_dir=tmp_path / "idx")
        return search(str(train), test_sets=tests, ngram_size=2, index_dir=tmp_path / "idx")

    indexed = _outcome(index_and_search)
    scanned = _outcome(lambda: scan(str(train), test_sets=tests, ngram_size=2))
    assert indexed == scanned
    if "UTF-8" in case:
        assert indexed[0] == "DataLoadError" and "not valid UTF-8" in str(indexed[1])
        assert f"line {2 if 'later' in case else 1}:" in str(indexed[1])
    elif "nesting" in case and "strings" not in case:
        assert indexed[0] in ("DataLoadError", "ContaminationError") and "nested too deeply" in str(indexed[1])
    else:
        assert indexed[0] == "ok" and indexed[1][0][0] == 1.0


def test_nesting_is_counted_outside_strings_line_by_line():
    assert max_nesting(b'{"a": "[[[\\"[[", "b": [{}]}') == 3
    assert max_nesting(b'{"a": "\\\\", "b": [[]]}') == 3  # an escaped backslash does not escape the quote
    assert max_nesting(b'{"a": "unclosed [[[[\n{"b": [1]}') == 2  # a line's open string ends with it
    assert not a_line_nests_deeper_than(b'{"a": "' + b"[" * (ARROW_NESTING_LIMIT + 5) + b'"}\n')
    assert a_line_nests_deeper_than(b"{}\n" + b'{"a": ' + _deep(ARROW_NESTING_LIMIT + 1) + b"}\n")
    assert not a_line_nests_deeper_than(b'{"a": ' + _deep(ARROW_NESTING_LIMIT - 1) + b"}\n")


@pytest.mark.parametrize("blank_line", [b"", b"\n"])
def test_the_data_reader_refuses_deep_nesting_instead_of_crashing(tmp_path: Path, blank_line: bytes):
    """Task data goes through the same JSONL parser: 100,000 levels killed the process in pyarrow's reader."""
    from genbench._core.errors import DataLoadError
    from genbench.data._jsonl import read_jsonl_table

    data = tmp_path / "test.jsonl"
    data.write_bytes(b'{"input": "a"}\n' + blank_line + b'{"input": ' + _deep(100_000) + b"}\n")
    with pytest.raises(DataLoadError, match=r"line \d: values nested too deeply"):
        read_jsonl_table(data)
