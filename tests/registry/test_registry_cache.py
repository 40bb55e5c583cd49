"""The registry metadata cache behind ``list-tasks``: reused while files are unchanged, invalidated when they
change, written atomically, and validated before it is trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import genbench.config._documents as config_loading
import genbench.config._jsonnet as jsonnet
from genbench._registry import metadata_cache
from genbench._registry.listing import task_records
from tests.tiny_tasks import CONFIG


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch) -> Path:
    """A registry metadata cache of this test alone (``cache_file()`` under it)."""
    monkeypatch.setenv("GENBENCH_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def evaluations(monkeypatch) -> list[str]:
    """The config files evaluated (Jsonnet) from now on: in the listing's batch, or one by one."""
    seen: list[str] = []
    original = config_loading.evaluate_jsonnet_source
    original_batch = jsonnet.ConfigEvaluation.__init__

    def counting(source, **kwargs):
        seen.append(str(kwargs.get("file")))
        return original(source, **kwargs)

    def counting_batch(self, paths):
        seen.extend(str(p) for p in paths)
        original_batch(self, paths)

    monkeypatch.setattr(config_loading, "evaluate_jsonnet_source", counting)
    monkeypatch.setattr(jsonnet.ConfigEvaluation, "__init__", counting_batch)
    return seen


def write_task(task_dir: Path, **changes) -> Path:
    task_dir.mkdir(parents=True)
    (task_dir / "config.jsonnet").write_text(json.dumps({**CONFIG, **changes}))
    (task_dir / "task.py").write_text("from genbench import Task\n\n\nclass T(Task):\n    pass\n")
    return task_dir


def records_by_id() -> dict[str, dict]:
    return {record["id"]: record for record in task_records()}


def test_a_warm_listing_evaluates_no_jsonnet(task_root, evaluations):
    write_task(task_root / "one")
    family = task_root / "family"
    family.mkdir()
    (family / "config.jsonnet").write_text(json.dumps({"name": "Family"}))
    write_task(family / "a")
    write_task(family / "b")
    cold = records_by_id()
    configs = [str(p / "config.jsonnet") for p in (task_root / "one", family, family / "a", family / "b")]
    assert sorted(p for p in evaluations if p.startswith(str(task_root))) == sorted(configs)  # one evaluation each
    evaluations.clear()
    assert records_by_id() == cold
    assert evaluations == []
    assert cold["family"]["subtasks"] == ["a", "b"] and cold["one"]["name"] == "Tiny"


