"""Bad config files are ConfigErrors naming the file: bytes, types, jsonnet bombs and jsonnet's messages."""

from __future__ import annotations

import codecs
import os
import time

import pytest

from genbench._core.errors import ConfigError
from genbench.config import evaluate_jsonnet, load_task_config
from genbench.config._jsonnet import sandbox_available

GOOD = """{
  name: 'x', description: 'y', keywords: ['k'], authors: ['a'],
  data_source: {type: 'manual', test: 't.jsonl'},
  task_type: 'free_form',
  preparation_strategies: {prompt_based_testing: {}},
}
"""
# A billion additions over arrays of at most a million numbers: far longer than any limit, on a few MiB, so it is
# stopped by the time limit (a tailstrict recursion grows the Go library's memory and can meet the memory limit first).
ENDLESS = (
    "local count(n) = std.foldl(function(total, i) total + 1, std.range(1, n), 0); "
    "std.foldl(function(total, a) total + count(1000), std.range(1, 1e6), 0)"
)


def error_of(path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_task_config(jsonnet_path=path)
    assert str(info.value).startswith(str(path))
    return info.value


def test_a_nul_byte_is_a_config_error_with_its_position(tmp_path):
    path = tmp_path / "config.jsonnet"
    path.write_bytes(GOOD.replace("name: 'x'", "name: 'x\x00'").encode())
    (problem,) = error_of(path).problems
    assert (problem.line, problem.column, problem.message) == (
        2,
        11,
        "contains a NUL byte: a config is a UTF-8 text file",
    )


def test_a_nul_byte_in_jsonnet_text_is_a_config_error():
    with pytest.raises(ConfigError, match="<config>:1:3: contains a NUL byte"):
        load_task_config(jsonnet_str="{a\x00: 1}")


def test_latin1_text_is_a_config_error_saying_how_to_fix_it(tmp_path):
    path = tmp_path / "config.jsonnet"
    path.write_bytes(GOOD.replace("authors: ['a']", "authors: ['Zoë']").encode("latin-1"))
    (problem,) = error_of(path).problems
    assert (problem.line, problem.column) == (2, 62)
    assert problem.message == "is not valid UTF-8 (byte 0xeb; Latin-1 or another legacy encoding?): save it as UTF-8"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_text_is_a_config_error(tmp_path, encoding):
    path = tmp_path / "config.jsonnet"
    path.write_bytes(GOOD.encode(encoding))
    assert [p.message for p in error_of(path).problems] == ["is UTF-16 encoded text: save it as UTF-8"]


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "config.jsonnet"
    path.write_bytes(codecs.BOM_UTF8 + GOOD.encode())
    assert load_task_config(jsonnet_path=path).name == "x"


def test_a_directory_or_missing_file_is_a_config_error(tmp_path):
    (tmp_path / "config.jsonnet").mkdir()
    assert "cannot be read" in str(error_of(tmp_path / "config.jsonnet"))
    assert str(error_of(tmp_path / "nope.jsonnet")).endswith("file not found")


@pytest.mark.parametrize("metric_type", ["['hf']", "{hf: 1}", "3", "null"])
def test_a_metric_type_of_the_wrong_kind_is_a_config_error(metric_type):
    source = GOOD.replace(
        "task_type:", f"evaluation_metrics: [{{hf_id: 'exact_match', type: {metric_type}}}],\n  task_type:"
    )
    with pytest.raises(ConfigError) as info:
        load_task_config(jsonnet_str=source)
    (problem,) = info.value.problems
    assert problem.field == "evaluation_metrics.0" and problem.message.startswith("unknown metric type")


@pytest.mark.parametrize(
    ("source", "line", "column", "message"),
    [
        ("{\n  a: 1\n  b: 2,\n}", 3, 3, "syntax error: Expected a comma before next field"),
        ("{\n  a: [1,\n  2\n", 4, 1, "syntax error: Expected a comma before next array element"),
        ("{\n  a: error 'boom',\n}", 2, 6, "boom"),
        ("{\n  a: std.nope(1),\n}", 2, 6, "Field does not exist: nope"),
        ("{\n  a: 'x' +\n    {b: 1}\n    .c,\n}", 3, 5, "Field does not exist: c"),  # a range over lines
    ],
)
def test_jsonnet_errors_keep_line_and_column_without_range_fragments(tmp_path, source, line, column, message):
    path = tmp_path / "config.jsonnet"
    path.write_text(source)
    (problem,) = error_of(path).problems
    assert (problem.line, problem.column, problem.message) == (line, column, message)
    assert str(error_of(path)) == f"{path}:{line}:{column}: {message}"


def test_an_error_in_an_imported_file_names_that_file(tmp_path):
    (tmp_path / "lib.libsonnet").write_text("{\n  x: error 'in the library',\n}")
    (tmp_path / "bad.libsonnet").write_text("{\n  x: ,\n}")
    path = tmp_path / "config.jsonnet"
    path.write_text("(import 'lib.libsonnet').x")
    (problem,) = error_of(path).problems
    assert problem.message == "in the library (in lib.libsonnet:2:6)"
    path.write_text("{\n  a: (import 'bad.libsonnet').x,\n}")
    (problem,) = error_of(path).problems
    assert (problem.line, problem.column) == (2, 7)
    assert problem.message == 'syntax error: Unexpected: "," while parsing terminal (in bad.libsonnet:2:6)'


@pytest.mark.parametrize("keyword", ["import", "importstr", "importbin"])
def test_a_refused_or_missing_import_is_reported_where_it_is(tmp_path, keyword):
    # The Go library garbles the message of an error raised in an import callback; the worker reports it instead.
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    (tmp_path / "secret.txt").write_text("top secret")
    path = task_dir / "config.jsonnet"
    for target, reason in [("../secret.txt", "imports are confined to the task directory"), ("gone.txt", "no such")]:
        path.write_text(f"{{\n  name: 'x',\n  a: [1, {keyword} '{target}'],\n}}")
        (problem,) = error_of(path).problems
        assert (problem.line, problem.column) == (3, 10)
        assert problem.message.startswith(f'couldn\'t open import "{target}": ') and reason in problem.message
        assert "top secret" not in problem.message


needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="the jsonnet worker needs POSIX")


