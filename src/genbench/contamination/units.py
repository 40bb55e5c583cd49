"""Training units as byte ranges of Arrow buffers: the texts of a table's units, with the row and turn of each.

What a unit is (a message passing the filter, or a row's text field) is described in
:mod:`~genbench.contamination.sources`. For the one-shot scan this module finds the units of a table without a
Python string per unit: each unit is a byte range of its column's data buffer, found with numpy on the Arrow
buffers (list offsets, validity bitmaps, string offsets). Columns of other types than strings (a text field holding
numbers or lists) are converted with pyarrow.compute first, as :mod:`~genbench.contamination.sources` does.

>>> import pyarrow.json as paj, pyarrow as pa
>>> line = (b'{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}, '
...         b'{"role": "user", "content": "Bye"}]}')
>>> table = paj.read_json(pa.BufferReader(line))
>>> units = unit_spans(table, UnitSpec())
>>> [units.text(u) for u in range(len(units))], units.rows.tolist(), units.turns.tolist()
(['Hi', 'Bye'], [0, 0], [0, 2])
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench.contamination.sources import UnitSpec, check_unit_schema
from genbench.contamination.token_keys import string_spans

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass
class UnitSpans:
    """The units of a table.

    Attributes:
        data: The bytes holding the texts (a ``pyarrow.Buffer`` or ``bytes``).
        starts: Where each unit's text starts in ``data``.
        ends: Where it ends.
        rows: The row of each unit in the table.
        turns: The message position of each unit in its row (``-1`` for a text field).
        column_type: The type of the column the units come from.
    """

    data: Any
    starts: np.ndarray
    ends: np.ndarray
    rows: np.ndarray
    turns: np.ndarray
    column_type: Any

    def __len__(self) -> int:
        return len(self.starts)

    def text(self, unit: int) -> str:
        return bytes(memoryview(self.data)[int(self.starts[unit]) : int(self.ends[unit])]).decode("utf-8")


def unit_spans(table: pa.Table, spec: UnitSpec, name: str = "the training data") -> UnitSpans:
    """The units of ``table``.

    Raises:
        ContaminationError: the table lacks the field ``spec`` names, or it holds the wrong type.
    """
    import pyarrow as pa

    check_unit_schema(name, table.schema, spec)
    column_name = spec.text_field if spec.text_field is not None else spec.messages_field
    assert column_name is not None
    column = table.column(column_name)
    chunk = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if spec.text_field is not None:
        texts = chunk if pa.types.is_string(chunk.type) else _as_string(chunk)
        data, starts, ends = string_spans(texts)
        rows = np.arange(len(texts), dtype=np.int64)
        return UnitSpans(data, starts, ends, rows, np.full(len(texts), -1, dtype=np.int32), column.type)
    return _message_spans(chunk, spec, column.type)


def _as_string(array: pa.Array) -> pa.Array:
    from genbench.contamination.sources import _as_text

    return _as_text(array)


def _valid(array: pa.Array) -> np.ndarray:
    """The array's validity as booleans."""
    bitmap = array.buffers()[0]
    if bitmap is None:
        return np.ones(len(array), dtype=bool)
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little")
    return bits[array.offset : array.offset + len(array)].astype(bool)


def _equals(texts: pa.Array, value: str) -> np.ndarray:
    """Whether each string equals ``value`` (nulls never do)."""
    data, starts, ends = string_spans(texts)
    wanted = np.frombuffer(value.encode("utf-8"), dtype=np.uint8)
    equal = (ends - starts) == len(wanted)
    equal &= _valid(texts)
    if len(wanted) and equal.any():
        raw = np.frombuffer(data, dtype=np.uint8)
        candidates = np.flatnonzero(equal)
        same = (raw[starts[candidates, None] + np.arange(len(wanted))] == wanted).all(axis=1)
        equal[candidates[~same]] = False
    return equal


def _message_spans(lists: pa.Array, spec: UnitSpec, column_type: Any) -> UnitSpans:
    import pyarrow as pa

    offsets = np.frombuffer(lists.buffers()[1], dtype=np.int32, count=len(lists) + 1, offset=lists.offset * 4)
    offsets = offsets.astype(np.int64)
    messages = lists.values
    first, last = int(offsets[0]), int(offsets[-1])
    messages = messages.slice(first, last - first)
    keep = _valid(messages)
    # Messages under a null list are not messages (Arrow lets a null list keep a range of values).
    row = np.searchsorted(offsets, np.arange(first, last, dtype=np.int64), side="right") - 1
    keep &= _valid(lists)[row]
    texts = messages.field(spec.query_field)
    if spec.filter is not None:
        key, value = spec.filter
        values = messages.field(key)
        keep &= _equals(values if pa.types.is_string(values.type) else _as_string(values), value)
    if not pa.types.is_string(texts.type):
        texts = _as_string(texts)
    data, starts, ends = string_spans(texts)
    kept = np.flatnonzero(keep)
    rows = row[kept]
    turns = (kept + first - offsets[rows]).astype(np.int32)
    return UnitSpans(data, starts[kept], ends[kept], rows, turns, column_type)


@functools.lru_cache(maxsize=16)
def explicit_schema(spec: UnitSpec) -> pa.Schema | None:
    """The only columns the units of ``spec`` need, typed, for pyarrow's JSON reader (``None`` for a text field,
    whose type varies: strings, numbers or lists)."""
    import pyarrow as pa

    if spec.text_field is not None or spec.messages_field is None:
        return None
    keys = dict.fromkeys([spec.query_field, *([spec.filter[0]] if spec.filter else [])])
    message = pa.struct([(key, pa.string()) for key in keys])
    return pa.schema([(spec.messages_field, pa.list_(message))])
