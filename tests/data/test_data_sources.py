"""genbench.data._sources: manual JSONL sources and Hugging Face sources (local folders, Hub ids offline)."""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
from pathlib import Path

import pytest

from genbench._core.errors import ChecksumMismatchError, DataLoadError, DataNotFoundError
from genbench.config._schema import DataSourceConfig
from genbench.data import load_data_source
from genbench.data._sources import _hub_hint, order_splits


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def rows(prefix: str, count: int) -> list[dict]:
    return [{"input": f"{prefix}{i}", "target": i} for i in range(count)]


def test_order_splits():
    assert list(order_splits({"extra": 0, "test": 0, "validation": 0, "train": 0, "more": 0})) == [
        "train",
        "validation",
        "test",
        "extra",
        "more",
    ]


# ------------------------------------------------------------------ manual


def test_manual_source_from_relative_files(tmp_path):
    write_jsonl(tmp_path / "test.jsonl", rows("t", 3))
    write_jsonl(tmp_path / "data" / "train.jsonl", rows("x", 5))
    source = DataSourceConfig(type="manual", test="test.jsonl", train="data/train.jsonl")
    splits = load_data_source(source, tmp_path)
    assert list(splits) == ["train", "test"]
    assert splits["train"].num_rows == 5 and splits["test"][2] == {"input": "t2", "target": 2}
    assert str(splits["train"].split) == "train"


def test_manual_source_verifies_sha256(tmp_path):
    test_file = write_jsonl(tmp_path / "test.jsonl", rows("t", 2))
    digest = hashlib.sha256(test_file.read_bytes()).hexdigest()
    assert load_data_source(DataSourceConfig(type="manual", test="test.jsonl", sha256={"test": digest}), tmp_path)
    wrong = DataSourceConfig(type="manual", test="test.jsonl", sha256={"test": "f" * 64})
    with pytest.raises(ChecksumMismatchError, match=digest):
        load_data_source(wrong, tmp_path)


def test_manual_source_sha256_for_an_undeclared_split(tmp_path):
    write_jsonl(tmp_path / "test.jsonl", rows("t", 2))
    source = DataSourceConfig(type="manual", test="test.jsonl", sha256={"train": "f" * 64})
    with pytest.raises(DataLoadError, match="checksum for train"):
        load_data_source(source, tmp_path)


def test_manual_source_missing_file(tmp_path):
    with pytest.raises(DataNotFoundError, match="test.jsonl"):
        load_data_source(DataSourceConfig(type="manual", test="test.jsonl"), tmp_path)


def test_manual_source_without_files(tmp_path):
    with pytest.raises(DataLoadError, match="declares no split file"):
        load_data_source(DataSourceConfig(type="manual"), tmp_path)


def test_manual_source_over_http_then_offline(http_server, tmp_path):
    body = "".join(json.dumps(row) + "\n" for row in rows("h", 4)).encode()
    source = DataSourceConfig(
        type="manual",
        test=http_server.serve("task/test.jsonl", body),
        sha256={"test": hashlib.sha256(body).hexdigest()},
    )
    assert load_data_source(source, tmp_path)["test"].num_rows == 4
    http_server.stop()
    assert load_data_source(source, tmp_path)["test"][3] == {"input": "h3", "target": 3}


# ------------------------------------------------------------------ hf: local folders


@pytest.fixture
def saved_dataset_dict(tmp_path: Path) -> Path:
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Value

    features = Features({"sentence": Value("string"), "label": ClassLabel(names=["neg", "pos"])})
    splits = DatasetDict(
        {
            "test": Dataset.from_dict({"sentence": ["t0", "t1"], "label": [1, 0]}, features=features),
            "train": Dataset.from_dict({"sentence": ["a", "b", "c"], "label": [0, 1, 1]}, features=features),
            "validation": Dataset.from_dict({"sentence": ["v"], "label": [0]}, features=features),
        }
    )
    folder = tmp_path / "task" / "saved"
    splits.save_to_disk(str(folder))
    return folder


