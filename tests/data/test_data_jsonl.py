"""genbench.data._jsonl: fast JSONL reading with types kept and errors that name the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from genbench._core.errors import DataLoadError, DataNotFoundError
from genbench.data import read_jsonl


def write(tmp_path: Path, text: str | bytes, name: str = "data.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def jsonl(*rows: object) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def test_types_are_preserved(tmp_path):
    rows = [
        {"input": "a", "target": 1, "options": ["x", "y"], "grid": [["a", "b"], ["c"]], "score": 0.5, "ok": True},
        {"input": "b", "target": 2, "options": [], "grid": [[]], "score": 1, "ok": False, "meta": {"src": "s"}},
    ]
    dataset = read_jsonl(write(tmp_path, jsonl(*rows)), split="test")
    assert dataset.num_rows == 2
    assert dataset.column_names == ["input", "target", "options", "grid", "score", "ok", "meta"]
    assert dataset.features["target"].dtype == "int64"
    assert dataset.features["score"].dtype == "float64"
    assert dataset[0] == {**rows[0], "meta": None}
    assert dataset[1] == {**rows[1], "score": 1.0}
    assert isinstance(dataset[0]["target"], int)


def test_dataset_is_in_memory_with_split_and_content_fingerprint(tmp_path):
    first = read_jsonl(write(tmp_path, jsonl({"a": 1}), "one.jsonl"), split="validation")
    same = read_jsonl(write(tmp_path, jsonl({"a": 1}), "two.jsonl"), split="validation")
    other = read_jsonl(write(tmp_path, jsonl({"a": 2}), "three.jsonl"), split="validation")
    assert str(first.split) == "validation"
    assert first.cache_files == [], "nothing is written to the Hugging Face cache"
    assert first._fingerprint == same._fingerprint != other._fingerprint


def test_any_split_name_is_accepted(tmp_path):
    assert read_jsonl(write(tmp_path, jsonl({"a": 1})), split="test-hard").num_rows == 1


def test_blank_lines_and_crlf_are_ignored(tmp_path):
    dataset = read_jsonl(write(tmp_path, '\n{"a": 1}\r\n\r\n   \n{"a": 2}\n\n'), split="test")
    assert list(dataset["a"]) == [1, 2]


def test_missing_fields_are_null(tmp_path):
    dataset = read_jsonl(write(tmp_path, jsonl({"a": 1}, {"b": "x"})), split="test")
    assert dataset[:] == {"a": [1, None], "b": [None, "x"]}


def test_values_python_combines_but_arrow_does_not(tmp_path):
    # pyarrow's JSON reader rejects NaN; the line-by-line fallback reads it.
    dataset = read_jsonl(write(tmp_path, '{"a": NaN}\n{"a": 1}\n'), split="test")
    assert dataset.features["a"].dtype == "float64"
    assert list(dataset["a"])[1] == 1.0


def test_invalid_json_names_the_line(tmp_path):
    path = write(tmp_path, jsonl({"a": 1}) + "\n" + '{"a": 2,}\n')
    with pytest.raises(DataLoadError, match=r"line 3: invalid JSON") as info:
        read_jsonl(path, split="test")
    assert str(path) in str(info.value)


def test_truncated_last_line_names_the_line(tmp_path):
    with pytest.raises(DataLoadError, match=r"line 2: invalid JSON"):
        read_jsonl(write(tmp_path, '{"a": 1}\n{"a": '), split="test")


def test_two_objects_on_one_line_name_the_line(tmp_path):
    with pytest.raises(DataLoadError, match=r"line 2: invalid JSON: Extra data"):
        read_jsonl(write(tmp_path, '{"a": 1}\n{"a": 2}{"a": 3}\n'), split="test")


@pytest.mark.parametrize(
    ("line", "kind"), [("[1, 2]", "a list of integers"), ('"text"', "a string"), ("3", "integer")]
)
def test_line_that_is_not_an_object(tmp_path, line, kind):
    with pytest.raises(DataLoadError, match=r"line 2: expected one JSON object per line, got") as info:
        read_jsonl(write(tmp_path, f'{{"a": 1}}\n{line}\n'), split="test")
    assert kind in str(info.value)


def test_duplicate_key_names_the_line(tmp_path):
    with pytest.raises(DataLoadError, match=r"line 1: key 'a' appears twice"):
        read_jsonl(write(tmp_path, '{"a": 1, "a": 2}\n'), split="test")


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_file_without_examples(tmp_path, text):
    with pytest.raises(DataLoadError, match="no examples"):
        read_jsonl(write(tmp_path, text), split="test")


def test_examples_without_fields(tmp_path):
    with pytest.raises(DataLoadError, match="no fields"):
        read_jsonl(write(tmp_path, "{}\n{}\n"), split="test")


def test_type_conflict_names_field_and_lines(tmp_path):
    text = jsonl({"a": 1, "b": "x"}, {"a": None, "b": "y"}, {"a": 3, "b": "z"}, {"a": "four", "b": "w"})
    with pytest.raises(DataLoadError) as info:
        read_jsonl(write(tmp_path, text), split="test")
    message = str(info.value)
    assert "line 4" in message and "field 'a'" in message and "line 1" in message
    assert "a string" in message and "an integer" in message


def test_nested_type_conflict(tmp_path):
    text = jsonl({"options": ["a", "b"]}, {"options": [1, 2]})
    with pytest.raises(
        DataLoadError, match=r"line 2: field 'options' is a list of integers.*list of strings on line 1"
    ):
        read_jsonl(write(tmp_path, text), split="test")


def test_mixed_list_names_the_line(tmp_path):
    text = jsonl({"options": ["a"]}, {"options": ["b"]}, {"options": ["c", 3]})
    with pytest.raises(DataLoadError, match=r"line 3: field 'options'.*a list mixing strings and integers"):
        read_jsonl(write(tmp_path, text), split="test")


def test_invalid_utf8_names_the_line(tmp_path):
    with pytest.raises(DataLoadError, match=r"line 2: not valid UTF-8"):
        read_jsonl(write(tmp_path, b'{"a": "x"}\n{"a": "\xff"}\n'), split="test")


def test_utf8_bom_and_line_separator_characters(tmp_path):
    dataset = read_jsonl(write(tmp_path, '\ufeff{"a": "x\u2028y"}\n{"a": "z"}\n'), split="test")
    assert list(dataset["a"]) == ["x\u2028y", "z"]


def test_long_lines_beyond_the_block_size(tmp_path):
    long_text = "x" * (3 << 20)
    dataset = read_jsonl(write(tmp_path, jsonl({"a": long_text}, {"a": "short"})), split="test")
    assert [len(value) for value in dataset["a"]] == [len(long_text), 5]


def test_missing_file(tmp_path):
    with pytest.raises(DataNotFoundError, match="nothing.jsonl"):
        read_jsonl(tmp_path / "nothing.jsonl", split="test")


def test_twenty_thousand_rows_take_the_vectorised_path(tmp_path, monkeypatch):
    """20k rows cost what 1k rows cost in Python calls: one pyarrow parse, no json.loads and no row-by-row pass.

    (Formerly a wall-clock budget of 0.3 s, which a busy machine could miss; the call counts are what made it fast.)
    """
    import pyarrow.json as paj

    import genbench.data._jsonl as jsonl_module

    calls: dict[str, int] = {"read_json": 0, "json.loads": 0, "line_by_line": 0}

    def counted(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(paj, "read_json", counted("read_json", paj.read_json))
    monkeypatch.setattr(jsonl_module.json, "loads", counted("json.loads", json.loads))
    monkeypatch.setattr(jsonl_module, "_parse_line_by_line", counted("line_by_line", jsonl_module._parse_line_by_line))
    per_size = {}
    for size in (1_000, 20_000):
        rows = [
            {"input": f"What is {i} plus {i + 1}?", "target": i, "target_options": [str(i), str(i + 1), "neither"]}
            for i in range(size)
        ]
        path = write(tmp_path, jsonl(*rows), name=f"rows{size}.jsonl")
        calls.update(dict.fromkeys(calls, 0))
        dataset = read_jsonl(path, split="test")
        per_size[size] = dict(calls)
        assert dataset.num_rows == size
        assert dataset[size - 1] == rows[size - 1]
        assert dataset.cache_files == []  # in memory: nothing written to the Hugging Face cache
    assert per_size[20_000] == per_size[1_000]  # nothing grows with the rows
    assert per_size[20_000]["read_json"] == 1 and per_size[20_000]["line_by_line"] == 0
