"""``split_file`` stays inside the task directory, and config regexes cannot stall an evaluation."""

from __future__ import annotations

import time

import pytest

from genbench._core.errors import ConfigError
from genbench.config import load_task_config
from genbench.data._splits import load_split_file
from genbench.metrics._extraction import extract_free_form_answer

CONFIG = """{{
  name: 'x', description: 'y', keywords: ['k'], authors: ['a'],
  data_source: {{type: 'manual', test: 't.jsonl'}},
  task_type: 'free_form',
  split_file: {split_file!r},
  preparation_strategies: {{prompt_based_testing: {{}}}},
}}"""


@pytest.mark.parametrize("split_file", ["../../secret", "/etc/passwd", "splits/../../secret", "C:\\\\secret"])
def test_a_split_file_outside_the_task_directory_is_a_config_error(split_file):
    with pytest.raises(ConfigError) as info:
        load_task_config(jsonnet_str=CONFIG.format(split_file=split_file))
    (problem,) = info.value.problems
    assert (problem.field, problem.line) == ("split_file", 5)
    assert problem.message.startswith("must be a path inside the task directory")


def test_a_split_file_in_a_subdirectory_is_fine():
    config = load_task_config(jsonnet_str=CONFIG.format(split_file="splits/split.jsonnet"))
    assert config.split_file == "splits/split.jsonnet"


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_text("{test: ['test:0']} TOP-SECRET-VALUE")
    return path


def test_the_split_reader_refuses_a_path_leading_out_of_the_task_directory(tmp_path, secret):
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    with pytest.raises(ConfigError) as info:
        load_split_file(task_dir / ".." / "secret.txt", root=task_dir)
    message = str(info.value)
    assert "split_file: must be a file inside the task directory" in message
    assert "TOP-SECRET" not in message


def test_the_split_reader_refuses_a_symlink_leading_out(tmp_path, secret):
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    (task_dir / "split.jsonnet").symlink_to(secret)
    for root in (task_dir, None):  # also by default: the file's own directory
        with pytest.raises(ConfigError) as info:
            load_split_file(task_dir / "split.jsonnet", root=root)
        assert "outside it" in str(info.value) and "TOP-SECRET" not in str(info.value)


def test_the_split_reader_reads_a_file_inside(tmp_path):
    (tmp_path / "splits").mkdir()
    (tmp_path / "splits" / "split.jsonnet").write_text("{test: ['test:1', 'train:0']}")
    assert load_split_file(tmp_path / "splits" / "split.jsonnet", root=tmp_path) == {
        "test": [("test", 1), ("train", 0)]
    }
    with pytest.raises(ConfigError, match="file not found in the task directory"):
        load_split_file(tmp_path / "missing.jsonnet", root=tmp_path)


def test_the_reported_backtracking_regex_no_longer_stalls():
    # '(a+)+$' on 25 characters took 0.8 s with `re` and doubled every 2 characters; the `regex` engine used for
    # config regexes needs no backtracking for it.
    started = time.monotonic()
    assert extract_free_form_answer("a" * 200 + "!", None, "(a+)+$") == ""
    assert time.monotonic() - started < 5


def test_a_catastrophically_backtracking_regex_is_stopped_with_a_clear_error(monkeypatch):
    monkeypatch.setenv("GENBENCH_REGEX_TIMEOUT", "0.2")
    started = time.monotonic()
    with pytest.raises(ConfigError) as info:
        extract_free_form_answer("a" * 60 + "!", None, "(a|aa)+$")  # exponential even for `regex`
    assert time.monotonic() - started < 30  # unguarded, this input would take years
    (problem,) = info.value.problems
    assert problem.field == "free_form_output_regex"
    assert "'(a|aa)+$' took longer than 0.2 s on a prediction of 61 characters" in problem.message
    assert "backtracks catastrophically" in problem.message


def test_regex_extraction_still_works_and_an_empty_regex_is_ignored():
    assert extract_free_form_answer("The answer is 42.\n\nQ: next", "\n\n", r"answer is (\d+)") == "42"
    assert extract_free_form_answer("aaaa", None, "(a+)+$") == "aaaa"
    assert extract_free_form_answer("forty-two", None, "") == "forty-two"


def test_an_empty_regex_warns_at_load():
    source = CONFIG.format(split_file="s.jsonnet").replace(
        "  split_file", "  free_form_output_regex: '',\n  split_file"
    )
    with pytest.warns(UserWarning, match="free_form_output_regex: is empty, which would match the empty string"):
        load_task_config(jsonnet_str=source)


def test_a_regex_that_does_not_compile_is_a_config_error():
    source = CONFIG.format(split_file="s.jsonnet").replace(
        "  split_file", "  free_form_output_regex: '(a',\n  split_file"
    )
    with pytest.raises(ConfigError, match="free_form_output_regex: not a valid regular expression"):
        load_task_config(jsonnet_str=source)
