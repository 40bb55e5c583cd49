"""Reconciling the features of dataset splits that are combined into one (``split.jsonnet`` re-splitting)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from genbench._core.errors import DataLoadError

if TYPE_CHECKING:
    import datasets


def reconcile_features(splits: Mapping[str, datasets.Dataset], *, where: str) -> list[datasets.Dataset]:
    """The given splits, in order, cast where needed so that their features agree.

    Differences that lose nothing are reconciled: a ``ClassLabel`` and integers that are valid label ids become
    the ``ClassLabel``; integer and float values become ``float64``; a null column takes the other type. A column
    missing from some splits is left alone (``concatenate_datasets`` fills it with nulls).

    Args:
        splits: Split name to dataset.
        where: What combines them, for error messages (``"split.jsonnet: split 'test'"``).

    Returns:
        The datasets in the order of ``splits``; those whose features already agree are returned unchanged.

    Raises:
        DataLoadError: A column's features differ in a way that cannot be reconciled (e.g. a ``ClassLabel`` and
            strings, two ``ClassLabel``s with different names), or integers are not valid ids of a ``ClassLabel``.

    >>> from datasets import ClassLabel, Dataset, Features
    >>> labels = Features({"label": ClassLabel(names=["neg", "pos"])})
    >>> train = Dataset.from_dict({"label": [0, 1]}, features=labels)
    >>> test = Dataset.from_dict({"label": [1]})
    >>> [split.features["label"] for split in reconcile_features({"train": train, "test": test}, where="test")]
    [ClassLabel(names=['neg', 'pos']), ClassLabel(names=['neg', 'pos'])]
    """
    names = list(splits)
    features = [splits[name].features for name in names]
    if all(f == features[0] for f in features[1:]):
        return [splits[name] for name in names]
    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for name, split_features in zip(names, features, strict=True):
        for column, feature in split_features.items():
            if column not in merged:
                merged[column], origin[column] = feature, name
                continue
            combined = _merge_feature(merged[column], feature)
            if combined is None:
                raise DataLoadError(
                    f"{where} combines examples of {origin[column]!r} and {name!r}, "
                    f"but their field {column!r} differs ({merged[column]} in {origin[column]!r}, {feature} in "
                    f"{name!r}) and cannot be reconciled; draw each split from sources with the same features, or "
                    "cast them in the task's data."
                )
            merged[column] = combined
    parts = []
    for name in names:
        part = splits[name]
        if any(feature != merged[column] for column, feature in part.features.items()):
            for column in part.column_names:
                _check_labels_fit(part, column, merged[column], name, where)
            part = _cast(part, {column: merged[column] for column in part.column_names})
        parts.append(part)
    return parts


def _cast(part: datasets.Dataset, features: dict[str, Any]) -> datasets.Dataset:
    """``part`` with ``features``, cast at the Arrow level.

    Not ``Dataset.cast``/``cast_column``: for these features they run a ``map`` that writes a cache file next to
    a dataset loaded from disk (inside the user's data folder) and shows a progress bar.
    """
    import hashlib

    from datasets import Dataset, DatasetInfo, Features
    from datasets.table import InMemoryTable, table_cast

    target = Features(features)
    table = table_cast(part.with_format("arrow")[:], target.arrow_schema)
    fingerprint = hashlib.sha256(f"{part._fingerprint}|cast|{target!r}".encode()).hexdigest()[:16]
    return Dataset(InMemoryTable(table), info=DatasetInfo(features=target), split=part.split, fingerprint=fingerprint)


def _merge_feature(first: Any, second: Any) -> Any | None:
    """A feature both can be cast to without losing information, or None."""
    from datasets import ClassLabel, Value

    if first == second:
        return first
    for one, other in ((first, second), (second, first)):
        if isinstance(one, Value) and one.dtype == "null":
            return other
        if isinstance(one, ClassLabel) and isinstance(other, Value) and other.dtype.startswith(("int", "uint")):
            return one
    if isinstance(first, Value) and isinstance(second, Value):
        numeric = ("int", "uint", "float")
        if first.dtype.startswith(numeric) and second.dtype.startswith(numeric):
            return Value("float64")
    return None


def _check_labels_fit(part: datasets.Dataset, column: str, feature: Any, name: str, where: str) -> None:
    """Integers cast to a ``ClassLabel`` must be valid label ids (``datasets`` does not check)."""
    import pyarrow.compute as pc
    from datasets import ClassLabel

    if not isinstance(feature, ClassLabel) or isinstance(part.features[column], ClassLabel):
        return
    bounds = pc.min_max(part.with_format("arrow")[column]).as_py()
    low, high = bounds["min"], bounds["max"]
    if low is not None and (low < -1 or high >= feature.num_classes):
        raise DataLoadError(
            f"{where} combines {name!r}, whose field {column!r} holds integers "
            f"{low}..{high}, with a ClassLabel of {feature.num_classes} classes ({feature.names}); the integers "
            "are not valid label ids."
        )
