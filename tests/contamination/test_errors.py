"""Bad input gives one clear genbench error."""

from __future__ import annotations

from pathlib import Path

import pytest

from genbench._core.errors import DataLoadError, GenBenchError
from genbench.contamination import ContaminationError, TestSet, build_index, dataset_test_set, search
from genbench.contamination._index_backend import SearchMode


def test_missing_messages_field_names_the_fields(tmp_path: Path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"conversation": [], "text": "x"}])
    with pytest.raises(ContaminationError, match=r"no field 'messages'; its fields are \['conversation', 'text'\]"):
        build_index(str(train), index_dir=tmp_path / "idx")


def test_missing_text_field(tmp_path: Path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"prompt": "x"}])
    with pytest.raises(ContaminationError, match="no field 'text'"):
        build_index(str(train), text_field="text", index_dir=tmp_path / "idx")


def test_missing_query_field_in_messages(tmp_path: Path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"messages": [{"role": "user", "value": "hi"}]}])
    with pytest.raises(ContaminationError, match=r"no key 'content'; their keys are \['role', 'value'\]"):
        build_index(str(train), index_dir=tmp_path / "idx")


def test_role_filter_matching_nothing_lists_the_roles(tmp_path: Path, write_jsonl, chat):
    train = write_jsonl(tmp_path / "train.jsonl", [chat("hello"), chat("again")])
    with pytest.raises(
        ContaminationError, match=r"No message has role:human; the values of 'role' are \['assistant', 'user'\]"
    ):
        build_index(str(train), query_filter="role:human", index_dir=tmp_path / "idx")
    assert not [p for p in (tmp_path / "idx").iterdir() if p.suffix != ".lock"]  # no index, no partial build


def test_malformed_query_filter():
    from genbench.contamination._training_data import UnitSpec

    with pytest.raises(ContaminationError, match="key:value"):
        UnitSpec(query_filter="user")


def test_empty_dataset(tmp_path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"text": pa.array([], pa.string())}), tmp_path / "empty.parquet")
    with pytest.raises(ContaminationError, match="is empty"):
        build_index(str(tmp_path / "empty.parquet"), text_field="text", index_dir=tmp_path / "idx")
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(DataLoadError, match="no examples"):
        build_index(str(tmp_path / "empty.jsonl"), index_dir=tmp_path / "idx")


def test_unreadable_files(tmp_path: Path):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"messages": []}\n{"messages": [}\n', encoding="utf-8")
    with pytest.raises(DataLoadError, match="line 2: invalid JSON"):
        build_index(str(broken), index_dir=tmp_path / "idx")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b'{"text": "\xff\xfe"}\n')
    with pytest.raises(DataLoadError, match="not valid UTF-8"):
        build_index(str(binary), text_field="text", index_dir=tmp_path / "idx")
    with pytest.raises(ContaminationError, match="does not exist"):
        build_index(str(tmp_path / "missing.jsonl"), index_dir=tmp_path / "idx")
    (tmp_path / "data.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(ContaminationError, match="unsupported file type"):
        build_index(str(tmp_path / "data.csv"), index_dir=tmp_path / "idx")
    config = tmp_path / "mix.yaml"
    config.write_text("model: x\n", encoding="utf-8")
    with pytest.raises(ContaminationError, match="no `dataset_mixer`"):
        build_index(dataset_mixer_config=config, index_dir=tmp_path / "idx")


def test_unknown_index_lists_the_existing_ones(tmp_path: Path, write_jsonl, chat):
    train = write_jsonl(tmp_path / "train.jsonl", [chat("hello world")])
    build_index(str(train), index_dir=tmp_path / "idx")
    test_sets = [TestSet.from_texts("t", ["hello"])]
    with pytest.raises(ContaminationError, match=r"No text index of 'org/other'.*existing indexes: train-\w+\.text"):
        search("org/other", test_sets=test_sets, index_dir=tmp_path / "idx")
    with pytest.raises(ContaminationError, match="No vector index"):
        search(str(train), test_sets=test_sets, index_type="vector", index_dir=tmp_path / "idx")


def test_bad_search_options(tmp_path: Path):
    with pytest.raises(ContaminationError, match="at least 1"):
        SearchMode.create(ngram_size=0)
    with pytest.raises(ContaminationError, match="not to vector"):
        SearchMode.create(index_type="vector", ngram_size=3)
    with pytest.raises(ContaminationError, match="Unknown index type"):
        SearchMode.create(index_type="bm25")


def test_test_dataset_without_the_field(tmp_path: Path, write_jsonl):
    data = write_jsonl(tmp_path / "eval.jsonl", [{"instruction": "x"}])
    with pytest.raises(ContaminationError, match=r"has no field 'prompt'; its fields are \['instruction'\]"):
        dataset_test_set(str(data), fields=["prompt"])
    assert dataset_test_set(str(data), fields=["instruction"]).rows == [("x",)]


def test_every_error_is_a_genbench_value_error():
    assert issubclass(ContaminationError, GenBenchError) and issubclass(ContaminationError, ValueError)


@pytest.mark.parametrize("ending", [b"\xc3", b"\xc3\xa9"], ids=["cut-sequence", "whole-sequence"])
def test_utf8_is_checked_across_read_blocks_followed_by_ascii(tmp_path: Path, monkeypatch, ending: bytes):
    """A block of pure ASCII skips the decoder only when no sequence is left open by the block before."""
    from genbench.contamination._training_data import load_training_dataset

    first = b'{"text": "caf' + ending
    path = tmp_path / "train.jsonl"
    path.write_bytes(first + b'"}\n' + b'{"text": "plain ascii"}\n' * 3)
    monkeypatch.setattr("genbench.contamination._training_data._READ_BLOCK", len(first))
    if ending == b"\xc3":
        with pytest.raises(DataLoadError, match="line 1: not valid UTF-8"):
            load_training_dataset(str(path))
    else:
        assert load_training_dataset(str(path)).num_rows == 4
