"""Column-level formatting of datasets: ``field_mapping`` and the ``_genbench_idx`` column.

These work on Arrow tables directly (no per-row Python calls), which keeps loading fast for large splits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from genbench.api import TaskType
from genbench.errors import PreparationError

if TYPE_CHECKING:
    from datasets import Dataset

INDEX_COLUMN = "_genbench_idx"


def _arrow_table(dataset: Dataset):
    # `with_format("arrow")[:]` honours an indices mapping (after `select`), unlike `dataset.data`.
    return dataset.with_format("arrow")[:]


def _from_arrow(table, features) -> Dataset:
    from datasets import Dataset, DatasetInfo, Features
    from datasets.table import InMemoryTable

    known = Features({name: features[name] for name in table.column_names if name in features})
    try:
        info = DatasetInfo(features=Features({**Features.from_arrow_schema(table.schema), **known}))
        return Dataset(InMemoryTable(table), info=info)
    except (ValueError, TypeError):
        return Dataset(InMemoryTable(table))


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
    table = _arrow_table(dataset)
    if field_mapping:
        missing = {f: s for f, s in field_mapping.items() if s not in table.column_names}
        if missing:
            details = "; ".join(f"field_mapping.{f} names {s!r}" for f, s in missing.items())
            raise PreparationError(
                f"Split {split!r} has no such column: {details}. Available columns: {', '.join(table.column_names)}."
            )
        mapped = {field: table.column(source) for field, source in field_mapping.items()}
        for field, source in field_mapping.items():
            features[field] = dataset.features[source]
        for field, column in mapped.items():
            if field in table.column_names:
                table = table.set_column(table.column_names.index(field), field, column)
            else:
                table = table.append_column(field, column)
    if (
        TaskType(task_type) is TaskType.MULTIPLE_CHOICE
        and "target_options" not in table.column_names
        and isinstance(features.get("target"), ClassLabel)
    ):
        names = features["target"].names
        table = table.append_column("target_options", pa.array([names] * table.num_rows, pa.list_(pa.string())))
        features["target_options"] = List(Value("string"))
    return _from_arrow(table, features)


def with_index_column(dataset: Dataset) -> Dataset:
    """Add (or replace) the ``_genbench_idx`` column: 0..n-1 in the split's order.

    >>> from datasets import Dataset
    >>> list(with_index_column(Dataset.from_dict({"input": ["x", "y"]}))[INDEX_COLUMN])
    [0, 1]
    """
    import pyarrow as pa
    from datasets import Value

    table = _arrow_table(dataset)
    index = pa.array(range(table.num_rows), pa.int64())
    if INDEX_COLUMN in table.column_names:
        table = table.set_column(table.column_names.index(INDEX_COLUMN), INDEX_COLUMN, index)
    else:
        table = table.append_column(INDEX_COLUMN, index)
    features = dataset.features.copy()
    features[INDEX_COLUMN] = Value("int64")
    return _from_arrow(table, features)
