"""Run the checks that need a task's code in a child process, and decide their outcome in the trusted parent.

The child (pytest with :mod:`genbench.review.plugin`) writes one JSON record per line to a pipe the parent
created and handed down as a file descriptor (``--genbench-result-fd``): ``{"event": "start", "case": ID}``
before a check, ``{"event": "result", "case": ID, "result": {...}}`` after it, and ``{"event": "end"}`` once,
after the last check, after which it closes the pipe. The parent (:func:`run_child`) knows which cases it
expects, and

- takes from a result record only the outcome, message, warnings and details, checked for type; the task id,
  check name and title come from its own plan;
- counts as a *protocol violation* (and so a failed run) a line that is not such a record, a case it did not ask
  for, a second result for a case, any record after ``end``, and more than :data:`MAX_RECORD_BYTES` or
  :data:`MAX_TOTAL_BYTES` of records;
- fails every expected case that has no result when the pipe closes (the child crashed, exited early, was killed
  or timed out), whatever the child's exit status;
- never reads the child's stdout, stderr or files as results: its output is kept for ``--debug`` only.

So a ``task.py`` that exits early with status 0, rewrites a report file from an ``atexit`` hook, prints fake
results or writes extra records after the checks cannot turn a failure into a pass. (Code in the child can still
lie about the checks that run that same code, with deliberate effort: see :mod:`genbench.review.trust`.)

The child runs in a new session (its own process group). On the time limit, and when the parent gets SIGTERM or
SIGINT, the whole group is killed (SIGKILL). That alone does not reach a process that left the group (a daemon that
double-forked and called ``setsid``): the runner starts the child inside a bubblewrap sandbox with a PID namespace of
its own (:mod:`genbench.review.sandbox`), which the kernel kills with everything in it when the child dies, so that
no process that the task's code started survives the parent.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from genbench.review.check_report import OUTCOMES

MAX_RECORD_BYTES = 1 << 20
MAX_TOTAL_BYTES = 64 << 20
# Seconds the parent keeps reading after the child exited, for records still in the pipe.
_DRAIN_SECONDS = 2.0
# Seconds a child may take to exit after it closed the pipe, before its group is killed.
_EXIT_GRACE = 60.0
_OUTPUT_KEEP = 200_000
_RESULT_FIELDS: dict[str, type | tuple[type, ...]] = {
    "outcome": str,
    "message": str,
    "warnings": list,
    "details": str,
    "duration": (int, float),
}


@dataclass
class ChildRun:
    """What the parent observed of a child run.

    Attributes:
        results: The result fields received per expected case id (outcome, message, warnings, details, duration).
        violations: Protocol violations, each described (any makes the run a failure).
        duplicated: Cases reported more than once (each fails, whatever its records said).
        ended: Whether the child sent its end record.
        exit_code: The child's exit status (negative: killed by that signal).
        timed_out: Whether the time limit stopped it.
        output: The end of the child's stdout and stderr, for debugging; never read as results.
    """

    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    duplicated: set[str] = field(default_factory=set)
    ended: bool = False
    exit_code: int | None = None
    timed_out: bool = False
    output: str = ""


def kill_group(process: subprocess.Popen[Any]) -> None:
    """SIGKILL the process group the child leads (it and everything it started that stayed in the group)."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


@contextmanager
def _signals_kill(process: subprocess.Popen[Any]) -> Iterator[None]:
    """While the child runs, SIGTERM and SIGINT to this process kill the child's group first, then end this process
    as those signals do (SystemExit 143, KeyboardInterrupt)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_signal(signum: int, _frame: Any) -> None:
        kill_group(process)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)

    previous = {signum: signal.signal(signum, on_signal) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class _Records:
    """Parses the child's record stream against the expected cases."""

    def __init__(self, expected: Sequence[str], on_record: Callable[[dict[str, Any]], None] | None):
        self.expected = set(expected)
        self.on_record = on_record
        self.run = ChildRun()
        self.buffer = b""
        self.total = 0

    def feed(self, data: bytes) -> bool:
        """Take bytes from the pipe; False when the stream must be abandoned (too much data)."""
        self.total += len(data)
        if self.total > MAX_TOTAL_BYTES:
            self.run.violations.append(f"the child sent more than {MAX_TOTAL_BYTES} bytes of records")
            return False
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        if len(self.buffer) > MAX_RECORD_BYTES:
            self.run.violations.append(f"the child sent a record longer than {MAX_RECORD_BYTES} bytes")
            return False
        for line in lines:
            self._line(line)
        return True

    def close(self) -> None:
        if self.buffer:
            self.run.violations.append("the child's last record is cut off")

    def _line(self, line: bytes) -> None:
        try:
            record = json.loads(line)
        except ValueError:
            self.run.violations.append(f"a line that is not a JSON record: {line[:80]!r}")
            return
        if self.run.ended:
            self.run.violations.append(f"a record after the end record: {line[:80]!r}")
            return
        event = record.get("event") if isinstance(record, dict) else None
        if event == "end":
            self.run.ended = True
            return
        case = record.get("case") if isinstance(record, dict) else None
        if event not in ("start", "result") or not isinstance(case, str) or case not in self.expected:
            self.run.violations.append(f"an unexpected record: {line[:120]!r}")
            return
        if event == "result":
            fields = _result_fields(record.get("result"))
            if fields is None:
                self.run.violations.append(f"a malformed result for {case}: {line[:120]!r}")
                return
            if case in self.run.results:
                self.run.violations.append(f"a second result for {case}")
                self.run.duplicated.add(case)
                return
            self.run.results[case] = fields
        if self.on_record is not None:
            accepted: dict[str, Any] = {"event": event, "case": case}
            if event == "result":
                accepted["result"] = self.run.results[case]
            self.on_record(accepted)


