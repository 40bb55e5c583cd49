"""Column-level formatting of datasets: ``field_mapping`` and the ``_genbench_idx`` column.

These work on Arrow tables directly (no per-row Python calls), which keeps loading fast for large splits; the
``*_table`` functions are the same steps over plain ``pyarrow`` tables, for paths that must not import ``datasets``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from genbench._core.errors import PreparationError
from genbench._core.vocabulary import TaskType

if TYPE_CHECKING:
    import pyarrow as pa
    from datasets import Dataset

INDEX_COLUMN = "_genbench_idx"


def _arrow_table(dataset: Dataset):
    # `with_format("arrow")[:]` honours an indices mapping (after `select`), unlike `dataset.data`.
    return dataset.with_format("arrow")[:]


def _derived_fingerprint(dataset: Dataset, step: str) -> str:
    """The fingerprint of ``dataset`` after ``step``, derived as ``datasets`` derives those of its transforms (from
    the parent's and the transform's description), without hashing the data again: ``Dataset(table)`` without a
    fingerprint pickles and hashes its whole table, which was a quarter of a first ``get_prepared_datasets``."""
    import hashlib

    return hashlib.sha256(f"{dataset._fingerprint}\0{step}".encode()).hexdigest()[:16]


def _from_arrow(table, features, fingerprint: str) -> Dataset:
    from datasets import Dataset, DatasetInfo, Features
    from datasets.table import InMemoryTable

    known = Features({name: features[name] for name in table.column_names if name in features})
    try:
        info = DatasetInfo(features=Features({**Features.from_arrow_schema(table.schema), **known}))
        return Dataset(InMemoryTable(table), info=info, fingerprint=fingerprint)
    except (ValueError, TypeError):
        return Dataset(InMemoryTable(table), fingerprint=fingerprint)


def apply_field_mapping(
    dataset: Dataset, field_mapping: Mapping[Any, str] | None, task_type: TaskType, *, split: str
) -> Dataset:
    """Copy the mapped source columns to ``input``/``target``/``target_options``, keeping the other columns.

    For a multiple-choice task without ``target_options`` whose target is a ``ClassLabel``, the label names
    become every example's options.

    Raises:
        PreparationError: a mapped source field is not a column of the split.

    >>> from datasets import Dataset
    >>> ds = Dataset.from_dict({"sentence": ["a", "b"], "label": [0, 1]})
    >>> out = apply_field_mapping(ds, {"input": "sentence", "target": "label"}, TaskType.FREE_FORM, split="test")
    >>> out.column_names, list(out["input"])
    (['sentence', 'label', 'input', 'target'], ['a', 'b'])
    """
    import pyarrow as pa
    from datasets import ClassLabel, List, Value

    features = dataset.features.copy()
    table = map_fields_table(_arrow_table(dataset), field_mapping, split=split)
    for field, source in (field_mapping or {}).items():
        features[field] = dataset.features[source]
    if (
        TaskType(task_type) is TaskType.MULTIPLE_CHOICE
        and "target_options" not in table.column_names
        and isinstance(features.get("target"), ClassLabel)
    ):
        names = features["target"].names
        table = table.append_column("target_options", pa.array([names] * table.num_rows, pa.list_(pa.string())))
        features["target_options"] = List(Value("string"))
    mapping = sorted((str(k), v) for k, v in (field_mapping or {}).items())
    step = f"genbench.apply_field_mapping({mapping}, {task_type})"
    return _from_arrow(table, features, _derived_fingerprint(dataset, step))


def map_fields_table(table: pa.Table, field_mapping: Mapping[Any, str] | None, *, split: str) -> pa.Table:
    """:func:`apply_field_mapping` over a ``pyarrow`` table, for the light paths that must not import ``datasets``.

    A plain table has no ``ClassLabel`` features, so no label names become ``target_options`` here.

    Raises:
        PreparationError: a mapped source field is not a column of the split.

    >>> import pyarrow as pa
    >>> map_fields_table(pa.table({"q": ["a"]}), {"input": "q"}, split="test").column_names
    ['q', 'input']
    """
    if not field_mapping:
        return table
    missing = {f: s for f, s in field_mapping.items() if s not in table.column_names}
    if missing:
        details = "; ".join(f"field_mapping.{f} names {s!r}" for f, s in missing.items())
        raise PreparationError(
            f"Split {split!r} has no such column: {details}. Available columns: {', '.join(table.column_names)}."
        )
    mapped = {field: table.column(source) for field, source in field_mapping.items()}
    for field, column in mapped.items():
        if field in table.column_names:
            table = table.set_column(table.column_names.index(field), field, column)
        else:
            table = table.append_column(field, column)
    return table


def index_column_table(table: pa.Table) -> pa.Table:
    """:func:`with_index_column` over a ``pyarrow`` table.

    >>> import pyarrow as pa
    >>> index_column_table(pa.table({"input": ["x", "y"]})).column(INDEX_COLUMN).to_pylist()
    [0, 1]
    """
    import numpy as np

    from genbench.data._arrow_values import integer_array

    index = integer_array(np.arange(table.num_rows))
    if INDEX_COLUMN in table.column_names:
        return table.set_column(table.column_names.index(INDEX_COLUMN), INDEX_COLUMN, index)
    return table.append_column(INDEX_COLUMN, index)


def with_index_column(dataset: Dataset) -> Dataset:
    """Add (or replace) the ``_genbench_idx`` column: 0..n-1 in the split's order.

    >>> from datasets import Dataset
    >>> list(with_index_column(Dataset.from_dict({"input": ["x", "y"]}))[INDEX_COLUMN])
    [0, 1]
    """
    from datasets import Value

    table = index_column_table(_arrow_table(dataset))
    features = dataset.features.copy()
    features[INDEX_COLUMN] = Value("int64")
    return _from_arrow(table, features, _derived_fingerprint(dataset, "genbench.with_index_column"))