@needs_sandbox
def test_a_memory_bomb_is_a_config_error_and_the_process_survives(monkeypatch):
    monkeypatch.setenv("GENBENCH_JSONNET_MEMORY_MB", "200")
    for bomb in ("std.range(1, 300000000)", "std.length(std.range(1, 1e7))"):
        started = time.monotonic()
        with pytest.raises(ConfigError, match=r"ran out of memory \(limit 200 MiB\).*GENBENCH_JSONNET_MEMORY_MB"):
            evaluate_jsonnet(text=bomb)
        assert time.monotonic() - started < 30  # stopped, not run to its end (a generous bound for busy machines)
    assert evaluate_jsonnet(text="{a: 1}") == {"a": 1}  # a fresh worker takes over


@needs_sandbox
def test_short_lived_data_beyond_the_memory_limit_is_not_a_memory_bomb():
    # 20,000 arrays of up to 20,000 numbers, each dropped at once: about 1.6 GB allocated, a few hundred KiB live.
    growing = "std.length(std.foldl(function(acc, i) acc + [i], std.range(1, 20000), []))"
    assert evaluate_jsonnet(text=growing) == 20000


@needs_sandbox
def test_an_endless_evaluation_is_stopped_at_the_time_limit(monkeypatch):
    monkeypatch.setenv("GENBENCH_JSONNET_TIMEOUT", "0.3")
    with pytest.raises(ConfigError, match=r"took longer than 0.3 s and was stopped.*GENBENCH_JSONNET_TIMEOUT"):
        evaluate_jsonnet(text=ENDLESS)
    assert evaluate_jsonnet(text="[1, 2]") == [1, 2]


def test_bad_limit_settings_are_config_errors(monkeypatch):
    if not sandbox_available():
        pytest.skip("limits apply to the POSIX worker")
    monkeypatch.setenv("GENBENCH_JSONNET_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match="GENBENCH_JSONNET_TIMEOUT='soon' is not a positive number"):
        evaluate_jsonnet(text="1")


def test_imports_stay_confined_in_the_worker(tmp_path):
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    (tmp_path / "secret.txt").write_text("top secret")
    (task_dir / "link.txt").symlink_to(tmp_path / "secret.txt")
    for target in ("../secret.txt", "link.txt", os.fspath(tmp_path / "secret.txt")):
        path = task_dir / "config.jsonnet"
        path.write_text(f"{{x: importstr '{target}'}}")
        message = str(error_of(path))
        assert "confined to the task directory" in message and "top secret" not in message


@needs_sandbox
def test_an_interrupted_evaluation_does_not_leave_its_answer_for_the_next(monkeypatch):
    import select

    real_select = select.select

    def interrupted(*args, **kwargs):
        monkeypatch.setattr(select, "select", real_select)
        raise KeyboardInterrupt

    assert evaluate_jsonnet(text="'warm'") == "warm"
    monkeypatch.setattr(select, "select", interrupted)
    with pytest.raises(KeyboardInterrupt):
        evaluate_jsonnet(text="'first'")
    assert evaluate_jsonnet(text="'second'") == "second"