def _result_fields(data: Any) -> dict[str, Any] | None:
    if not isinstance(data, Mapping):
        return None
    fields = {}
    for name, types in _RESULT_FIELDS.items():
        if name not in data or not isinstance(data[name], types):
            return None
        fields[name] = data[name]
    if fields["outcome"] not in OUTCOMES or not all(isinstance(w, str) for w in fields["warnings"]):
        return None
    return fields


def run_child(
    command: Sequence[str],
    *,
    expected: Sequence[str],
    env: Mapping[str, str],
    timeout: float | None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    fd_placeholder: str = "{fd}",
) -> ChildRun:
    """Run ``command`` in a new process group, reading its result records from a pipe (see the module).

    Args:
        command: The child's command line; the argument equal to ``fd_placeholder`` is replaced by the number of the
            pipe's write end in the child.
        expected: The case ids the child must report, each exactly once.
        env: The child's environment.
        timeout: Seconds after which the child's group is killed (None: no limit).
        on_record: Called with each accepted ``start`` and ``result`` record as it arrives.

    Returns:
        What was observed; the caller decides the verdict (every expected case reported, no violation).
    """
    read_end, write_end = os.pipe()
    records = _Records(expected, on_record)
    argv = [str(write_end) if part == fd_placeholder else part for part in command]
    with tempfile.TemporaryFile() as output:
        try:
            process = subprocess.Popen(
                argv, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=dict(env),
                pass_fds=(write_end,), start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(write_end)
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            with _signals_kill(process), selectors.DefaultSelector() as selector:
                selector.register(read_end, selectors.EVENT_READ)
                exited_at = None
                while True:
                    now = time.monotonic()
                    if deadline is not None and now >= deadline:
                        records.run.timed_out = True
                        break
                    if process.poll() is not None:
                        exited_at = exited_at or now
                        if now - exited_at > _DRAIN_SECONDS:
                            break  # something the child started keeps the pipe open
                    wait = 0.1 if deadline is None else max(0.0, min(0.1, deadline - now))
                    if not selector.select(wait):
                        continue
                    data = os.read(read_end, 65536)
                    if not data:
                        # The pipe closed: let the child finish (its exit hooks run now) within the time limit.
                        _wait(process, deadline)
                        break
                    if not records.feed(data):
                        break  # abandoned: the group is killed below
            records.close()
        finally:
            kill_group(process)  # the time limit, and whatever the task's code left running
            records.run.exit_code = process.wait()
            os.close(read_end)
        output.seek(0, os.SEEK_END)
        output.seek(max(0, output.tell() - _OUTPUT_KEEP))
        records.run.output = output.read().decode("utf-8", errors="replace")
    return records.run


def _wait(process: subprocess.Popen[Any], deadline: float | None) -> None:
    """Let the child finish after it closed the pipe (its exit hooks run then), within the time limit."""
    limit = _EXIT_GRACE if deadline is None else min(_EXIT_GRACE, max(0.0, deadline - time.monotonic()))
    with suppress(subprocess.TimeoutExpired):  # then the caller kills it with its group
        process.wait(timeout=limit)


def output_tail(text: str, limit: int = 4000) -> str:
    """The end of a child's output, for an error message."""
    return text[-limit:].strip()


__all__ = ["MAX_RECORD_BYTES", "MAX_TOTAL_BYTES", "ChildRun", "kill_group", "output_tail", "run_child"]
