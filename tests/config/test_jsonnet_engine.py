"""The one jsonnet engine: single configs and batches served by the same worker, limits and confinement alike."""

from __future__ import annotations

import ast
import sys
import threading
from pathlib import Path

import pytest
import tomllib

import genbench.config._jsonnet as jsonnet
from genbench._core.errors import ConfigError
from genbench.config._jsonnet import ConfigEvaluation, engine, evaluate_config_files, evaluate_jsonnet
from tests.config.test_config_files import ENDLESS

needs_worker = pytest.mark.skipif(not jsonnet.sandbox_available(), reason="the jsonnet worker needs POSIX")

# Configs a batch must evaluate as the loader does (a batch's values are used as the loader's).
AGREEING = {
    "numbers": "{a: 0.1 + 0.2, b: 1e16 + 1, c: std.toString(0.1), d: 7 / 2, e: -0}",
    "text": "{a: 'Zoë ✓', b: std.format('%05.2f|%s', [3.14159, 'x']), c: std.asciiUpper('abc')}",
    "collections": "{b: [x * x for x in std.range(1, 5)], a: {[k]: k + k for k in ['z', 'y']}}",
    "std": "{a: std.manifestJsonEx({x: [1, null]}, '  '), b: std.sort([3, 1, 2]), c: std.split('a,b', ',')}",
    "import": "local lib = import 'lib.libsonnet'; {a: lib.x, b: importstr 'note.txt'}",
    "this_file": "{a: std.length(std.thisFile) > 0}",
}


@pytest.fixture
def configs(tmp_path):
    """One directory per :data:`AGREEING` config, each with the files the configs import."""
    paths = {}
    for name, text in AGREEING.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "lib.libsonnet").write_text("{x: [1, 'two']}")
        (tmp_path / name / "note.txt").write_text("a note\n")
        paths[name] = tmp_path / name / "config.jsonnet"
        paths[name].write_text(text)
    return paths


def test_a_batch_gives_the_values_that_configs_evaluated_alone_give(configs):
    batch = evaluate_config_files(list(configs.values()))
    assert batch == {path: evaluate_jsonnet(path=path) for path in configs.values()}


@pytest.mark.parametrize(
    ("source", "imported"),
    [
        ("{a: std.nope('x')}", "{}"),
        ("{a: (import 'lib.libsonnet').a}", "{a: error 'broken'}"),
        ("{a: importstr '../elsewhere.txt'}", "{}"),  # refused: evaluated alone, the message says why
    ],
)
def test_a_batch_leaves_a_failing_config_to_the_caller(tmp_path, source, imported):
    (tmp_path / "elsewhere.txt").write_text("outside")
    task = tmp_path / "task"
    task.mkdir()
    (task / "lib.libsonnet").write_text(imported)
    (task / "config.jsonnet").write_text(source)
    assert evaluate_config_files([task / "config.jsonnet"]) == {}
    with pytest.raises(ConfigError):
        evaluate_jsonnet(path=task / "config.jsonnet")


def test_a_batch_of_nothing_starts_nothing():
    assert ConfigEvaluation([]).result() == {}


@needs_worker
def test_batches_and_single_configs_share_the_worker(configs):
    jsonnet.stop_worker()
    evaluate_jsonnet(text="1")
    first = engine._idle
    assert first is not None and first.alive()
    evaluate_config_files(list(configs.values()))
    assert engine._idle is first  # taken by the batch and given back
    assert evaluate_jsonnet(text="2") == 2 and engine._idle is first


@needs_worker
def test_a_config_that_runs_out_of_time_in_a_batch_is_left_out_and_the_rest_evaluated(tmp_path, monkeypatch):
    monkeypatch.setenv("GENBENCH_JSONNET_TIMEOUT", "0.5")
    sources = {
        "a": "{a: 1}",
        "b": ENDLESS,
        "c": "{c: 3}",
    }
    for name, text in sources.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.jsonnet").write_text(text)
    values = evaluate_config_files([tmp_path / name / "config.jsonnet" for name in sources])
    assert values == {tmp_path / "a" / "config.jsonnet": {"a": 1}, tmp_path / "c" / "config.jsonnet": {"c": 3}}


