"""The jsonnet worker process, seen from genbench's side: started, asked, answered within a deadline, stopped.

Configs are evaluated in a worker (:mod:`genbench.config._jsonnet.worker`) under ``RLIMIT_AS``, killed when an
answer misses its deadline: a config that would exhaust memory or time costs one worker and becomes a
:class:`SandboxLimitError`. Written by hand because the jsonnet bindings have a stack limit but no memory or time
limit. See docs/config.md#jsonnet-evaluation-confined-and-limited.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from genbench.config._jsonnet.limits import (
    SandboxLimitError,
    memory_limit_mb,
    out_of_memory,
    out_of_time,
    sandbox_available,
    time_limit_s,
)
from genbench.config._jsonnet.worker import evaluate_text

WORKER_SCRIPT = Path(__file__).resolve().with_name("worker.py")
STARTUP_TIMEOUT_S = 30.0
"""Seconds a worker may take to start (about 20 ms on a quiet machine); not counted in an evaluation's limit."""
EXTENSIONS = ("_gojsonnet",)
"""The jsonnet extension modules the worker loads: the Go library's."""


def _extension_dirs() -> list[str]:
    """The directories of the installed jsonnet extensions, for a worker that starts without ``site-packages``."""
    dirs = []
    for name in EXTENSIONS:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            dirs.append(os.path.dirname(spec.origin))
    return list(dict.fromkeys(dirs))


class Worker:
    """One worker process and its pipes, used by one caller at a time (see :func:`take_worker`)."""

    def __init__(self, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        self.owner_pid = os.getpid()
        self._buffer = bytearray()
        self._ready = False
        # -I -S: no site-packages scan and no PYTHON* variables (a faster, cleaner start); the worker finds the
        # jsonnet extensions through the directories passed to it. The Go runtime reads its settings from the
        # environment it starts with: no garbage collection until the heap reaches half the memory limit (a config's
        # heap stays far below), then enough to stay under it; the other half is headroom for the address space the
        # heap maps beyond its size, so RLIMIT_AS (set by the worker) stops only a config whose live data outgrows
        # the limit.
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", str(WORKER_SCRIPT), str(memory_mb), *_extension_dirs()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            env={**os.environ, "GOGC": "off", "GOMEMLIMIT": f"{max(memory_mb // 2, 1)}MiB"},
        )

    def alive(self) -> bool:
        """Whether the process runs and belongs to this process (a forked child must start its own)."""
        return self.owner_pid == os.getpid() and self.process.poll() is None

    def stop(self) -> None:
        """Kill the process (if this process started it) and close its pipes."""
        if self.owner_pid != os.getpid():
            return  # a forked child must not kill its parent's worker
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()

    def send(self, request: dict[str, Any]) -> None:
        """Write one request line.

        Raises:
            SandboxLimitError: the worker died (it was stopped).
        """
        assert self.process.stdin is not None  # noqa: S101 - set by Popen
        try:
            self.process.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            self.stop()
            raise self._ended() from None
        except BaseException:
            self.stop()
            raise

    def receive(self, timeout: float) -> dict[str, Any]:
        """The next answer line, waited for at most ``timeout`` seconds once the worker has started.

        Raises:
            SandboxLimitError: the deadline passed or the worker died (out of memory) or did not start; it was
                stopped.
        """
        try:
            if not self._ready:  # its first line says it started: the deadline is the evaluation's alone
                self._next_line(STARTUP_TIMEOUT_S)
                self._ready = True
            return json.loads(self._next_line(timeout))
        except BaseException:
            # Interrupted (Ctrl-C) or failed mid-answer: the worker may still write this answer later, which the
            # next request would read as its own. Only a fresh worker keeps answers and requests paired.
            self.stop()
            raise

    def _next_line(self, timeout: float) -> bytes:
        assert self.process.stdout is not None  # noqa: S101 - set by Popen
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout
        while (end := self._buffer.find(b"\n")) < 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise out_of_time(timeout) if self._ready else self._ended()
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._ended()
                self._buffer += chunk
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line

    def _ended(self) -> SandboxLimitError:
        """The error of a worker that ended: at the memory limit (the jsonnet library aborts), or at start."""
        if self._ready:
            return out_of_memory(self.memory_mb)
        return SandboxLimitError(
            f"the jsonnet worker did not start within {STARTUP_TIMEOUT_S:g} s ({sys.executable} -I -S "
            f"{WORKER_SCRIPT}); is the gojsonnet package installed?"
        )


_lock = threading.Lock()
_idle: Worker | None = None
_stop_at_exit = False


def take_worker(memory_mb: int) -> Worker:
    """A worker with this memory limit for the caller alone: the idle one if it fits, else a new one.

    Give it back with :func:`give_back` once every answer was read, or stop it.
    """
    global _idle, _stop_at_exit
    with _lock:
        worker, _idle = _idle, None
        if not _stop_at_exit:
            atexit.register(stop_worker)
            _stop_at_exit = True
    if worker is not None and worker.alive() and worker.memory_mb == memory_mb:
        return worker
    if worker is not None:
        worker.stop()
    return Worker(memory_mb)


def give_back(worker: Worker) -> None:
    """Keep ``worker``, all its answers read, for the next caller (one idle worker is kept, another is stopped)."""
    global _idle
    with _lock:
        extra = worker if _idle is not None else None
        if extra is None:
            _idle = worker
    if extra is not None:
        extra.stop()


def stop_worker() -> None:
    """Stop the idle worker now (it also ends by itself when this process exits)."""
    global _idle
    with _lock:
        worker, _idle = _idle, None
    if worker is not None:
        worker.stop()


def evaluate_in_sandbox(filename: str, text: str, root: str) -> str:
    """Evaluate jsonnet ``text`` in a limited worker; imports are confined to ``root``.

    Args:
        filename: The name jsonnet reports in its messages (and resolves relative imports against).
        text: The jsonnet source.
        root: The directory imports must stay inside.

    Returns:
        The evaluated document as JSON text.

    Raises:
        RuntimeError: jsonnet's own error (syntax, runtime, refused import), as the in-process binding raises it.
        SandboxLimitError: the memory or time limit was exceeded.
        ConfigError: a limit's environment variable is not a positive number.
    """
    if not sandbox_available():  # in this process, without limits
        import _gojsonnet

        answer = evaluate_text(_gojsonnet, filename, text, root)
        if "memory" in answer:
            raise MemoryError("jsonnet evaluation ran out of memory")
    else:
        memory_mb, timeout = memory_limit_mb(), time_limit_s()
        worker = take_worker(memory_mb)
        worker.send({"filename": filename, "text": text, "root": root})
        answer = worker.receive(timeout)
        give_back(worker)
        if "memory" in answer:
            raise out_of_memory(memory_mb)
    if "ok" in answer:
        return str(answer["ok"])
    raise RuntimeError(answer["error"])
