"""A wall-clock deadline per HTTP request, and requests that stop when their run is interrupted.

httpx (and so the ``openai`` client) bounds each socket operation, not a request: a server that sends one byte every
half second never reaches a 3-second read timeout. :func:`deadline_http_client` makes the client the ``openai:``
runner uses, whose network layer bounds every wait of one request attempt (connecting, sending, headers and body) by
that attempt's deadline. An attempt past it raises the library's own ``ReadTimeout``, so the ``openai`` client
retries it as any other timeout.

:func:`map_interruptibly` runs requests on daemon threads: when the caller is interrupted (Ctrl-C) or one request
fails, the others stop at their next wait (at most :data:`POLL_SECONDS` later), and no worker can hold the process
at exit (``concurrent.futures`` joins its workers when the interpreter exits, so one stuck in a request or in a retry
back-off would keep a Ctrl-C'ed run alive).

No library offers either (httpx has no total timeout; its transport takes no network backend), so both are written
here, around httpx's own network backend.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

try:  # the HTTP stack of the installed openai client: httpx2 (openai 2.x and later), else httpx
    import httpcore2 as httpcore
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed openai release
    import httpcore  # type: ignore[no-redef]
    import httpx  # type: ignore[no-redef]

POLL_SECONDS = 0.2
"""The longest single wait on a socket: how soon a request in flight sees that its run was interrupted."""

T = TypeVar("T")
R = TypeVar("R")

_request = threading.local()  # this thread's attempt deadline (monotonic seconds) and its run's cancellation


class RequestCancelled(BaseException):
    """The run this request belongs to was interrupted or failed (a ``BaseException``: no client retries it)."""


def _remaining(timeout: float | None, started: float) -> float:
    """Seconds this wait may still take, within the attempt's deadline and the operation's own ``timeout``; raises
    when there are none or the run was cancelled."""
    cancelled: threading.Event | None = getattr(_request, "cancelled", None)
    if cancelled is not None and cancelled.is_set():
        raise RequestCancelled("the run was interrupted")
    now = time.monotonic()
    deadline: float | None = getattr(_request, "deadline", None)
    left = min(
        deadline - now if deadline is not None else float("inf"),
        timeout - (now - started) if timeout is not None else float("inf"),
    )
    if left <= 0:
        if deadline is not None and deadline <= now:
            raise httpcore.ReadTimeout(f"no complete answer within the request's {_request.seconds:g} seconds")
        raise httpcore.ReadTimeout("timed out")
    return min(left, POLL_SECONDS)


def _in_slices(operation: Callable[[float], T], timeout: float | None, timeout_error: type[Exception]) -> T:
    """``operation(wait)`` in waits of at most :data:`POLL_SECONDS`, until it completes or time is up."""
    started = time.monotonic()
    while True:
        try:
            return operation(_remaining(timeout, started))
        except timeout_error:
            _remaining(timeout, started)  # raises once time is up; else wait again


class _DeadlineStream:
    """A network stream whose every wait ends by the attempt's deadline."""

    def __init__(self, stream: Any):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return _in_slices(lambda wait: self._stream.read(max_bytes, wait), timeout, httpcore.ReadTimeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        # not in slices (a slice that times out part-way may have sent part of the buffer): one wait, bounded by the
        # deadline; requests are small, and a server that does not read them is what the deadline is for
        self._stream.write(buffer, _cap(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, _cap(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


def _cap(timeout: float | None = None) -> float:
    """``timeout`` bounded by what is left of the attempt's deadline (raising when nothing is)."""
    deadline: float | None = getattr(_request, "deadline", None)
    left = deadline - time.monotonic() if deadline is not None else float("inf")
    if left <= 0:
        raise httpcore.ReadTimeout(f"no complete answer within the request's {_request.seconds:g} seconds")
    bound = min(left, timeout if timeout is not None else float("inf"))
    return bound if bound != float("inf") else None  # type: ignore[return-value]


class _DeadlineBackend:
    """httpcore's network backend, handing out :class:`_DeadlineStream` s."""

    def __init__(self, backend: Any):
        self._backend = backend

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, **options: Any) -> Any:
        _remaining(None, time.monotonic())  # a cancelled run opens no connection
        return _DeadlineStream(self._backend.connect_tcp(host, port, _cap(timeout), **options))

    def connect_unix_socket(self, path: str, timeout: float | None = None, **options: Any) -> Any:
        return _DeadlineStream(self._backend.connect_unix_socket(path, _cap(timeout), **options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport, with a wall-clock deadline of ``seconds`` per request attempt (headers and body)."""

    def __init__(self, seconds: float, **options: Any):
        super().__init__(**options)
        self.seconds = seconds
        pool = self._pool  # the transport takes no network backend: wrap the one its connection pool uses
        pool._network_backend = _DeadlineBackend(pool._network_backend)

    def handle_request(self, request: Any) -> Any:
        # the body is read after this returns, on this thread: the deadline holds until the next attempt starts
        _request.deadline = time.monotonic() + self.seconds
        _request.seconds = self.seconds
        return super().handle_request(request)


def deadline_http_client(seconds: float, **options: Any) -> Any:
    """An ``openai.DefaultHttpxClient`` whose request attempts each end within ``seconds`` (see the module)."""
    import openai

    return openai.DefaultHttpxClient(transport=DeadlineTransport(seconds), **options)


def map_interruptibly(function: Callable[[T], R], items: Sequence[T], workers: int) -> list[R]:
    """``[function(item) for item in items]`` on up to ``workers`` daemon threads, in order.

    The first failure (in the order of ``items``) is raised once every worker has stopped; a failure or an interruption
    of the caller cancels the requests in flight (they raise :class:`RequestCancelled` at their next wait).
    """
    results: list[Any] = [None] * len(items)
    failures: dict[int, BaseException] = {}
    cancelled = threading.Event()
    positions = iter(range(len(items)))
    lock = threading.Lock()

    def work() -> None:
        _request.cancelled = cancelled
        while not cancelled.is_set():
            with lock:
                position = next(positions, None)
            if position is None:
                return
            try:
                results[position] = function(items[position])
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, which raises it
                failures[position] = exc
                cancelled.set()
                return

    threads = [threading.Thread(target=work, daemon=True) for _ in range(min(workers, len(items)))]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(POLL_SECONDS)
    except BaseException:
        cancelled.set()  # Ctrl-C: the workers stop at their next wait; being daemons, none holds the exit
        raise
    if failures:
        real = {p: e for p, e in failures.items() if not isinstance(e, RequestCancelled)} or failures
        raise real[min(real)]
    return results