def test_hf_local_save_to_disk_relative_to_task_dir(saved_dataset_dict):
    task_dir = saved_dataset_dict.parent
    splits = load_data_source(DataSourceConfig(type="hf", hf_id="saved", git_commit_sha="ignored"), task_dir)
    assert list(splits) == ["train", "validation", "test"]
    assert splits["train"].features["label"].names == ["neg", "pos"]
    assert list(splits["test"]["sentence"]) == ["t0", "t1"]


def test_hf_local_save_to_disk_absolute_path(saved_dataset_dict, tmp_path):
    splits = load_data_source(DataSourceConfig(type="hf", hf_id=[str(saved_dataset_dict)]), tmp_path)
    assert {name: split.num_rows for name, split in splits.items()} == {"train": 3, "validation": 1, "test": 2}


def test_hf_local_single_dataset_becomes_test(tmp_path):
    from datasets import Dataset

    Dataset.from_dict({"input": ["a"], "target": ["b"]}).save_to_disk(str(tmp_path / "single"))
    splits = load_data_source(DataSourceConfig(type="hf", hf_id="single"), tmp_path)
    assert list(splits) == ["test"] and splits["test"][0] == {"input": "a", "target": "b"}


def test_hf_local_folder_of_jsonl_files(tmp_path):
    write_jsonl(tmp_path / "files" / "train.jsonl", rows("x", 4))
    write_jsonl(tmp_path / "files" / "test.jsonl", rows("t", 2))
    write_jsonl(tmp_path / "files" / "dev.jsonl", rows("d", 1))
    splits = load_data_source(DataSourceConfig(type="hf", hf_id="files"), tmp_path)
    assert list(splits) == ["train", "validation", "test"]
    assert splits["test"][1] == {"input": "t1", "target": 1}


def test_hf_local_folder_that_cannot_be_loaded(tmp_path):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "dataset_dict.json").write_text("not json")
    with pytest.raises(DataLoadError, match="local dataset .*broken"):
        load_data_source(DataSourceConfig(type="hf", hf_id="broken"), tmp_path)


def test_hf_relative_folder_outside_task_dir_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "task").mkdir()
    with pytest.raises(DataLoadError, match="outside the task directory"):
        load_data_source(DataSourceConfig(type="hf", hf_id="../elsewhere"), tmp_path / "task")


def test_hf_streaming_dataset_is_refused(tmp_path, monkeypatch):
    import datasets

    def streaming(*args, **kwargs):
        return datasets.IterableDatasetDict()  # what load_dataset(..., streaming=True) returns

    monkeypatch.setattr(datasets, "load_dataset", streaming)
    with pytest.raises(DataLoadError, match="streaming"):
        load_data_source(DataSourceConfig(type="hf", hf_id="some/dataset", git_commit_sha="abc123"), tmp_path)


# ------------------------------------------------------------------ hf: the Hub, offline


def test_hf_hub_id_offline_fails_fast_with_id_and_revision(tmp_path):
    source = DataSourceConfig(
        type="hf", hf_id=["glue", "cola"], git_commit_sha="bcdcba79d07bc864c1c254ccfcedcce55bcc9a8c"
    )
    # Guard: an offline Hub lookup must fail at once, never hang the test suite.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(load_data_source, source, tmp_path)
        with pytest.raises(DataLoadError) as info:
            future.result(timeout=60)
    message = str(info.value)
    assert "'glue'" in message and "'cola'" in message
    assert "bcdcba79d07bc864c1c254ccfcedcce55bcc9a8c" in message
    assert "Offline mode is on" in message and "HF_HUB_OFFLINE=1" in message


def test_hub_hint_for_connection_errors_without_offline_mode(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    try:
        try:
            raise ConnectionError("Max retries exceeded")
        except ConnectionError as cause:
            raise RuntimeError("could not resolve") from cause
    except RuntimeError as exc:
        assert "could not be reached" in _hub_hint(exc)
    assert _hub_hint(ValueError("unknown config")) == ""


def test_hf_without_id(tmp_path):
    with pytest.raises(DataLoadError, match="needs `hf_id`"):
        load_data_source(DataSourceConfig(type="hf"), tmp_path)
