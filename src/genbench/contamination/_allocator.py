"""Keep the C allocator's freed memory for the next block while streaming (glibc only; elsewhere nothing happens).

:func:`reused_heap` raises glibc's mmap and trim thresholds (``mallopt``, through ``ctypes``: no library exposes it)
while the one-shot scan runs, so the arrays it frees for every block are reused instead of being unmapped and faulted
in again, then sets the defaults back. This turns off glibc's dynamic mmap threshold for the rest of the process,
which only changes when memory is given back to the system. See docs/contamination.md#one-shot-scan-no-index.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
GLIBC_DEFAULT = 128 * 1024
STREAMING = 256 << 20


@functools.lru_cache(maxsize=1)
def _mallopt() -> Any:
    """glibc's ``mallopt``, or ``None`` (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        function = libc.mallopt
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_int]
    function.restype = ctypes.c_int
    return function


@contextmanager
def reused_heap() -> Iterator[bool]:
    """While inside, large allocations come from the heap and freed memory stays there; yields whether it could."""
    mallopt = _mallopt()
    if mallopt is None:
        yield False
        return
    applied = bool(mallopt(M_MMAP_THRESHOLD, STREAMING)) and bool(mallopt(M_TRIM_THRESHOLD, STREAMING))
    try:
        yield applied
    finally:
        mallopt(M_MMAP_THRESHOLD, GLIBC_DEFAULT)
        mallopt(M_TRIM_THRESHOLD, GLIBC_DEFAULT)
