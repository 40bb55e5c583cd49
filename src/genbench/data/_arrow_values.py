"""Arrow arrays from NumPy and Python values, and back, without pyarrow importing pandas.

pyarrow sends NumPy arrays and Python values (``pa.array``, ``pa.scalar``, a ``str`` passed to a compute function,
``Array.to_numpy``) through a probe for pandas objects that imports pandas (pyarrow 26, ``get_values`` in
``array.pxi``), which genbench's data and prompt code never needs. No pyarrow option turns that probe off, so the
conversions they need are written here, on Arrow buffers (zero-copy for numbers); they give what ``pa.array`` gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pyarrow as pa


def integer_array(values: npt.ArrayLike, dtype: npt.DTypeLike = np.int64) -> pa.Array:
    """A one-dimensional sequence of integers as an Arrow integer array of ``dtype`` (no nulls).

    >>> integer_array([3, 1, 2]).to_pylist(), integer_array(range(2), np.int32).type
    ([3, 1, 2], DataType(int32))
    """
    import pyarrow as pa

    data = np.ascontiguousarray(values, dtype=dtype)
    if data.ndim != 1:
        raise ValueError(f"expected a one-dimensional sequence of integers, got shape {data.shape}")
    return pa.Array.from_buffers(pa.from_numpy_dtype(data.dtype), len(data), [None, pa.py_buffer(data)])


def integers_to_numpy(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The values of an Arrow integer array without nulls as a read-only NumPy array of the same width.

    >>> import pyarrow as pa
    >>> integers_to_numpy(pa.chunked_array([[1, 2], [3]], pa.int32()))
    array([1, 2, 3], dtype=int32)
    """
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not pa.types.is_integer(array.type):
        raise TypeError(f"expected an integer array, got {array.type}")
    if array.null_count:
        raise ValueError("the array has nulls, which NumPy integers cannot hold")
    kind = "i" if pa.types.is_signed_integer(array.type) else "u"
    dtype = np.dtype(f"{kind}{array.type.bit_width // 8}")
    buffer = array.buffers()[1]
    if buffer is None or len(array) == 0:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(buffer, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def string_array(values: Sequence[str]) -> pa.Array:
    """Python strings as an Arrow ``string`` array (no nulls).

    >>> string_array(["Q: ", "é"]).to_pylist()
    ['Q: ', 'é']
    """
    import pyarrow as pa

    encoded = [value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(item) for item in encoded], out=offsets[1:])
    large = pa.Array.from_buffers(
        pa.large_string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )
    return large.cast(pa.string()) if offsets[-1] < 2**31 else large


def string_scalar(value: str) -> pa.Scalar:
    """A Python string as an Arrow ``string`` scalar, e.g. a separator for a compute function.

    >>> string_scalar("\\n\\n").as_py()
    '\\n\\n'
    """
    return string_array([value])[0]


def _bits(bitmap: Any, offset: int, count: int) -> np.ndarray:
    """``count`` bits of an Arrow bitmap buffer from bit ``offset``, as booleans."""
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little")
    return bits[offset : offset + count].astype(bool)


def valid_to_numpy(array: pa.Array) -> np.ndarray:
    """Which values of an Arrow array are not null, as NumPy booleans (read from the validity bitmap).

    >>> import pyarrow as pa
    >>> valid_to_numpy(pa.chunked_array([["a", None, "c"]]).chunk(0).slice(1)).tolist()
    [False, True]
    """
    bitmap = array.buffers()[0]
    if bitmap is None or array.null_count == 0:
        return np.ones(len(array), dtype=bool)
    return _bits(bitmap, array.offset, len(array))