@needs_worker
def test_the_memory_limit_holds_after_a_batch(configs, monkeypatch):
    monkeypatch.setenv("GENBENCH_JSONNET_MEMORY_MB", "200")
    jsonnet.stop_worker()
    assert len(evaluate_config_files(list(configs.values()))) == len(configs)
    with pytest.raises(ConfigError, match=r"ran out of memory \(limit 200 MiB\)"):
        evaluate_jsonnet(text="std.length(std.range(1, 1e7))")
    assert evaluate_jsonnet(text="std.length(std.range(1, 1e5))") == 100000


@needs_worker
def test_a_worker_that_cannot_start_is_a_config_error_saying_so(configs, monkeypatch, tmp_path):
    jsonnet.stop_worker()
    monkeypatch.setattr(engine, "WORKER_SCRIPT", tmp_path / "missing_worker.py")
    with pytest.raises(ConfigError, match="the jsonnet worker did not start"):
        evaluate_jsonnet(text="1")
    assert evaluate_config_files(list(configs.values())) == {}


def test_a_bad_limit_setting_leaves_every_config_of_a_batch_to_the_caller(configs, monkeypatch):
    monkeypatch.setenv("GENBENCH_JSONNET_MEMORY_MB", "lots")
    assert evaluate_config_files(list(configs.values())) == {}
    with pytest.raises(ConfigError, match="GENBENCH_JSONNET_MEMORY_MB='lots' is not a positive number"):
        evaluate_jsonnet(path=configs["numbers"])


def test_without_the_worker_a_batch_is_evaluated_in_process(configs, monkeypatch):
    from genbench.config._jsonnet import batch

    monkeypatch.setattr(batch, "sandbox_available", lambda: False)
    monkeypatch.setattr(batch, "take_worker", None)  # never called
    assert evaluate_config_files([configs["import"]]) == {configs["import"]: {"a": [1, "two"], "b": "a note\n"}}


def test_without_the_worker_a_config_is_evaluated_in_process_confined(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "sandbox_available", lambda: False)
    monkeypatch.setattr(engine, "take_worker", None)  # never called
    (tmp_path / "secret.txt").write_text("top secret")
    task = tmp_path / "task"
    task.mkdir()
    (task / "config.jsonnet").write_text("{\n  a: importstr '../secret.txt',\n}")
    with pytest.raises(ConfigError, match=r"config\.jsonnet:2:6: couldn't open import \"\.\./secret\.txt\": imports"):
        evaluate_jsonnet(path=task / "config.jsonnet")
    assert evaluate_jsonnet(text="{a: 1 + 1}") == {"a": 2}


def test_a_single_config_reports_the_messages_of_the_go_library(tmp_path):
    # The loader's messages (documented in docs/config.md) are the Go library's, at the line and column it gives.
    with pytest.raises(ConfigError, match=r"^<config>:1:5: Field does not exist: nope$"):
        evaluate_jsonnet(text="{a: std.nope}.a")
    with pytest.raises(ConfigError, match=r"^<config>:1:8: syntax error: Unexpected end of file$"):
        evaluate_jsonnet(text="{name: ")
    with pytest.raises(ConfigError, match=r"^<config>:2:6: Value non indexable: null$"):  # no Go type name
        evaluate_jsonnet(text="{\n  a: null.x,\n}")
    with pytest.raises(ConfigError, match=r"^<config>:2:6: Assertion failed\. 1 != 2$"):  # not the std frame
        evaluate_jsonnet(text="{\n  a: std.assertEqual(1, 2),\n}")


@needs_worker
def test_evaluations_from_several_threads_get_their_own_answers():
    errors: list[BaseException] = []

    def evaluate(n: int) -> None:
        try:
            for k in range(3):
                assert evaluate_jsonnet(text=f"{{n: {n}, k: {k}}}") == {"n": n, "k": k}
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=evaluate, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_the_worker_script_imports_only_the_standard_library_and_jsonnet():
    tree = ast.parse(engine.WORKER_SCRIPT.read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    imported |= {
        node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported - set(sys.stdlib_module_names) == {"_gojsonnet"}


def test_genbench_has_one_jsonnet_implementation():
    """The Go library (the reference implementation) alone: no second engine whose answers must be reconciled."""
    root = Path(__file__).resolve().parents[2]
    dependencies = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert [d for d in dependencies if "jsonnet" in d] == ["gojsonnet>=0.20"]
    assert engine.EXTENSIONS == ("_gojsonnet",)
