"""Training units as Arrow columns: which values of a table are units, with the row and turn of each.

The one implementation of what a unit is, for the index builds and the one-shot scan (:func:`unit_spans`: byte ranges
of the column's buffer, selected with numpy, with no Python string per unit and nothing that makes pyarrow import
pandas). See docs/contamination.md#what-is-matched-the-rules.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench.contamination._errors import ContaminationError
from genbench.contamination._token_keys import string_spans
from genbench.data._arrow_values import integer_array, integers_to_numpy, string_scalar, valid_to_numpy

if TYPE_CHECKING:
    import pyarrow as pa

    from genbench.contamination._training_data import UnitSpec


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


def unit_spans(table: pa.Table, spec: UnitSpec, name: str = "the training data", *, check: bool = True) -> UnitSpans:
    """The units of ``table``.

    Args:
        table: Rows of a training dataset.
        spec: What a unit is.
        name: The dataset's name, for errors.
        check: Check the table's schema (:func:`check_unit_schema`); without it a missing column or message key
            reads as nulls, as in a block of a dataset checked as a whole.

    Raises:
        ContaminationError: ``check`` and the table lacks the field ``spec`` names, or it holds the wrong type.

    >>> import pyarrow.json as paj, pyarrow as pa
    >>> line = (b'{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}, '
    ...         b'{"role": "user", "content": "Bye"}]}')
    >>> table = paj.read_json(pa.BufferReader(line))
    >>> from genbench.contamination._training_data import UnitSpec
    >>> units = unit_spans(table, UnitSpec())
    >>> [units.text(u) for u in range(len(units))], units.rows.tolist(), units.turns.tolist()
    (['Hi', 'Bye'], [0, 0], [0, 2])
    """

    if check:
        check_unit_schema(name, table.schema, spec)
    column_name = spec.text_field if spec.text_field is not None else spec.messages_field
    assert column_name is not None
    column = table_column(table, column_name)
    chunk = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if spec.text_field is not None:
        data, starts, ends = string_spans(chunk if _is_string(chunk.type) else as_text(chunk))
        rows = np.arange(len(chunk), dtype=np.int64)
        return UnitSpans(data, starts, ends, rows, np.full(len(chunk), -1, dtype=np.int32), column.type)
    chosen = select_messages(chunk, spec)
    if chosen is None:
        none = np.zeros(0, dtype=np.int64)
        return UnitSpans(b"", none, none.copy(), none.copy(), none.astype(np.int32), column.type)
    texts = message_field(chosen.messages, spec.query_field)
    data, starts, ends = string_spans(texts if _is_string(texts.type) else as_text(texts))
    return UnitSpans(data, starts[chosen.kept], ends[chosen.kept], chosen.rows, chosen.turns, column.type)


@dataclass
class MessageSelection:
    """The messages of a column chunk of message lists that are units.

    Attributes:
        messages: All messages of the chunk (a struct array), in order.
        kept: Indices of the units among them.
        rows: Each unit's row in the chunk.
        turns: Each unit's position in its row's messages.
    """

    messages: pa.Array
    kept: np.ndarray
    rows: np.ndarray
    turns: np.ndarray


def select_messages(lists: pa.Array, spec: UnitSpec) -> MessageSelection | None:
    """Which messages of ``lists`` (a chunk of the messages column) are units; ``None`` when it holds no messages
    (a block where the field is always null, or every list is empty).

    Raises:
        ContaminationError: the column holds something else than lists of messages (objects).
    """
    import pyarrow as pa

    if pa.types.is_null(lists.type) or (is_list(lists.type) and pa.types.is_null(lists.type.value_type)):
        return None
    if not is_list(lists.type) or not pa.types.is_struct(lists.type.value_type):
        raise ContaminationError(f"the field {spec.messages_field!r} holds {lists.type}, not a list of messages.")
    offsets = integers_to_numpy(lists.offsets).astype(np.int64)
    first, last = int(offsets[0]), int(offsets[-1])
    messages = lists.values.slice(first, last - first)
    row = np.searchsorted(offsets, np.arange(first, last, dtype=np.int64), side="right") - 1
    # Messages under a null list are not messages (Arrow lets a null list keep a range of values).
    keep = valid_to_numpy(messages) & valid_to_numpy(lists)[row]
    if spec.filter is not None:
        key, value = spec.filter
        values = message_field(messages, key)
        keep &= _equals(values if _is_string(values.type) else as_text(values), value)
    kept = np.flatnonzero(keep)
    rows = row[kept]
    return MessageSelection(messages, kept, rows, (kept + first - offsets[rows]).astype(np.int32))


def _equals(texts: pa.Array, value: str) -> np.ndarray:
    """Whether each string equals ``value``, a null counting as the empty string (as :func:`as_text` reads it), with
    numpy on the buffers: no pyarrow.compute kernel, whose first use costs the process about 10 MiB."""
    data, starts, ends = string_spans(texts)  # a null's span is empty
    wanted = np.frombuffer(value.encode("utf-8"), dtype=np.uint8)
    equal = (ends - starts) == len(wanted)
    if len(wanted) and equal.any():
        raw = np.frombuffer(data, dtype=np.uint8)
        candidates = np.flatnonzero(equal)
        same = (raw[starts[candidates, None] + np.arange(len(wanted))] == wanted).all(axis=1)
        equal[candidates[~same]] = False
    return equal


def message_texts(lists: pa.Array, spec: UnitSpec) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The units of a chunk of the messages column as Python strings, with their rows and turns (index builds)."""
    chosen = select_messages(lists, spec)
    if chosen is None:
        return [], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    texts = as_text(message_field(chosen.messages, spec.query_field)).take(integer_array(chosen.kept))
    return texts.to_pylist(), chosen.rows, chosen.turns


