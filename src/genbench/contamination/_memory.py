"""Giving freed memory back to the system between the steps of a long build or search.

Allocators keep freed memory for reuse: glibc's ``malloc`` keeps up to twice its (adaptive, up to 32 MiB) mmap
threshold at the top of each arena, and pyarrow's pool keeps its own. A build that allocates and frees the same
large arrays shard after shard would otherwise stay at its highest footprint for good and start the next step
from there. Neither numpy nor pyarrow trims glibc's arenas; ``malloc_trim`` (glibc's own call) does.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Any


@functools.cache
def _malloc_trim() -> Any:
    """glibc's ``malloc_trim``, or ``None`` (another C library, or none found)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def give_back_free_memory() -> None:
    """Return the free memory of pyarrow's pool and of glibc's ``malloc`` arenas to the system (cheap: a few ms)."""
    import sys

    if "pyarrow" in sys.modules:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
