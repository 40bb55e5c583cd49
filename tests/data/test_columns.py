"""Column formatting keeps ``datasets``' fingerprint contract: derived from the parent and the step, no re-hashing."""

from __future__ import annotations

from genbench._core.vocabulary import TaskType
from genbench.data._columns import INDEX_COLUMN, apply_field_mapping, with_index_column


def test_derived_datasets_get_deterministic_fingerprints_that_name_the_step():
    from datasets import Dataset

    parent = Dataset.from_dict({"sentence": ["a", "b"], "label": ["x", "y"]})
    mapping = {"input": "sentence", "target": "label"}
    first = apply_field_mapping(parent, mapping, TaskType.FREE_FORM, split="test")
    again = apply_field_mapping(parent, dict(reversed(list(mapping.items()))), TaskType.FREE_FORM, split="test")
    other = apply_field_mapping(parent, {"input": "label", "target": "sentence"}, TaskType.FREE_FORM, split="test")
    assert first._fingerprint == again._fingerprint  # the same step on the same data
    assert len({parent._fingerprint, first._fingerprint, other._fingerprint}) == 3
    indexed = with_index_column(first)
    assert indexed._fingerprint not in (first._fingerprint, with_index_column(other)._fingerprint)
    assert list(indexed[INDEX_COLUMN]) == [0, 1] and list(indexed["input"]) == ["a", "b"]
    changed = Dataset.from_dict({"sentence": ["a", "c"], "label": ["x", "y"]})
    assert apply_field_mapping(changed, mapping, TaskType.FREE_FORM, split="test")._fingerprint != first._fingerprint
