"""Run the checks that need a task's code in a child process, and decide their outcome in the trusted parent.

The child (pytest with :mod:`genbench.review._plugin`) writes JSON records (``start``, ``result``, ``end``) to a pipe
passed as ``--genbench-result-fd``; :func:`run_child` fails every expected check without exactly one well-formed
result, whatever the child's exit status, and kills the child's process group on timeout or signal.
See docs/review.md#what-a-pull-request-can-and-cannot-influence and docs/review.md#the-sandbox.
"""

from __future__ import annotations

import json
import math
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from genbench.review._check_report import OUTCOMES

MAX_RECORD_BYTES = 1 << 20
MAX_TOTAL_BYTES = 64 << 20
# Seconds the parent keeps reading after the child exited, for records still in the pipe.
_DRAIN_SECONDS = 2.0
# Seconds a child may take to exit after it closed the pipe, before its group is killed.
_EXIT_GRACE = 60.0
# Bytes of the child's output kept (its end), for --debug and error messages.
OUTPUT_KEEP = 200_000
_READ_SIZE = 65536
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
        output: The end of the child's stdout and stderr, for debugging; never read as results. When the child wrote
            more than :data:`OUTPUT_KEEP` bytes, its first line says how many were dropped.
        output_bytes: How many bytes the child wrote to its stdout and stderr in all.
    """

    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    duplicated: set[str] = field(default_factory=set)
    ended: bool = False
    exit_code: int | None = None
    timed_out: bool = False
    output: str = ""
    output_bytes: int = 0


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


class RecordStream:
    """Parses the child's record stream against the expected cases, as it arrives in chunks of any size.

    Never raises on what the child sends: every problem is a violation in :attr:`run`.

    >>> stream = RecordStream(["t/a"], None)
    >>> stream.feed(b'[[[\\n{"event": "end"}\\n'), stream.run.violations, stream.run.ended
    (True, ["a line that is not a JSON record: b'[[['"], True)
    """

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
        """The stream ended: a last line without its newline is a violation."""
        if self.buffer:
            self.run.violations.append("the child's last record is cut off")

    def _line(self, line: bytes) -> None:
        try:
            # Decoded here: json.loads would take UTF-16 and UTF-32 bytes too.
            record = json.loads(line.decode("utf-8"), parse_constant=_refuse_constant)
        except (ValueError, RecursionError):  # not UTF-8, not JSON, NaN, a too long integer; nested too deep
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


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _printable(text: str) -> str:
    """``text`` with what UTF-8 cannot encode (lone surrogates from ``\\ud800`` escapes) replaced."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _result_fields(data: Any) -> dict[str, Any] | None:
    if not isinstance(data, Mapping):
        return None
    fields = {}
    for name, types in _RESULT_FIELDS.items():
        if name not in data or not isinstance(data[name], types) or isinstance(data[name], bool):
            return None
        fields[name] = data[name]
    if fields["outcome"] not in OUTCOMES or not all(isinstance(w, str) for w in fields["warnings"]):
        return None
    try:
        duration = float(fields["duration"])
    except OverflowError:  # an integer of hundreds of digits
        return None
    if not math.isfinite(duration) or duration < 0:
        return None
    fields["duration"] = duration
    for name in ("outcome", "message", "details"):
        fields[name] = _printable(fields[name])
    fields["warnings"] = [_printable(warning) for warning in fields["warnings"]]
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
    """Run ``command`` in a new process group, reading its result records from a pipe (the module says what fails).

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
    output_read, output_write = os.pipe()
    records = RecordStream(expected, on_record)
    output = _OutputTail(OUTPUT_KEEP)
    argv = [str(write_end) if part == fd_placeholder else part for part in command]
    try:
        process = subprocess.Popen(
            argv, stdout=output_write, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=dict(env),
            pass_fds=(write_end,), start_new_session=True,
        )  # fmt: skip
    except BaseException:
        os.close(read_end)
        os.close(output_read)
        raise
    finally:
        os.close(write_end)
        os.close(output_write)
    try:
        with _signals_kill(process), selectors.DefaultSelector() as selector:
            selector.register(read_end, selectors.EVENT_READ)
            selector.register(output_read, selectors.EVENT_READ)
            _read_until_done(process, selector, read_end, records, output, timeout)
        records.close()
    finally:
        kill_group(process)  # the time limit, and whatever the task's code left running
        records.run.exit_code = process.wait()
        os.close(read_end)
        _drain(output_read, output)
        os.close(output_read)
    records.run.output, records.run.output_bytes = output.text(), output.total
    return records.run


def _read_until_done(
    process: subprocess.Popen[Any],
    selector: selectors.BaseSelector,
    result_fd: int,
    records: RecordStream,
    output: _OutputTail,
    timeout: float | None,
) -> None:
    """Read the result pipe and the child's output until the child closed the result pipe and exited (within
    :data:`_EXIT_GRACE` and the time limit), or exited and the pipe stayed quiet for :data:`_DRAIN_SECONDS`."""
    deadline = None if timeout is None else time.monotonic() + timeout
    exited_at = closed_at = None
    while True:
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            records.run.timed_out = True
            return
        if process.poll() is not None:
            exited_at = exited_at or now
            if closed_at is not None or now - exited_at > _DRAIN_SECONDS:
                return  # done; or something the child started keeps the result pipe open
        elif closed_at is not None and now - closed_at > _EXIT_GRACE:
            return  # closed the pipe but does not exit: the caller kills it with its group
        wait = 0.1 if deadline is None else max(0.0, min(0.1, deadline - now))
        for key, _ in selector.select(wait):
            data = os.read(key.fd, _READ_SIZE)
            if key.fd != result_fd:
                if not data:
                    selector.unregister(key.fd)
                output.add(data)
            elif not data:
                # The pipe closed: let the child finish (its exit hooks run now) within the time limit.
                selector.unregister(key.fd)
                closed_at = now
            elif not records.feed(data):
                return  # abandoned: the group is killed by the caller


def _drain(fd: int, output: _OutputTail, limit: int = 256) -> None:
    """Read what is left in the child's output pipe without blocking (at most ``limit`` reads: a process that left
    the group may keep writing)."""
    os.set_blocking(fd, False)
    for _ in range(limit):
        try:
            data = os.read(fd, _READ_SIZE)
        except BlockingIOError:
            return
        if not data:
            return
        output.add(data)


class _OutputTail:
    """The last ``keep`` bytes of a stream, and how many bytes it had in all (read by hand: no library bounds a
    pipe's reader by bytes kept rather than bytes read)."""

    def __init__(self, keep: int):
        self.keep = keep
        self.total = 0
        self.buffer = bytearray()

    def add(self, data: bytes) -> None:
        self.total += len(data)
        self.buffer += data
        if len(self.buffer) > 2 * self.keep:
            del self.buffer[: len(self.buffer) - self.keep]

    def text(self) -> str:
        kept = bytes(self.buffer[-self.keep :])
        text = kept.decode("utf-8", errors="replace")
        if self.total > len(kept):
            dropped = self.total - len(kept)
            text = (
                f"[output truncated: the child wrote {self.total} bytes; the first {dropped} were dropped, the last "
                f"{len(kept)} follow]\n{text}"
            )
        return text


def output_tail(text: str, limit: int = 4000) -> str:
    """The end of a child's output, for an error message."""
    return text[-limit:].strip()


__all__ = [
    "MAX_RECORD_BYTES",
    "MAX_TOTAL_BYTES",
    "OUTPUT_KEEP",
    "ChildRun",
    "RecordStream",
    "kill_group",
    "output_tail",
    "run_child",
]
