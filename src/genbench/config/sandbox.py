"""Jsonnet evaluation with a memory and a time limit.

A config is code: ``std.range(1, 300000000)`` makes the jsonnet C++ library abort the whole Python process when
memory runs out, and ``std.range(1, 1e7)`` takes seconds and gigabytes. Configs are therefore evaluated in one
persistent worker process (:mod:`genbench.config.jsonnet_worker`) that runs under ``RLIMIT_AS``; the parent waits
for each answer with a deadline and kills the worker when it passes. A bomb costs one worker (restarted on the
next call) and becomes a :class:`~genbench.core.errors.ConfigError`. The worker starts once per process (about 20 ms)
and each evaluation then costs one pipe round trip, so listing a hundred tasks stays fast.

No library offers this: the ``jsonnet`` binding has a stack limit (``max_stack``) but no memory or time limit, so
the small process protocol here is written by hand.

Limits (environment variables): ``GENBENCH_JSONNET_MEMORY_MB`` (default 512) and ``GENBENCH_JSONNET_TIMEOUT``
(seconds, default 5). On platforms without ``resource``/``select`` on pipes (Windows) evaluation runs in-process
without limits.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

DEFAULT_MEMORY_MB = 512
DEFAULT_TIMEOUT_S = 5.0
WORKER_SCRIPT = Path(__file__).with_name("jsonnet_worker.py")


class SandboxLimitError(RuntimeError):
    """The evaluation exceeded a limit or the worker died; the message says which and how to raise the limit."""


def memory_limit_mb() -> int:
    """The worker's address-space limit in MiB (``GENBENCH_JSONNET_MEMORY_MB``, default 512)."""
    return _positive_env("GENBENCH_JSONNET_MEMORY_MB", DEFAULT_MEMORY_MB, int)


def time_limit_s() -> float:
    """The time one evaluation may take, in seconds (``GENBENCH_JSONNET_TIMEOUT``, default 5)."""
    return _positive_env("GENBENCH_JSONNET_TIMEOUT", DEFAULT_TIMEOUT_S, float)


def _positive_env(name: str, default, kind):
    text = os.environ.get(name)
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = 0
    if not value > 0:
        from genbench.core.errors import ConfigError, ConfigProblem

        raise ConfigError(None, [ConfigProblem("", f"environment variable {name}={text!r} is not a positive number")])
    return value


def sandbox_available() -> bool:
    """Whether configs are evaluated in the limited worker (POSIX) or in-process (elsewhere)."""
    return os.name == "posix"


class _Worker:
    """One worker process and its pipes; used under the module lock."""

    def __init__(self, memory_mb: int):
        self.memory_mb = memory_mb
        self.owner_pid = os.getpid()
        # -I -S: no site-packages scan and no PYTHON* variables (a faster, cleaner start); the worker finds the
        # _jsonnet extension through the directory passed to it.
        spec = importlib.util.find_spec("_jsonnet")
        jsonnet_dir = os.path.dirname(spec.origin) if spec is not None and spec.origin else ""
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", str(WORKER_SCRIPT), str(memory_mb), jsonnet_dir],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )

    def alive(self) -> bool:
        return self.owner_pid == os.getpid() and self.process.poll() is None

    def stop(self) -> None:
        if self.owner_pid != os.getpid():
            return  # a forked child must not kill its parent's worker
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()

    def evaluate(self, filename: str, text: str, root: str, timeout: float) -> dict:
        try:
            return self._round_trip(filename, text, root, timeout)
        except BaseException:
            # Interrupted (Ctrl-C) or failed mid-request: the worker may still answer this request later, which
            # the next request would read as its own. Only a fresh worker keeps answers and requests paired.
            self.stop()
            raise

    def _round_trip(self, filename: str, text: str, root: str, timeout: float) -> dict:
        import select

        assert self.process.stdin is not None and self.process.stdout is not None  # noqa: S101 - set by Popen
        request = json.dumps({"filename": filename, "text": text, "root": root}).encode("utf-8") + b"\n"
        try:
            self.process.stdin.write(request)
            self.process.stdin.flush()
        except BrokenPipeError:
            raise self._died() from None
        fd = self.process.stdout.fileno()
        answer = bytearray()
        deadline = time.monotonic() + timeout
        while not answer.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.stop()
                raise SandboxLimitError(
                    f"jsonnet evaluation took longer than {timeout:g} s and was stopped (a config should evaluate "
                    "in milliseconds; raise GENBENCH_JSONNET_TIMEOUT if this one really needs longer)"
                )
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._died()
                answer += chunk
        return json.loads(answer)

    def _died(self) -> SandboxLimitError:
        self.stop()
        return SandboxLimitError(
            f"jsonnet evaluation ran out of memory (limit {self.memory_mb} MiB) and was stopped; a config should "
            "need a few MiB (raise GENBENCH_JSONNET_MEMORY_MB if this one really needs more)"
        )


_lock = threading.Lock()
_worker: _Worker | None = None


def evaluate_in_sandbox(filename: str, text: str, root: str) -> str:
    """Evaluate jsonnet ``text`` in the limited worker; imports are confined to ``root``.

    Args:
        filename: The name jsonnet reports in its messages (and resolves relative imports against).
        text: The jsonnet source.
        root: The directory imports must stay inside.

    Returns:
        The evaluated document as JSON text.

    Raises:
        RuntimeError: jsonnet's own error (syntax, runtime, refused import), as the in-process binding raises it.
        SandboxLimitError: the memory or time limit was exceeded.
    """
    global _worker
    if not sandbox_available():
        import _jsonnet

        from genbench.config.jsonnet_worker import confined_import_callback

        return _jsonnet.evaluate_snippet(filename, text, import_callback=confined_import_callback(root))
    memory_mb, timeout = memory_limit_mb(), time_limit_s()
    with _lock:
        if _worker is None or not _worker.alive() or _worker.memory_mb != memory_mb:
            if _worker is not None:
                _worker.stop()
            else:
                atexit.register(stop_worker)
            _worker = _Worker(memory_mb)
        answer = _worker.evaluate(filename, text, root, timeout)
    if "ok" in answer:
        return answer["ok"]
    if "memory" in answer:
        raise SandboxLimitError(f"jsonnet evaluation ran out of memory (limit {memory_mb} MiB)")
    raise RuntimeError(answer["error"])


def stop_worker() -> None:
    """Stop the worker process now (it also ends by itself when this process exits)."""
    global _worker
    with _lock:
        if _worker is not None:
            _worker.stop()
            _worker = None