def table_column(table: pa.Table, name: str) -> pa.ChunkedArray:
    """A column; nulls where the table does not have it (a JSONL block where no row has the field)."""
    import pyarrow as pa

    if name in table.column_names:
        return table.column(name)
    return pa.chunked_array([pa.nulls(table.num_rows)])


def message_field(messages: pa.Array, key: str) -> pa.Array:
    """A field of the messages; nulls where no message of this block has the key."""
    import pyarrow as pa

    if messages.type.get_field_index(key) == -1:
        return pa.nulls(len(messages))
    return messages.field(key)


def as_text(array: pa.Array) -> pa.Array:
    """A string array (nulls as empty strings) from strings, lists of strings, or scalars."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if is_list(array.type):
        array = pc.binary_join(pc.cast(array, pa.list_(pa.string())), string_scalar(" "))
    elif not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        try:
            array = pc.cast(array, pa.string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise ContaminationError(f"Cannot read a text from values of type {array.type}: {exc}") from exc
    return pc.fill_null(array, string_scalar(""))


def _is_string(data_type: pa.DataType) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(data_type) or pa.types.is_large_string(data_type))


def is_list(data_type: pa.DataType) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_list(data_type) or pa.types.is_large_list(data_type))


def check_unit_schema(name: str, schema: pa.Schema, spec: UnitSpec) -> None:
    """Raise a clear error when the fields ``spec`` names are missing from ``schema`` (of the dataset ``name``)."""
    import pyarrow as pa

    columns = list(schema.names)
    field = spec.text_field if spec.text_field is not None else spec.messages_field
    if field not in columns:
        hint = "" if spec.text_field is not None else " (for datasets without messages use --text-field)"
        raise ContaminationError(f"The dataset {name!r} has no field {field!r}; its fields are {columns}{hint}.")
    column_type = schema.field(field).type
    if spec.text_field is not None:
        if not is_text_type(column_type):
            raise ContaminationError(
                f"The field {field!r} of {name!r} holds {column_type}: --text-field takes a field of texts "
                "(or numbers), or of lists of texts joined with spaces; nested lists and objects cannot be indexed. "
                "For chat messages use --messages-field."
            )
        return
    if not is_list(column_type) or not pa.types.is_struct(column_type.value_type):
        raise ContaminationError(
            f"The field {field!r} of {name!r} holds {column_type}, not a list of messages (objects); "
            "use --text-field for a plain text field."
        )
    keys = [column_type.value_type.field(i).name for i in range(column_type.value_type.num_fields)]
    wanted = [spec.query_field] + ([spec.filter[0]] if spec.filter else [])
    for key in wanted:
        if key not in keys:
            raise ContaminationError(
                f"The messages in {field!r} of {name!r} have no key {key!r}; their keys are {keys}."
            )


def is_text_type(column_type: pa.DataType) -> bool:
    """Whether a column of this type gives one text per row: strings or scalars, or lists of those."""
    import pyarrow as pa

    if is_list(column_type):
        column_type = column_type.value_type
    return not (
        pa.types.is_nested(column_type)
        or pa.types.is_dictionary(column_type)
        or pa.types.is_binary(column_type)
        or pa.types.is_large_binary(column_type)
    )


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
