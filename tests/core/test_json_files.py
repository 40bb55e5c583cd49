"""The strict JSON reader (genbench._core.json_files): every refusal names the file (and line)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from genbench._core.errors import DamagedFileError
from genbench._core.json_files import iter_json_lines, loads_strict, read_json_file


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": -Infinity}', "-Infinity is not a JSON number"),
        ('{"a": 1', "not valid JSON"),
        ("[" * 5000 + "]" * 5000, "nested deeper than the 200 levels allowed"),
        ("[" * 100_000, "nested deeper than the 200 levels allowed"),  # never closed: counted all the same
    ],
)
def test_refusals_name_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "doc.json"
    path.write_text(text)
    with pytest.raises(DamagedFileError, match="doc.json") as error:
        read_json_file(path)
    assert message in str(error.value)


def test_depth_up_to_the_limit_and_brackets_in_strings_are_fine() -> None:
    assert loads_strict("[" * 200 + "]" * 200, source="x") is not None
    text = '{"s": "' + '[[[{{{\\"' * 1000 + '"}'
    assert loads_strict(text, source="x")["s"].startswith("[[[{{{")
    with pytest.raises(DamagedFileError):
        loads_strict("[" * 201 + "]" * 201, source="x")


def test_a_limit_above_the_recursion_limit_still_ends_in_a_genbench_error() -> None:
    with pytest.raises(DamagedFileError, match="x: nested too deeply to read"):
        loads_strict("[" * 100_000, source="x", max_depth=1_000_000)


def test_invalid_utf8_and_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"\xff": 1}')
    with pytest.raises(DamagedFileError, match="bad.json: not UTF-8"):
        read_json_file(path)
    path.write_text('{"a": "' + "x" * 100 + '"}')
    with pytest.raises(DamagedFileError, match="larger than the 50"):
        read_json_file(path, max_bytes=50)


def test_special_files_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(DamagedFileError, match="pipe.json: is not a regular file"):
        read_json_file(fifo)
    with pytest.raises(DamagedFileError, match="is a folder"):
        read_json_file(tmp_path)
    with pytest.raises(FileNotFoundError):
        read_json_file(tmp_path / "missing.json")


def test_json_lines_name_the_line_and_feed_the_digest(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n')
    digest = hashlib.sha256()
    assert list(iter_json_lines(path, digest=digest)) == [(1, {"a": 1}), (3, {"a": 2})]
    assert digest.hexdigest() == hashlib.sha256(path.read_bytes()).hexdigest()
    path.write_text('{"a": 1}\n{"a": NaN}\n')
    with pytest.raises(DamagedFileError, match=r"log.jsonl:2: not valid JSON: NaN"):
        list(iter_json_lines(path))
    path.write_text('{"a": "' + "x" * 100 + '"}\n')
    with pytest.raises(DamagedFileError, match=r"log.jsonl:1: a line longer than 20 bytes"):
        list(iter_json_lines(path, max_line_bytes=20))


@pytest.mark.parametrize("content", ["[" * 100_000 + "]" * 100_000, '{"format": NaN}', '{"format": '])
def test_damaged_caches_json_is_rebuilt_not_a_raw_error(tmp_path: Path, monkeypatch, content: str) -> None:
    """The task metadata cache and a saved Hub dataset's record are read strictly: damaged means not used."""
    from genbench._registry.metadata_cache import RegistryCache, cache_file
    from genbench.data._hub import RECORD_NAME, find_hub_export, hub_export_dir

    monkeypatch.setenv("GENBENCH_CACHE", str(tmp_path))
    cache_file().parent.mkdir(parents=True)
    cache_file().write_text(content)
    assert RegistryCache.load().entries == {}
    folder = hub_export_dir("org/data", None, "0" * 40)
    folder.mkdir(parents=True)
    (folder / RECORD_NAME).write_text(content)
    assert find_hub_export("org/data", None, "0" * 40) is None


def test_a_key_given_twice_is_refused_naming_file_and_key(tmp_path: Path) -> None:
    file = tmp_path / "r.json"
    file.write_text('{"metrics": {"exact_match": {"value": 0.1, "value": 0.99}}}')  # json.loads keeps 0.99
    with pytest.raises(DamagedFileError, match=r"r\.json: not valid JSON: the key 'value' appears twice"):
        read_json_file(file)
    (tmp_path / "s.jsonl").write_text('{"a": 1}\n{"a": 1, "b": 2, "a": 3}\n')
    with pytest.raises(DamagedFileError, match=r"s\.jsonl:2: not valid JSON: the key 'a' appears twice"):
        list(iter_json_lines(tmp_path / "s.jsonl"))


def test_an_integer_beyond_a_float_is_refused_but_long_digit_strings_are_not() -> None:
    with pytest.raises(DamagedFileError, match=r"x\.json: not valid JSON: the integer 10+\.\.\. \(401 digits\)"):
        loads_strict('{"value": 1' + "0" * 400 + "}", source="x.json")
    assert loads_strict('{"value": 1' + "0" * 300 + "}", source="x.json")["value"] == 10**300
    assert loads_strict('{"id": "' + "7" * 500 + '", "v": -2}', source="x.json") == {"id": "7" * 500, "v": -2}
