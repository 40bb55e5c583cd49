"""Parts of a ``.npy`` file, read through a memory map that is given back as it goes (``madvise(MADV_DONTNEED)``
after every :data:`RELEASE_BYTES` touched), so that scattered reads of a large index file hold bounded memory.
Hand-written: numpy offers memory maps and whole reads only, and nothing in numpy or pyarrow reads scattered elements
with a memory bound. See docs/contamination.md, "How the embedded index works".
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import Any

import numpy as np

from genbench.contamination._errors import DamagedIndexError

RELEASE_BYTES = 16 << 20
"""File bytes touched (counted in 2 MiB regions) between two releases of the mapped pages."""
_REGION = 2 << 20  # a page fault maps the faulting page's folio: in the page cache, up to 2 MiB
_PAGE = mmap.PAGESIZE


def npy_header(path: Path) -> tuple[np.dtype[Any], tuple[int, ...], int]:
    """The dtype, shape and data offset of a (C-order) ``.npy`` file, without reading its data.

    Raises:
        DamagedIndexError: the file cannot be read, or its header is not a ``.npy`` header (the caller adds how to
            rebuild the index).
    """
    try:
        with open(path, "rb") as handle:
            version = np.lib.format.read_magic(handle)
            read_header = (
                np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            )
            shape, fortran, dtype = read_header(handle)
            offset = handle.tell()
    except OSError as exc:
        raise DamagedIndexError(f"{path} cannot be read ({exc}).") from None
    except Exception as exc:  # numpy parses the header with ast: ValueError, SyntaxError, TokenError, EOFError, ...
        raise DamagedIndexError(f"{path} is not a readable .npy array ({type(exc).__name__}: {exc}).") from None
    if fortran and len(shape) > 1:
        raise DamagedIndexError(f"{path}: Fortran-ordered arrays are not supported")
    size = path.stat().st_size
    if offset + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize != size:
        raise DamagedIndexError(f"{path} holds {size} bytes, not the {shape} {dtype} array its header describes.")
    return dtype, shape, offset


class NpyFile:
    """A one-dimensional ``.npy`` file, open for reading parts of it with bounded memory.

    Args:
        path: The file.
    """

    def __init__(self, path: Path):
        self.path = path
        self.dtype, shape, self._data_offset = npy_header(path)
        if len(shape) != 1:
            raise ValueError(f"{path}: expected a one-dimensional array, got shape {shape}")
        self._length = int(shape[0])
        self._map: mmap.mmap | None = None
        self.array = np.zeros(0, dtype=self.dtype)
        if self._length:
            with open(path, "rb") as handle:
                self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            self.array = np.frombuffer(self._map, dtype=self.dtype, count=self._length, offset=self._data_offset)
            """The whole array, memory-mapped: read it through :meth:`read` and :meth:`take_windows`, or call
            :meth:`release` after touching it."""

    def __len__(self) -> int:
        return self._length

    def release(self, start: int = 0, stop: int | None = None) -> None:
        """Unmap the pages of elements ``[start, stop)`` from this process (the file's page cache keeps them)."""
        if self._map is None or not hasattr(self._map, "madvise"):
            return
        stop = self._length if stop is None else min(stop, self._length)
        begin = (self._data_offset + max(start, 0) * self.dtype.itemsize) // _PAGE * _PAGE
        end = min(self._data_offset + stop * self.dtype.itemsize, len(self._map))
        if end > begin:
            self._map.madvise(mmap.MADV_DONTNEED, begin, end - begin)

    def read(self, start: int, stop: int) -> np.ndarray:
        """A copy of elements ``[start, stop)`` (clipped to the array)."""
        start, stop = max(int(start), 0), min(int(stop), self._length)
        values = self.array[start:stop].copy() if stop > start else np.zeros(0, dtype=self.dtype)
        self.release(start, stop)
        return values

    def take(self, indices: np.ndarray) -> np.ndarray:
        """The elements at ``indices`` (any order, repeats allowed)."""
        return self.take_windows(indices, 1)[:, 0] if len(indices) else np.zeros(0, dtype=self.dtype)

    def take_windows(self, starts: np.ndarray, width: int) -> np.ndarray:
        """``(len(starts), width)``: the elements ``[s, s + width)`` for each start (zeros past the end)."""
        starts = np.asarray(starts, dtype=np.int64)
        out = np.zeros((len(starts), width), dtype=self.dtype)
        if not len(starts):
            return out
        order = np.argsort(starts, kind="stable")
        ordered = starts[order]
        columns = np.arange(width, dtype=np.int64)
        for first, stop in self.spans(ordered, width):
            rows = order[first:stop]
            where = ordered[first:stop, None] + columns
            if int(ordered[stop - 1]) + width <= self._length:
                out[rows] = self.array[where]
            else:  # windows running past the end of the array
                part = out[rows]
                inside = where < self._length
                part[inside] = self.array[where[inside]]
                out[rows] = part
            self.release(int(ordered[first]), int(ordered[stop - 1]) + width)
        return out

    def spans(self, ordered: np.ndarray, width: int = 1) -> list[tuple[int, int]]:
        """``[first, stop)`` ranges of sorted element positions that together touch at most :data:`RELEASE_BYTES`
        of the file (counted in 2 MiB regions, the most one page fault maps)."""
        if not len(ordered):
            return []
        region = (self._data_offset + ordered * self.dtype.itemsize) // _REGION
        span_regions = -(-width * self.dtype.itemsize // _REGION) + 1  # a window may reach into the next regions
        distinct = np.zeros(len(ordered), dtype=np.int64)
        distinct[1:] = np.cumsum(region[1:] != region[:-1])
        group = distinct * span_regions // max(RELEASE_BYTES // _REGION, 1)
        bounds = [0, *(np.flatnonzero(group[1:] != group[:-1]) + 1).tolist(), len(ordered)]
        return list(zip(bounds[:-1], bounds[1:], strict=True))

    def read_ranges(self, starts: np.ndarray, stops: np.ndarray) -> list[np.ndarray]:
        """Copies of elements ``[starts[k], stops[k])`` for each ``k``."""
        starts, stops = np.asarray(starts, dtype=np.int64), np.asarray(stops, dtype=np.int64)
        parts = [np.zeros(0, dtype=self.dtype)] * len(starts)
        order = np.argsort(starts, kind="stable")
        for first, stop in self.spans(starts[order]):
            rows = order[first:stop].tolist()
            for row in rows:
                parts[row] = self.array[int(starts[row]) : int(stops[row])].copy()
                if stops[row] - starts[row] > RELEASE_BYTES // self.dtype.itemsize:  # a long range on its own
                    self.release(int(starts[row]), int(stops[row]))
            self.release(int(starts[rows[0]]), int(stops[rows].max()))
        return parts

    def searchsorted(self, value: int, side: str = "left") -> int:
        """``np.searchsorted`` of one value in the (sorted) array."""
        found = int(np.searchsorted(self.array, value, side=side))  # type: ignore[call-overload]
        self.release()
        return found
