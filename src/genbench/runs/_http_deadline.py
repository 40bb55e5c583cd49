"""A wall-clock deadline per HTTP request, and requests that stop when their run is interrupted.

httpx bounds each socket operation, not a request, and has no total timeout, so :func:`deadline_http_client` bounds
every wait of one request attempt by its deadline. :func:`map_interruptibly` runs requests on daemon threads (unlike
``concurrent.futures``, none holds a Ctrl-C'ed process at exit) that stop when the caller is interrupted or one
request fails. See docs/running_models.md#a-vllm-or-any-openai-compatible-server.
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Callable, Iterable, Sequence
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


def _time_up() -> httpcore.ReadTimeout:
    return httpcore.ReadTimeout(f"no complete answer within the request's {_request.seconds:g} seconds")


def _remaining(timeout: float | None, started: float) -> float:
    """Seconds the next wait may take: at most :data:`POLL_SECONDS`, within the attempt's deadline and the operation's
    own ``timeout`` (counted from ``started``). Raises once there are none, or when the run was cancelled."""
    cancelled: threading.Event | None = getattr(_request, "cancelled", None)
    if cancelled is not None and cancelled.is_set():
        raise RequestCancelled("the run was interrupted")
    now = time.monotonic()
    deadline: float | None = getattr(_request, "deadline", None)
    if deadline is not None and deadline <= now:
        raise _time_up()
    if timeout is not None and now - started >= timeout:
        raise httpcore.ReadTimeout("timed out")
    left = [POLL_SECONDS]
    if deadline is not None:
        left.append(deadline - now)
    if timeout is not None:
        left.append(timeout - (now - started))
    return min(left)


def _bounded(timeout: float | None) -> float | None:
    """``timeout`` of one whole operation, bounded by what is left of the attempt's deadline."""
    deadline: float | None = getattr(_request, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise _time_up()
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every wait ends by the attempt's deadline, and within a poll of a cancellation."""

    def __init__(self, stream: httpcore.NetworkStream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        started = time.monotonic()
        while True:
            try:
                return self._stream.read(max_bytes, _remaining(timeout, started))
            except httpcore.ReadTimeout:
                _remaining(timeout, started)  # raises once time is up (or the run was cancelled); else wait again

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        # one wait, not slices (a slice that timed out part-way may have sent part of the buffer); requests are small,
        # and a server that does not read them is bounded by the deadline
        self._stream.write(buffer, _bounded(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, _bounded(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's network backend, handing out :class:`_DeadlineStream` s (a cancelled run opens no connection)."""

    def __init__(self, backend: httpcore.NetworkBackend):
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        _remaining(None, time.monotonic())
        stream = self._backend.connect_tcp(host, port, _bounded(timeout), local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        _remaining(None, time.monotonic())
        return _DeadlineStream(self._backend.connect_unix_socket(path, _bounded(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport, with a wall-clock deadline of ``seconds`` per request attempt (headers and body)."""

    def __init__(self, seconds: float, **options: Any):
        super().__init__(**options)
        self.seconds = seconds
        # httpx's transport takes no network backend (httpcore's pool does): wrap the one its pool uses. These are
        # private attributes, so a release that lays them out otherwise is refused here, never run without deadline.
        pool = getattr(self, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if not isinstance(backend, httpcore.NetworkBackend):
            raise RuntimeError(
                f"httpx {httpx.__version__} keeps its connections otherwise than genbench expects: the per-request "
                "deadline of openai: runs cannot be set. Install the httpx release that the openai package pins."
            )
        pool._network_backend = _DeadlineBackend(backend)  # type: ignore[union-attr]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        # the body is read after this returns, on this thread: the deadline holds until the next attempt starts
        _request.deadline = time.monotonic() + self.seconds
        _request.seconds = self.seconds
        return super().handle_request(request)


def deadline_http_client(seconds: float, **options: Any) -> Any:
    """An ``openai.DefaultHttpxClient`` whose request attempts each end within ``seconds`` (every wait included)."""
    import openai

    return openai.DefaultHttpxClient(transport=DeadlineTransport(seconds), **options)


def map_interruptibly(function: Callable[[T], R], items: Sequence[T], workers: int) -> list[R]:
    """``[function(item) for item in items]`` on up to ``workers`` daemon threads, in order.

    A failure cancels the other requests in flight (they raise :class:`RequestCancelled` at their next wait) and no
    new one starts; once every worker has stopped, the failure of the earliest item is raised. An interruption of the
    caller (Ctrl-C) cancels them too, and is raised at once: the workers are daemon threads, none holds the exit.

    >>> map_interruptibly(lambda n: n * n, [1, 2, 3], workers=2)
    [1, 4, 9]
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
