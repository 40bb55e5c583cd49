"""Elasticsearch index names that cannot collide, a recorded source checked before an index answers, and malformed
server replies as genbench errors (issue 20). Runs on osmem-server (in-memory, OpenSearch-compatible) and on the
recording stand-in of es_recorder.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from genbench.contamination import ContaminationError
from genbench.contamination._es import ElasticsearchBackend
from genbench.contamination._es.connection import connect
from genbench.contamination._es.mappings import index_name
from genbench.contamination._training_data import UnitSpec, load_training_dataset

from .es_recorder import RecorderServer


@pytest.fixture
def osmem_backend(osmem: Any, request: pytest.FixtureRequest) -> ElasticsearchBackend:
    from .es_support import osmem_client  # imports elastic_transport: not at collection

    clone = osmem.clone()
    request.addfinalizer(clone.close)
    return ElasticsearchBackend(client=osmem_client(clone.url))


def test_names_the_seed_maps_to_one_index_get_two(osmem_backend, tmp_path: Path, write_jsonl, monkeypatch):
    """The reproducer: ``probe/x_y`` and ``probe_x/y`` were both ``probe_x_y_text``; the second replaced the first."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe_x").mkdir()
    write_jsonl(tmp_path / "probe" / "x_y.jsonl", [{"text": "alpha beta gamma delta"}])
    write_jsonl(tmp_path / "probe_x" / "y.jsonl", [{"text": "one two three four"}])
    monkeypatch.setattr("genbench.contamination._es.mappings.is_local", lambda path: False)  # named as Hub ids are
    assert index_name("probe/x_y.jsonl", "text") != index_name("probe_x/y.jsonl", "text")
    for name in ("probe/x_y.jsonl", "probe_x/y.jsonl"):
        loaded = load_training_dataset(str(tmp_path / name))
        loaded.name = name
        osmem_backend.build(loaded, UnitSpec(text_field="text"))
    assert {m["source"]["name"] for m in osmem_backend.list_indexes()} == {"probe/x_y.jsonl", "probe_x/y.jsonl"}
    assert osmem_backend.open("probe/x_y.jsonl").manifest["source"]["name"] == "probe/x_y.jsonl"
    assert osmem_backend.open("probe_x/y.jsonl").manifest["source"]["name"] == "probe_x/y.jsonl"


def test_an_index_holding_another_source_does_not_answer(osmem_backend, tmp_path: Path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": "alpha beta gamma delta"}])
    manifest = osmem_backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
    other = {**manifest, "source": {**manifest["source"], "name": "someone/else", "path": None}}
    osmem_backend.client.indices.put_mapping(index=manifest["name"], meta=other)
    with pytest.raises(ContaminationError, match=r"holds 'someone/else', not .*train\.jsonl.*--rebuild"):
        osmem_backend.open(str(train))


def test_other_unit_settings_do_not_replace_an_es_index_silently(osmem_backend, tmp_path: Path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": "alpha beta", "body": "gamma delta"}])
    loaded = load_training_dataset(str(train))
    osmem_backend.build(loaded, UnitSpec(text_field="text"))
    with pytest.raises(ContaminationError, match=r"holds units from text field 'text'.*'body'.*--rebuild"):
        osmem_backend.build(loaded, UnitSpec(text_field="body"))
    assert osmem_backend.build(loaded, UnitSpec(text_field="body"), rebuild=True)["units_from"] == {
        "text_field": "body"
    }


@pytest.mark.parametrize("version", [9, {"number": 9}, None, "9.1.0-odd"])
def test_a_version_that_is_not_a_version_string_is_a_genbench_error(version):
    with RecorderServer() as recorder:
        recorder.version = version  # type: ignore[assignment]
        if isinstance(version, dict):
            recorder.version = version["number"]  # type: ignore[assignment]
        if version == "9.1.0-odd":
            assert connect(recorder.url, request_timeout=5) is not None  # a string: its major version is read
            return
        with pytest.raises(ContaminationError, match="no version number|runs version"):
            connect(recorder.url, request_timeout=5)


@pytest.mark.parametrize("mapping", [[], "text", {"_meta": []}, {"_meta": {"format": "genbench-contamination-index"}}])
def test_an_odd_mapping_is_a_genbench_error(mapping, tmp_path: Path):
    with RecorderServer() as recorder:
        backend = ElasticsearchBackend(recorder.url, request_timeout=5)
        name = index_name("org/data", "text")
        recorder.mappings[name] = mapping  # type: ignore[assignment]
        assert backend.list_indexes() == []
        with pytest.raises(ContaminationError, match="not a genbench contamination index"):
            backend.open("org/data")


PASSWORD = "Sup3r-secret"


@pytest.mark.parametrize("reply", ["version as a number", "odd mapping", "not JSON"])
def test_malformed_replies_never_print_the_password(reply, monkeypatch):
    """``--es_url https://elastic:PASSWORD@host:9200`` on the error paths of malformed replies (issue 20)."""
    with RecorderServer() as recorder:
        url = recorder.url.replace("://", f"://elastic:{PASSWORD}@")
        if reply == "version as a number":
            recorder.version = 9  # type: ignore[assignment]
            action = lambda: connect(url, request_timeout=5)  # noqa: E731
        elif reply == "odd mapping":
            recorder.mappings[index_name("org/data", "text")] = "text"  # type: ignore[assignment]
            action = lambda: ElasticsearchBackend(url, request_timeout=5).open("org/data")  # noqa: E731
        else:
            import json as json_module

            real_dumps = json_module.dumps
            monkeypatch.setattr(
                "tests.contamination.es_recorder.json.dumps",
                lambda body: real_dumps(body) if "version" in body else "{not json",
            )
            action = lambda: ElasticsearchBackend(url, request_timeout=5).list_indexes()  # noqa: E731
        expected = {
            "version as a number": "no version number",
            "odd mapping": "not a genbench",
            "not JSON": "cannot read",
        }
        with pytest.raises(ContaminationError, match=expected[reply]) as error:
            action()
    assert PASSWORD not in str(error.value) and "elastic:***@" in str(error.value)
