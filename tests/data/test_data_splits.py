"""genbench.data._splits: split.jsonnet parsing (every problem at once) and re-splitting by index."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from genbench._core.errors import ConfigError, DataLoadError
from genbench.data import load_split_file, normalise_split_name, parse_split_spec, resplit
from genbench.data._splits import MAX_REPORTED_PROBLEMS


def split_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "split.jsonnet"
    path.write_text(text)
    return path


@pytest.fixture
def source():
    from datasets import Dataset

    return {
        "train": Dataset.from_dict({"x": [f"train{i}" for i in range(5)], "y": list(range(5))}),
        "validation": Dataset.from_dict({"x": ["val0", "val1"], "y": [10, 11]}),
        "test": Dataset.from_dict({"x": ["test0", "test1", "test2"], "y": [20, 21, 22]}),
    }


# ------------------------------------------------------------------ load_split_file


def test_load_split_file_with_new_splits_and_duplicates(tmp_path):
    path = split_file(
        tmp_path,
        """
        local shuffled = ['train:%d' % i for i in [4, 0, 2]];
        {
          test_hard: ['test:1', 'test:1', 'train:3'],  // a split name the source lacks
          train: shuffled,
          test: [' test : 2 '],
        }
        """,
    )
    assert load_split_file(path) == {
        "test_hard": [("test", 1), ("test", 1), ("train", 3)],
        "train": [("train", 4), ("train", 0), ("train", 2)],
        "test": [("test", 2)],
    }


def test_original_framework_spellings():
    assert normalise_split_name("dev") == "validation"
    assert normalise_split_name("train.jsonl") == "train"
    assert normalise_split_name("dev.tsv") == "validation"
    assert normalise_split_name("dev_matched") == "validation_matched"
    assert normalise_split_name("device") == "device"
    assert parse_split_spec({"test": ["dev:0", "train.jsonl:3", "test.tsv:1"]}) == {
        "test": [("validation", 0), ("train", 3), ("test", 1)]
    }


def test_every_malformed_entry_is_reported_at_once(tmp_path):
    path = split_file(
        tmp_path,
        """{
          train: ['train:0', 'train-3', 7, 'train:-1', ':4', 'train:x', 'train:1:2', null],
          test: 'test:0',
          validation: ['validation:1', {split: 'test'}],
        }""",
    )
    with pytest.raises(ConfigError) as info:
        load_split_file(path)
    error = info.value
    assert error.file == str(path)
    # jsonnet sorts object keys, so the splits come in name order.
    assert error.fields == [
        "test",
        "train[1]",
        "train[2]",
        "train[3]",
        "train[4]",
        "train[5]",
        "train[6]",
        "train[7]",
        "validation[1]",
    ]
    message = str(error)
    assert "train[1]: expected 'split:index' (e.g. 'train:3'), got 'train-3'" in message
    assert "train[2]: expected a 'split:index' string (e.g. 'train:3'), got the number 7" in message
    assert "train[3]: expected 'split:index' with a non-negative index, got 'train:-1'" in message
    assert "test: expected a list of 'split:index' strings, got the string 'test:0'" in message
    assert "validation[1]: expected a 'split:index' string (e.g. 'train:3'), got an object" in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("['train:0']", "expected an object mapping split names"),
        ("{}", "defines no splits"),
        ("{'': ['train:0']}", "split names must be non-empty"),
    ],
)
def test_malformed_documents(tmp_path, text, expected):
    with pytest.raises(ConfigError, match=expected):
        load_split_file(split_file(tmp_path, text))


def test_jsonnet_errors_keep_their_location(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_split_file(split_file(tmp_path, "{test: ['test:0',]\n"))
    assert info.value.problems[0].line is not None


def test_missing_split_file(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_split_file(tmp_path / "split.jsonnet")


def test_many_malformed_entries_are_summed_up():
    with pytest.raises(ConfigError) as info:
        parse_split_spec({"test": ["bad"] * (MAX_REPORTED_PROBLEMS + 25)}, file="split.jsonnet")
    problems = info.value.problems
    assert len(problems) == MAX_REPORTED_PROBLEMS + 1
    assert problems[-1].message == "... and 25 more malformed entries"


# ------------------------------------------------------------------ resplit


def column(dataset, name: str) -> list:
    return list(dataset[name])


def test_resplit_builds_new_splits_in_order_with_duplicates(source):
    spec = {
        "test_hard": [("test", 2), ("train", 0), ("test", 2)],
        "test": [("validation", 1), ("test", 0)],
        "train": [("train", 4), ("train", 3)],
    }
    result = resplit(source, spec, file="split.jsonnet")
    assert list(result) == ["train", "test", "test_hard"]
    assert column(result["train"], "x") == ["train4", "train3"]
    assert column(result["test"], "x") == ["val1", "test0"]
    assert column(result["test_hard"], "x") == ["test2", "train0", "test2"]
    assert column(result["test_hard"], "y") == [22, 0, 22]
    assert result["test_hard"].features == source["test"].features


def test_resplit_finds_a_source_split_named_dev():
    from datasets import Dataset

    data = {"dev": Dataset.from_dict({"x": ["d0", "d1"]})}
    result = resplit(data, parse_split_spec({"test": ["dev:1", "dev.tsv:0"]}))
    assert column(result["test"], "x") == ["d1", "d0"]


def test_resplit_from_a_split_file(tmp_path, source):
    path = split_file(tmp_path, "{train: ['train:1', 'dev:0'], test: ['test:%d' % i for i in std.range(0, 2)]}")
    result = resplit(source, load_split_file(path), file=str(path))
    assert column(result["train"], "x") == ["train1", "val0"]
    assert column(result["test"], "x") == ["test0", "test1", "test2"]


def test_out_of_range_and_unknown_split_are_reported_together(source):
    spec = {"test": [("test", 0), ("test", 3), ("train", 1)], "extra": [("dev2", 0), ("train", -1)]}
    with pytest.raises(ConfigError) as info:
        resplit(source, spec, file="split.jsonnet")
    error = info.value
    assert error.file == "split.jsonnet"
    assert error.fields == ["test[1]", "extra[0]", "extra[1]"]
    message = str(error)
    assert (
        "split.jsonnet: test[1]: index 3 is out of range for split 'test', which has 3 examples (indices 0-2)"
        in message
    )
    assert (
        "extra[0]: unknown source split 'dev2'; the data source has train (5 examples), validation (2 examples), "
        "test (3 examples)" in message
    )
    assert "extra[1]: index -1 is out of range for split 'train'" in message


def test_many_mismatched_entries_are_summed_up(source):
    with pytest.raises(ConfigError) as info:
        resplit(source, {"test": [("test", 99)] * 1000})
    assert len(info.value.problems) == MAX_REPORTED_PROBLEMS + 1
    assert "950 more entries" in info.value.problems[-1].message


def test_empty_target_split_keeps_the_features(source):
    result = resplit(source, {"test": [("test", 0)], "empty": []})
    assert result["empty"].num_rows == 0
    assert result["empty"].features == source["train"].features


def test_resplit_of_a_disk_dataset_writes_nothing_next_to_it(tmp_path):
    from datasets import Dataset, load_from_disk

    Dataset.from_dict({"x": list(range(10))}).save_to_disk(str(tmp_path / "saved"))
    before = sorted(p.name for p in (tmp_path / "saved").iterdir())
    loaded = load_from_disk(str(tmp_path / "saved"))
    result = resplit({"train": loaded}, {"test": [("train", 7), ("train", 2)]})
    assert column(result["test"], "x") == [7, 2]
    assert sorted(p.name for p in (tmp_path / "saved").iterdir()) == before


def test_hundred_thousand_entries(source, monkeypatch):
    """100k entries cost what 1k entries cost in dataset operations: one ``select`` per target split, one
    ``concatenate_datasets`` for a target drawing from two source splits, no row read one by one.

    (Formerly a wall-clock budget of 2 s, which a busy machine could miss; these counts are what made it fast.)
    """
    import datasets
    from datasets import Dataset

    calls: dict[str, int] = {"select": 0, "concatenate_datasets": 0, "__getitem__": 0}

    def counted(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    data = {
        "train": Dataset.from_dict({"i": np.arange(60_000)}),
        "test": Dataset.from_dict({"i": np.arange(60_000, 100_000)}),
    }
    monkeypatch.setattr(Dataset, "select", counted("select", Dataset.select))
    monkeypatch.setattr(Dataset, "__getitem__", counted("__getitem__", Dataset.__getitem__))
    monkeypatch.setattr(
        datasets, "concatenate_datasets", counted("concatenate_datasets", datasets.concatenate_datasets)
    )
    rng = np.random.default_rng(0)
    per_size = {}
    for size in (1_000, 100_000):
        picks = rng.integers(0, 100_000, size=size)
        cut = size * 7 // 10
        spec = {
            "train": [("train", int(p)) if p < 60_000 else ("test", int(p) - 60_000) for p in picks[:cut]],
            "test_ood": [("test", int(p) % 40_000) for p in picks[cut:]],
        }
        calls.update(dict.fromkeys(calls, 0))
        result = resplit(data, spec, file="split.jsonnet")
        per_size[size] = dict(calls)
        train = result["train"].with_format("arrow")[:]["i"].to_numpy()
        test_ood = result["test_ood"].with_format("arrow")[:]["i"].to_numpy()
        assert np.array_equal(train, picks[:cut])
        assert np.array_equal(test_ood, 60_000 + picks[cut:] % 40_000)
    assert per_size[100_000] == per_size[1_000]  # nothing grows with the entries
    assert per_size[100_000] == {"select": 2, "concatenate_datasets": 1, "__getitem__": 0}


# ------------------------------------------------------------------ differing features across source splits


def labelled(values, *, names=None, dtype="int64"):
    from datasets import ClassLabel, Dataset, Features, Value

    label = ClassLabel(names=names) if names else Value(dtype)
    return Dataset.from_dict({"label": values}, features=Features({"label": label}))


def test_classlabel_and_integers_combine_into_the_classlabel():
    data = {"train": labelled([0, 1], names=["neg", "pos"]), "test": labelled([1, 0])}
    result = resplit(data, {"test": [("test", 0), ("train", 0)]})
    assert result["test"].features["label"].names == ["neg", "pos"]
    assert column(result["test"], "label") == [1, 0]


def test_integers_that_are_not_label_ids_are_refused():
    data = {"train": labelled([0, 1], names=["neg", "pos"]), "test": labelled([1, 5])}
    with pytest.raises(DataLoadError, match=r"field 'label' holds integers 1\.\.5.*2 classes"):
        resplit(data, {"test": [("test", 0), ("train", 0)]}, file="split.jsonnet")


def test_integers_and_floats_combine_into_floats():
    data = {"train": labelled([1, 2]), "test": labelled([0.5], dtype="float32")}
    result = resplit(data, {"test": [("train", 1), ("test", 0)]})
    assert result["test"].features["label"].dtype == "float64"
    assert column(result["test"], "label") == [2.0, 0.5]


def test_incompatible_features_are_reported():
    data = {"train": labelled([0, 1], names=["neg", "pos"]), "test": labelled(["neg"], dtype="string")}
    with pytest.raises(DataLoadError) as info:
        resplit(data, {"test": [("test", 0), ("train", 0)]}, file="split.jsonnet")
    message = str(info.value)
    assert "split.jsonnet" in message and "field 'label'" in message and "'train'" in message and "'test'" in message


def test_different_classlabel_names_are_reported():
    data = {"train": labelled([0], names=["neg", "pos"]), "test": labelled([0], names=["pos", "neg"])}
    with pytest.raises(DataLoadError, match="field 'label' differs"):
        resplit(data, {"test": [("test", 0), ("train", 0)]})


def test_sources_with_different_columns_combine():
    from datasets import Dataset

    data = {"train": Dataset.from_dict({"a": [1], "b": ["x"]}), "test": Dataset.from_dict({"a": [2]})}
    result = resplit(data, {"test": [("test", 0), ("train", 0)]})
    assert result["test"][:] == {"a": [2, 1], "b": [None, "x"]}


def test_null_column_takes_the_other_type():
    from datasets import Dataset

    data = {"train": Dataset.from_dict({"x": [None, None]}), "test": Dataset.from_dict({"x": ["s"]})}
    result = resplit(data, {"test": [("train", 1), ("test", 0)]})
    assert result["test"].features["x"].dtype == "string"
    assert column(result["test"], "x") == [None, "s"]


def test_reconciling_disk_datasets_writes_nothing_next_to_them(tmp_path):
    from datasets import DatasetDict, load_from_disk

    DatasetDict({"train": labelled([0, 1], names=["neg", "pos"]), "test": labelled([1, 1, 0])}).save_to_disk(
        str(tmp_path / "saved")
    )
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    loaded = load_from_disk(str(tmp_path / "saved"))
    result = resplit(dict(loaded), {"test": [("test", 2), ("train", 1), ("test", 0)]})
    assert column(result["test"], "label") == [0, 1, 1]
    assert result["test"].features["label"].names == ["neg", "pos"]
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == before
