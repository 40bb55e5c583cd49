"""Issue 31: the result pipe survives any bytes, and the child's output is bounded on the host.

A deeply nested line (``RecursionError`` in the parser), NaN, a 400-digit duration, lone surrogates and invalid
UTF-8 on the result pipe are protocol violations or made printable, never a crash: ``test-task`` still prints its
report and its verdict line. A child that writes without end to stdout fills neither the host's disk (its output
is a pipe, not a file) nor its memory (only the end is kept, and the report says how much was dropped)."""

from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.review import run_task_tests
from genbench.review._isolation import OUTPUT_KEEP, run_child
from genbench.review._sandbox import SandboxStatus

NO_SANDBOX = SandboxStatus("none", reason="turned off (GENBENCH_SANDBOX=none)")
RECORD = """
import json, os, sys
fd = int(sys.argv[1])
def send(data):
    os.write(fd, data if isinstance(data, bytes) else data.encode())
PASSED = {"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": 0.1}
"""


def child(script: str, expected: list[str], timeout: float | None = 60.0):
    return run_child(
        [sys.executable, "-c", textwrap.dedent(script), "{fd}"], expected=expected, env=dict(os.environ),
        timeout=timeout,
    )  # fmt: skip


def test_a_deeply_nested_line_is_a_violation_not_a_crash():
    run = child(RECORD + 'send("[" * 500_000 + "\\n"); send(\'{"event": "end"}\\n\')', ["t/a"])
    assert run.violations[0].startswith("a line that is not a JSON record: b'[[[[")
    assert run.ended and run.results == {}


@pytest.mark.parametrize(
    "result",
    [
        '{"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": NaN}',
        '{"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": Infinity}',
        '{"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": 1' + "0" * 400 + "}",
        '{"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": -1}',
        '{"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": true}',
        '{"outcome": "passed", "message": "", "warnings": [], "details": "", "duration": 1' + "0" * 5000 + "}",
    ],
    ids=["NaN", "Infinity", "400 digits", "negative", "boolean", "5000 digits"],
)
def test_a_duration_that_is_not_a_finite_number_is_refused(result):
    line = '{"event": "result", "case": "t/a", "result": ' + result + "}\n"
    run = child(RECORD + f'send({line!r}); send(\'{{"event": "end"}}\\n\')', ["t/a"])
    assert run.results == {} and len(run.violations) == 1


def test_lone_surrogates_and_invalid_utf8_are_made_printable_or_refused():
    surrogate = (
        '{"event": "result", "case": "t/a", "result": {"outcome": "failed", "message": "\\ud800 x", '
        '"warnings": ["\\udfff"], "details": "", "duration": 0}}\n'
    )
    run = child(RECORD + f"send({surrogate!r}); send(b'\\xff\\xfe{{}}\\n'); send('{{\"event\": \"end\"}}\\n')",
                ["t/a"])  # fmt: skip
    result = run.results["t/a"]
    assert result["message"] == "? x" and result["warnings"] == ["?"]
    json.dumps(result, ensure_ascii=False).encode("utf-8")  # printable and writable as UTF-8
    assert run.violations == ["a line that is not a JSON record: b'\\xff\\xfe{}'"]


# A task whose code writes hostile lines to the result pipe before its checks run, then behaves.
HOSTILE_TASK_PY = textwrap.dedent(
    """
    import os, sys
    from genbench import Task

    if "--genbench-result-fd" in sys.argv:
        fd = int(sys.argv[sys.argv.index("--genbench-result-fd") + 1])
        hostile = [b"[" * 900_000, b'{"a":' * 100_000, b"\\xff\\xfe\\x00", b'{"event": "start", "case": "\\\\ud800"}']
        for line in hostile:
            os.write(fd, line + b"\\n")


    class TinyTask(Task):
        pass
    """
)


def test_test_task_prints_its_report_and_verdict_after_hostile_records(make_task, monkeypatch):
    make_task(task_py=HOSTILE_TASK_PY)
    monkeypatch.setenv("GENBENCH_SANDBOX", "none")  # what crashed was the parent, sandboxed or not
    result = CliRunner().invoke(cli, ["test-task", "-t", "tiny"])
    assert result.exit_code == 1, result.output
    assert "broke the result protocol" in result.output
    assert "a line that is not a JSON record: b'[[[[" in result.output
    lines = result.output.splitlines()
    assert "sandbox: none (turned off (GENBENCH_SANDBOX=none))" in lines
    assert lines[-1] == "Error: The checks of task 'tiny' could not run to the end (see above)."
    assert not isinstance(result.exception, RecursionError)


# -- the child's output --------------------------------------------------------------------------------------------
FLOOD = """
import os, stat, sys
kind = "pipe" if stat.S_ISFIFO(os.fstat(1).st_mode) else "file"
sys.stdout.write(f"stdout is a {kind}\\n"); sys.stdout.flush()
block = b"x" * (1 << 20)
for _ in range(64):
    os.write(1, block)
os.write(2, b"the end\\n")
"""


def test_the_childs_output_is_a_pipe_read_into_a_bounded_buffer():
    run = child(RECORD + FLOOD + 'send(\'{"event": "end"}\\n\')', [])
    assert run.output_bytes == len("stdout is a pipe\n") + (64 << 20) + len("the end\n")
    first, rest = run.output.split("\n", 1)
    assert first == (
        f"[output truncated: the child wrote {run.output_bytes} bytes; the first {run.output_bytes - OUTPUT_KEEP} "
        f"were dropped, the last {OUTPUT_KEEP} follow]"
    )
    assert len(rest) == OUTPUT_KEEP and rest.endswith("xthe end\n")
    assert run.ended and run.exit_code == 0 and not run.violations


def test_the_childs_output_is_not_a_file_on_the_host():
    run = child(RECORD + FLOOD.replace("range(64)", "range(0)"), [])
    assert run.output.startswith("stdout is a pipe\n")


def test_a_small_output_is_kept_whole():
    run = child(RECORD + "print('hello'); import sys; print('oops', file=sys.stderr)", [])
    assert run.output == "hello\noops\n" and run.output_bytes == len(run.output)


def test_a_task_flooding_its_output_gets_a_report_that_says_it_was_truncated(make_task):
    # At exit, past pytest's capture of the checks' output: straight to the child's stdout.
    flooding = "import atexit, os\nfrom genbench import Task\n\n" \
        "atexit.register(lambda: [os.write(1, b'y' * (1 << 20)) for _ in range(40)])\n\n\n" \
        "class TinyTask(Task):\n    pass\n"  # fmt: skip
    make_task(task_py=flooding)
    report = run_task_tests("tiny", sandbox=NO_SANDBOX)
    assert report.output.startswith("[output truncated: the child wrote ")
    assert len(report.output) < OUTPUT_KEEP + 200
    assert report.ok, [r.message for r in report.results if r.outcome == "failed"] + report.errors


def test_a_record_in_utf16_is_not_read():
    # Found by the fuzz campaign: json.loads takes UTF-16 bytes; the protocol is UTF-8.
    line = ('{"event": "result", "case": "t/a", "result": {"outcome": "passed", "message": "", "warnings": [], '
            '"details": "", "duration": 0}}\n').encode("utf-16")  # fmt: skip
    run = child(RECORD + f"send({line!r}); send(b'\\n')", ["t/a"])
    assert run.results == {} and run.violations[0].startswith("a line that is not a JSON record: b'\\xff\\xfe{")
