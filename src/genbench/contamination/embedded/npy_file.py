"""Parts of a ``.npy`` file, read with ``pread`` instead of a memory map.

An index's arrays are larger than the memory a search should hold, and a memory map is no help there: every page it
touches counts in the process's resident memory, and the kernel maps the file's cached neighbours with each page
fault (fault-around, 64 KiB and more), so a few thousand random lookups map most of a file. Reading just the
elements needed into ordinary arrays keeps the memory to what is read. numpy and pyarrow read whole files, slices
or memory maps only; this small reader adds the scattered reads (grouped by segment of the file: one read of the
segment where many elements fall in it, one ``pread`` per element elsewhere).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

SEGMENT_ITEMS = 1 << 16
"""Elements per segment of the file when gathering scattered elements."""
DENSE = 16
"""A segment holding at least this many wanted elements is read whole (else one read per element)."""


def npy_header(path: Path) -> tuple[np.dtype[Any], tuple[int, ...], int]:
    """The dtype, shape and data offset of a (C-order) ``.npy`` file, without reading its data."""
    with open(path, "rb") as handle:
        version = np.lib.format.read_magic(handle)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read_header(handle)
        if fortran and len(shape) > 1:
            raise ValueError(f"{path}: Fortran-ordered arrays are not supported")
        return dtype, shape, handle.tell()


class NpyFile:
    """A one-dimensional ``.npy`` file, open for reading parts of it.

    Args:
        path: The file.
    """

    def __init__(self, path: Path):
        self.path = path
        self.dtype, shape, self._data_offset = npy_header(path)
        if len(shape) != 1:
            raise ValueError(f"{path}: expected a one-dimensional array, got shape {shape}")
        self._length = int(shape[0])
        self._fd = os.open(path, os.O_RDONLY)

    def __len__(self) -> int:
        return self._length

    def __del__(self) -> None:
        fd = getattr(self, "_fd", None)
        if fd is not None:
            os.close(fd)
            self._fd = None

    def read(self, start: int, stop: int) -> np.ndarray:
        """Elements ``[start, stop)`` (clipped to the array)."""
        start, stop = max(int(start), 0), min(int(stop), self._length)
        out = np.empty(max(stop - start, 0), dtype=self.dtype)
        if len(out):
            view = memoryview(out).cast("B")
            done, offset = 0, self._data_offset + start * self.dtype.itemsize
            while done < len(view):
                got = os.preadv(self._fd, [view[done:]], offset + done)
                if got <= 0:
                    raise OSError(f"{self.path}: unexpected end of file")
                done += got
        return out

    def take(self, indices: np.ndarray) -> np.ndarray:
        """The elements at ``indices`` (any order, repeats allowed)."""
        return self.take_windows(indices, 1)[:, 0] if len(indices) else np.zeros(0, dtype=self.dtype)

    def take_windows(self, starts: np.ndarray, width: int, fill: Any = 0) -> np.ndarray:
        """``(len(starts), width)``: the elements ``[s, s + width)`` for each start (``fill`` past the end)."""
        starts = np.asarray(starts, dtype=np.int64)
        out = np.full((len(starts), width), fill, dtype=self.dtype)
        if not len(starts):
            return out
        order = np.argsort(starts, kind="stable")
        ordered = starts[order]
        segment = ordered // SEGMENT_ITEMS
        bounds = [0, *(np.flatnonzero(segment[1:] != segment[:-1]) + 1).tolist(), len(ordered)]
        columns = np.arange(width, dtype=np.int64)
        for first, stop in zip(bounds[:-1], bounds[1:], strict=True):
            part = ordered[first:stop]
            if stop - first >= DENSE:
                begin = int(part[0])
                values = self.read(begin, int(part[-1]) + width)
                where = (part - begin)[:, None] + columns
                inside = where < len(values)
                rows = out[order[first:stop]]
                rows[inside] = values[where[inside]]
                out[order[first:stop]] = rows
            else:
                for row, start in zip(order[first:stop].tolist(), part.tolist(), strict=True):
                    values = self.read(start, start + width)
                    out[row, : len(values)] = values
        return out

    def searchsorted(self, value: int, side: str = "left") -> int:
        """``np.searchsorted`` of one value in the (sorted) array, by binary search over single reads."""
        low, high = 0, self._length
        while low < high:
            middle = (low + high) // 2
            element = self.read(middle, middle + 1)[0]
            if element < value or (side == "right" and element == value):
                low = middle + 1
            else:
                high = middle
        return low
