"""Training units as Arrow columns: the texts of a table's units, with the row and turn of each.

What a unit is (a message passing the filter, or a row's text field) is described in
:mod:`~genbench.contamination.sources`; this module cuts an Arrow table into units without making a Python string
per unit, for the one-shot scan.

>>> import pyarrow as pa
>>> table = pa.table({"messages": [[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"},
...                                 {"role": "user", "content": "Bye"}]]})
>>> texts, rows, turns, _ = unit_columns(table, UnitSpec())
>>> texts.to_pylist(), rows.tolist(), turns.tolist()
(['Hi', 'Bye'], [0, 0], [0, 2])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench.contamination.sources import UnitSpec, _as_text, check_unit_spec

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass
class _Rows:
    """What :func:`check_unit_spec` reads of a dataset: its name and schema."""

    name: str
    schema: Any


def unit_columns(
    table: pa.Table, spec: UnitSpec, name: str = "the training data"
) -> tuple[pa.Array, np.ndarray, np.ndarray, pa.DataType]:
    """The units of ``table``: their texts (a string array), rows (in the table), turns, and the column's type.

    Raises:
        ContaminationError: the table lacks the field ``spec`` names, or it holds the wrong type.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    check_unit_spec(_Rows(name, table.schema), spec)  # type: ignore[arg-type]
    column_name = spec.text_field if spec.text_field is not None else spec.messages_field
    assert column_name is not None
    column = table.column(column_name)
    texts: list[pa.Array] = []
    rows: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    turns: list[np.ndarray] = [np.zeros(0, dtype=np.int32)]
    row_offset = 0
    for chunk in column.chunks:  # chunk by chunk: combining chunks would copy the table
        if spec.text_field is not None:
            texts.append(_as_text(chunk))
            rows.append(np.arange(len(chunk), dtype=np.int64) + row_offset)
            turns.append(np.full(len(chunk), -1, dtype=np.int32))
        else:
            chunk_texts, chunk_rows, chunk_turns = _message_columns(chunk, spec)
            texts.append(chunk_texts)
            rows.append(chunk_rows + row_offset)
            turns.append(chunk_turns)
        row_offset += len(chunk)
    joined = pa.concat_arrays(texts) if texts else pa.array([], type=pa.string())
    if not pa.types.is_string(joined.type):
        joined = pc.cast(joined, pa.string())
    return joined, np.concatenate(rows), np.concatenate(turns), column.type


def _message_columns(lists: pa.Array, spec: UnitSpec) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    import pyarrow.compute as pc

    messages = lists.flatten()
    parents = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    positions = np.arange(len(parents), dtype=np.int64)
    first_of_row = np.ones(len(parents), dtype=bool)
    first_of_row[1:] = parents[1:] != parents[:-1]
    turns = positions - np.maximum.accumulate(np.where(first_of_row, positions, 0))
    keep = messages.is_valid()
    if spec.filter is not None:
        key, value = spec.filter
        keep = pc.and_(keep, pc.fill_null(pc.equal(_as_text(messages.field(key)), value), False))
    keep_np = keep.to_numpy(zero_copy_only=False)
    texts = _as_text(messages.field(spec.query_field).filter(keep))
    return texts, parents[keep_np], turns[keep_np].astype(np.int32)


def lines_start_objects(data: bytes) -> bool:
    """Whether every line of ``data`` opens a JSON object (see ``data.jsonl.NON_OBJECT_LINE``), fast."""
    from genbench.contamination.sources import _lines_start_objects
    from genbench.data.jsonl import NON_OBJECT_LINE

    return _lines_start_objects(data, NON_OBJECT_LINE)