def test_an_edited_config_is_read_again(task_root, evaluations):
    task_dir = write_task(task_root / "one")
    assert records_by_id()["one"]["name"] == "Tiny"
    config = task_dir / "config.jsonnet"
    stat = config.stat()
    config.write_text(config.read_text().replace('"Tiny"', '"Tino"'))  # same size: the mtime tells
    os.utime(config, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    evaluations.clear()
    assert records_by_id()["one"]["name"] == "Tino"
    assert evaluations == [str(config)]


def test_an_imported_libsonnet_and_a_new_subtask_invalidate(task_root):
    task_dir = write_task(task_root / "one")
    (task_dir / "name.libsonnet").write_text("'From lib'")
    config = {**CONFIG}
    del config["name"]
    (task_dir / "config.jsonnet").write_text("{name: import 'name.libsonnet'} + " + json.dumps(config))
    assert records_by_id()["one"]["name"] == "From lib"
    (task_dir / "name.libsonnet").write_text("'Changed lib'")
    assert records_by_id()["one"]["name"] == "Changed lib"

    family = task_root / "family"
    family.mkdir()
    (family / "config.jsonnet").write_text(json.dumps({"name": "Family"}))
    write_task(family / "a")
    assert records_by_id()["family"]["subtasks"] == ["a"]
    write_task(family / "b")
    assert records_by_id()["family"]["subtasks"] == ["a", "b"]


def test_a_broken_task_is_cached_with_its_error_and_recovers(task_root):
    task_dir = write_task(task_root / "one", task_type="nope")
    assert "task_type" in records_by_id()["one"]["error"]
    assert "task_type" in records_by_id()["one"]["error"]  # from the cache
    (task_dir / "config.jsonnet").write_text(json.dumps(CONFIG) + "\n")
    assert records_by_id()["one"]["error"] is None


def test_the_cache_is_written_atomically_and_validated_before_use(task_root, evaluations):
    write_task(task_root / "one")
    task_records()
    path = metadata_cache.cache_file()
    document = json.loads(path.read_text())
    assert document["format"] == metadata_cache.CACHE_FORMAT
    assert str((task_root / "one").resolve()) in document["entries"]
    assert [p.name for p in path.parent.iterdir()] == ["tasks.json"]  # no temporary file left behind

    # A tampered record (wrong types) is not trusted: the config is read again.
    entry = document["entries"][str((task_root / "one").resolve())]
    entry["record"]["subtasks"] = "not a list"
    path.write_text(json.dumps(document))
    evaluations.clear()
    assert records_by_id()["one"]["subtasks"] == []
    assert str(task_root / "one" / "config.jsonnet") in evaluations

    # A cache file that is not JSON at all is ignored and rewritten.
    path.write_text("{ truncated")
    assert records_by_id()["one"]["name"] == "Tiny"
    assert json.loads(path.read_text())["version"] == metadata_cache.CACHE_VERSION


def test_warning_records_survive_the_cache_and_a_string_warning_is_not_trusted(task_root, evaluations):
    write_task(task_root / "one", descripton="a typo")  # loads with a warning: unknown field
    cold = records_by_id()["one"]["warnings"]
    assert len(cold) == 1 and set(cold[0]) == {"file", "line", "field", "message", "fix"}
    assert cold[0]["field"] == "descripton" and cold[0]["fix"] is not None
    evaluations.clear()
    assert records_by_id()["one"]["warnings"] == cold and evaluations == []  # warm: from the cache, equal

    path = metadata_cache.cache_file()
    document = json.loads(path.read_text())
    document["entries"][str((task_root / "one").resolve())]["record"]["warnings"] = ["a warning as text (version 1)"]
    path.write_text(json.dumps(document))
    assert records_by_id()["one"]["warnings"] == cold
    assert str(task_root / "one" / "config.jsonnet") in evaluations


def test_a_cache_of_another_genbench_version_is_ignored(task_root, evaluations):
    write_task(task_root / "one")
    task_records()
    path = metadata_cache.cache_file()
    document = json.loads(path.read_text())
    document["genbench"] = "0.0.0-other"
    path.write_text(json.dumps(document))
    evaluations.clear()
    task_records()
    assert any(p.endswith(os.path.join("one", "config.jsonnet")) for p in evaluations)


def test_the_cache_can_be_turned_off(task_root, monkeypatch, evaluations):
    monkeypatch.setenv(metadata_cache.CACHE_ENV, "off")
    write_task(task_root / "one")
    task_records()
    task_records()
    assert not metadata_cache.cache_file().exists()
    assert sum(p.endswith(os.path.join("one", "config.jsonnet")) for p in evaluations) == 2


def test_an_unwritable_cache_is_not_an_error(task_root, tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("GENBENCH_CACHE", str(blocker))
    write_task(task_root / "one")
    assert records_by_id()["one"]["name"] == "Tiny"


# ------------------------------------------------------------------------------- configs evaluated in a child
def test_the_batch_evaluates_good_configs_and_leaves_bad_ones_to_the_caller(tmp_path, monkeypatch):
    monkeypatch.setenv("GENBENCH_JSONNET_TIMEOUT", "2")
    configs = {
        "good": "local k = import 'k.libsonnet'; {name: 'Good', keywords: k}",
        "syntax": "{name: ",
        "escape": "{name: import '../good/k.libsonnet'}",
        "bomb": "{a: std.range(1, 300000000)}",  # more memory than the child may use: it dies, not this process
        "after_bomb": "{name: 'After'}",
    }
    paths = []
    for name, text in configs.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.jsonnet").write_text(text)
        paths.append(tmp_path / name / "config.jsonnet")
    (tmp_path / "good" / "k.libsonnet").write_text("['x']")
    values = jsonnet.evaluate_config_files(paths)
    assert values == {
        tmp_path / "good" / "config.jsonnet": {"name": "Good", "keywords": ["x"]},
        tmp_path / "after_bomb" / "config.jsonnet": {"name": "After"},
    }


def test_broken_configs_are_listed_with_the_error_of_their_own_loader(task_root):
    write_task(task_root / "good")
    bad = task_root / "bad"
    bad.mkdir()
    (bad / "config.jsonnet").write_text("{ name: 'x', ")
    records = records_by_id()
    assert records["good"]["error"] is None
    assert records["bad"]["error"].startswith("ConfigError: ") and "config.jsonnet" in records["bad"]["error"]
