"""Test sets from the registry and from datasets; dataset-mixer configs; index names."""

from __future__ import annotations

from pathlib import Path

import pytest

from genbench.contamination import ContaminationError, TestSet, task_test_sets
from genbench.contamination._embedded import EmbeddedBackend
from genbench.contamination._training_data import index_name, read_dataset_mixer


def test_registry_test_sets_use_the_input_field():
    ner, negation = task_test_sets(["ner_unseen_entities"]), task_test_sets(["negation_consistency"])
    (test_set,) = ner
    assert test_set.name == "ner_unseen_entities" and test_set.fields == ("input",)
    first = test_set.rows[0][0]
    assert isinstance(first, str) and first.startswith("Felix Brandt visited")  # tokens joined with spaces
    assert [t.name for t in negation] == ["negation_consistency:affirmative", "negation_consistency:negated"]


def test_a_test_set_has_fields():
    assert TestSet.from_texts("t", ["a", 3]).query(1) == {"text": "3"}  # type: ignore[list-item]
    with pytest.raises(ContaminationError, match="no fields"):
        TestSet("t", (), [])


def test_dataset_mixer_list_form_and_relative_paths(tmp_path: Path):
    (tmp_path / "local.jsonl").write_text("{}\n", encoding="utf-8")
    config = tmp_path / "config.yaml"
    config.write_text("dataset_mixer_list: [org/a, 1.0, local.jsonl, 0.5]\n", encoding="utf-8")
    assert read_dataset_mixer(config) == ["org/a", str(tmp_path / "local.jsonl")]
    config.write_text("dataset_mixer: [", encoding="utf-8")
    with pytest.raises(ContaminationError, match="not valid YAML"):
        read_dataset_mixer(config)
    with pytest.raises(ContaminationError, match="Could not read"):
        read_dataset_mixer(tmp_path / "missing.yaml")


def test_index_names_are_safe_and_distinct(tmp_path: Path):
    one, two = tmp_path / "a" / "train.jsonl", tmp_path / "b" / "train.jsonl"
    for path in (one, two):
        path.parent.mkdir()
        path.write_text("{}\n", encoding="utf-8")
    assert index_name(str(one)) != index_name(str(two))
    assert index_name(str(one)).startswith("train-")
    assert index_name("org/name with spaces") == "org__name_with_spaces"
    assert len(index_name("x" * 300)) <= 80
    assert EmbeddedBackend.index_name("org/data", "text") == "org__data.text"


def test_line_start_check_agrees_with_the_pattern() -> None:
    """The numpy check of line starts gives the regex's answer on every text, odd whitespace included."""
    import random

    from genbench.contamination._training_data import _lines_start_objects
    from genbench.data._jsonl import NON_OBJECT_LINE

    rng = random.Random(0)
    alphabet = [b"{", b"}", b"\n", b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"a", b"1", b"[", b'"']
    verdicts = set()
    for _ in range(20_000):
        text = b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        expected = NON_OBJECT_LINE.search(text) is None
        assert _lines_start_objects(text, NON_OBJECT_LINE) == expected, text
        verdicts.add(expected)
    assert verdicts == {True, False}
    assert _lines_start_objects(b'{"a": 1}\n\n{"a": 2}\n', NON_OBJECT_LINE)
    assert not _lines_start_objects(b'{"a": 1}\nnull\n', NON_OBJECT_LINE)
    assert not _lines_start_objects(b'{"a": 1}\n  7\n', NON_OBJECT_LINE)
