"""Fuzzed result pipes: whatever bytes a task's code writes to the pipe ``test-task`` reads its verdict from, the
parent never raises, keeps only well-typed results, and prints its report and verdict line.

Streams are made of hostile lines (records with mutated fields, deep nesting, huge numbers, ``NaN``, lone
surrogates, invalid UTF-8, other encodings, lines longer than the record limit, raw bytes) cut into chunks of any
size. They are parsed two ways: by :class:`~genbench.review._isolation.RecordStream` fed chunk by chunk, and through
:func:`~genbench.review._isolation.run_child` from a real child process writing them (with junk on its stdout).
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
import tempfile
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from genbench.cli._test_task import print_report
from genbench.review._check_report import OUTCOMES, CheckResult, TaskTestReport
from genbench.review._isolation import MAX_RECORD_BYTES, ChildRun, RecordStream, run_child

from .harness import FUZZ, encoded, genbench_error_or_success, json_values, mutated, texts

EXPECTED = ["t/a", "t/b", "t/c"]
VALID_RESULT = {"outcome": "failed", "message": "m", "warnings": ["w"], "details": "d", "duration": 0.5}
_RESULT_PREFIX = '{"event": "result", "case": "t/a", "result": '


@st.composite
def records(draw: st.DrawFn) -> bytes:
    """A record as the protocol has it, with mutated fields (wrong types, unknown cases, extra keys...)."""
    record: dict[str, Any] = {
        "event": draw(st.sampled_from(["start", "result", "result", "end", "junk"])),
        "case": draw(st.one_of(st.sampled_from(EXPECTED), texts)),
        "result": draw(mutated(VALID_RESULT)),
    }
    text = json.dumps(draw(mutated(record, max_mutations=1)), ensure_ascii=draw(st.booleans()))
    return text.encode("utf-8", errors="surrogatepass")


@st.composite
def hostile_lines(draw: st.DrawFn) -> bytes:
    kind = draw(
        st.sampled_from(
            ["record", "record", "deep", "number", "constant", "surrogate", "encoded", "long", "binary", "json"]
        )
    )
    if kind == "record":
        return draw(records())
    if kind == "deep":
        opener = draw(st.sampled_from([b"[", b'{"a":', b'{"event": "result", "case": "t/a", "result": [']))
        return opener * draw(st.sampled_from([100, 1000, 50_000, MAX_RECORD_BYTES // len(opener) - 1]))
    if kind == "number":
        digits = "1" + "0" * draw(st.sampled_from([20, 308, 400, 4299, 5000]))
        where = draw(st.sampled_from(["duration", "outcome", "case"]))
        if where == "case":
            return f'{{"event": "start", "case": {digits}}}'.encode()
        return (
            _RESULT_PREFIX + json.dumps({**VALID_RESULT, where: 0}).replace(": 0}", f": {digits}}}") + "}"
        ).encode()
    if kind == "constant":
        constant = draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "nan", "1e999", "-0.0", "1e-400"]))
        return (
            _RESULT_PREFIX + json.dumps({**VALID_RESULT, "duration": 0}).replace(": 0}", f": {constant}}}") + "}"
        ).encode()
    if kind == "surrogate":
        escape = draw(st.sampled_from(["\\ud800", "\\udfff", "\\ud83d", "\\u0000", "\\u202e", "\\ud83d\\ude00"]))
        field = draw(st.sampled_from(["message", "details", "warnings", "case", "outcome"]))
        result = dict(VALID_RESULT)
        line = _RESULT_PREFIX + json.dumps(result) + "}"
        if field == "warnings":
            return line.replace('["w"]', f'["{escape}"]').encode()
        if field == "case":
            return line.replace('"t/a"', f'"t/a{escape}"').encode()
        return line.replace(f'"{field}": "{result[field]}"', f'"{field}": "{escape}x"').encode()
    if kind == "encoded":
        return draw(encoded(_RESULT_PREFIX + json.dumps({**VALID_RESULT, "message": draw(texts)}) + "}"))
    if kind == "long":
        return b'{"event": "start", "case": "' + b"x" * (MAX_RECORD_BYTES + draw(st.integers(0, 100))) + b'"}'
    if kind == "json":
        return json.dumps(draw(json_values)).encode()
    return draw(st.binary(max_size=300))


@st.composite
def streams(draw: st.DrawFn) -> list[bytes]:
    """A stream of hostile lines, cut into chunks at random places."""
    lines = draw(st.lists(hostile_lines(), min_size=1, max_size=6))
    data = b"\n".join(lines) + draw(st.sampled_from([b"\n", b"", b'\n{"event": "end"}\n']))
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=5)))
    return [data[start:stop] for start, stop in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def _assert_sound(run: ChildRun) -> None:
    """What the parent kept is well typed and printable, and the report with its verdict line prints."""
    assert set(run.results) <= set(EXPECTED)
    for fields in run.results.values():
        assert fields["outcome"] in OUTCOMES
        assert isinstance(fields["duration"], float) and math.isfinite(fields["duration"]) and fields["duration"] >= 0
        texts_ = [fields["message"], fields["details"], *fields["warnings"]]
        assert all(isinstance(text, str) for text in texts_)
        "".join(texts_).encode("utf-8")  # no lone surrogate left
    report = TaskTestReport("t", submission=True, sandbox="none", sandbox_reason="fuzz")
    report.results = [CheckResult("t", case.split("/")[1], "title", **fields) for case, fields in run.results.items()]
    report.errors = [*run.violations]
    report.output = run.output
    json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")
    console = Console(file=io.StringIO(), width=100, color_system=None)
    print_report(report, console, debug=True)
    assert console.file.getvalue().splitlines()[-1] == "sandbox: none (fuzz)"


@FUZZ
@given(streams())
def test_fuzz_result_stream(chunks):
    def parse():
        stream = RecordStream(EXPECTED, None)
        for chunk in chunks:
            if not stream.feed(chunk):
                break
        stream.close()
        _assert_sound(stream.run)
        if any(b"\xff" in chunk for chunk in chunks) or len(b"".join(chunks)) > MAX_RECORD_BYTES:
            assert stream.run.violations  # no result can come out of such bytes unnoticed

    genbench_error_or_success("result_stream", parse)


WRITER = """
import os, sys
fd = int(sys.argv[1])
with open(sys.argv[2], "rb") as file:
    data = file.read()
with open(sys.argv[3], "rb") as file:
    junk = file.read()
os.write(1, junk)
view = memoryview(data)
while view:
    view = view[os.write(fd, view):]
os.write(2, junk)
"""


@FUZZ
@given(streams(), st.binary(max_size=2000))
def test_fuzz_result_pipe_from_a_child(chunks, junk):
    def run():
        with tempfile.TemporaryDirectory() as tmp:
            data_path, junk_path = os.path.join(tmp, "data"), os.path.join(tmp, "junk")
            with open(data_path, "wb") as file:
                file.write(b"".join(chunks))
            with open(junk_path, "wb") as file:
                file.write(junk)
            child = run_child(
                [sys.executable, "-c", WRITER, "{fd}", data_path, junk_path], expected=EXPECTED,
                env=dict(os.environ), timeout=60.0,
            )  # fmt: skip
        assert not child.timed_out
        # All of the junk unless the parent abandoned the stream (too long a record) and killed the writer.
        assert child.output_bytes == 2 * len(junk) or (child.exit_code != 0 and child.output_bytes <= 2 * len(junk))
        _assert_sound(child)

    genbench_error_or_success("result_pipe_child", run)
