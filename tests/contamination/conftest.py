"""Fixtures for the contamination tests: isolated index folders and small training files."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from genbench.contamination import SearchMode, TestSet
from genbench.contamination._embedded import EmbeddedBackend
from genbench.contamination._index_backend import IndexBackend, SearchResult
from genbench.contamination._training_data import UnitSpec, load_training_dataset

ES_URL_ENV = "GENBENCH_ES_URL"
BACKENDS = [
    "embedded",
    "osmem",
    pytest.param(
        "es",
        marks=[
            pytest.mark.es,
            pytest.mark.skipif(not os.environ.get(ES_URL_ENV), reason=f"no Elasticsearch: {ES_URL_ENV} is not set"),
        ],
    ),
]
"""The backend contract suite runs on each: the embedded backend, the Elasticsearch backend against osmem-server
(in-memory, OpenSearch-compatible; see es_support.py), and against a real Elasticsearch when GENBENCH_ES_URL is set."""


@pytest.fixture(scope="session")
def osmem() -> Iterator[Any]:
    """One osmem-server for the session (each test takes a clone of its empty base: milliseconds)."""
    from osmem_server import OsmemServer

    with OsmemServer.start(japanese=False) as server:
        yield server


@pytest.fixture(params=BACKENDS)
def backend_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_backend(backend_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Callable[..., IndexBackend]:
    """``make_backend(**options)``: a fresh, empty backend of the parametrised kind."""
    counter = iter(range(1000))

    def make(**options: Any) -> IndexBackend:
        if backend_kind == "embedded":
            embedded_options = {k: v for k, v in options.items() if k == "shard_rows"}
            return EmbeddedBackend(tmp_path / f"indexes{next(counter)}", **embedded_options)
        from genbench.contamination._es import ElasticsearchBackend

        if backend_kind == "osmem":
            from tests.contamination.es_support import osmem_client

            clone = request.getfixturevalue("osmem").clone()
            request.addfinalizer(clone.close)
            return ElasticsearchBackend(client=osmem_client(clone.url), **options)
        backend = ElasticsearchBackend(os.environ[ES_URL_ENV], **options)
        request.addfinalizer(lambda: _delete_test_indexes(backend, tmp_path))
        return backend

    return make


def _delete_test_indexes(backend: Any, tmp_path: Path) -> None:
    """On a real server, remove the indexes of this test's files (their names carry a hash of the path)."""
    for manifest in backend.list_indexes():
        if str(manifest["source"].get("path") or "").startswith(str(tmp_path)):
            backend.client.indices.delete(index=manifest["name"])


@pytest.fixture(autouse=True)
def genbench_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Default index folder inside the test's tmp_path, so no test touches the user's data folder."""
    home = tmp_path / "genbench-home"
    monkeypatch.setenv("GENBENCH_HOME", str(home))
    return home


def write_jsonl(path: Path, rows: Sequence[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def chat(*turns: str, system: str | None = None) -> dict:
    """A conversation whose user turns are ``turns`` (each answered by the assistant)."""
    messages = [{"role": "system", "content": system}] if system else []
    for number, turn in enumerate(turns):
        messages += [{"role": "user", "content": turn}, {"role": "assistant", "content": f"answer {number}"}]
    return {"messages": messages}


@pytest.fixture(name="write_jsonl")
def write_jsonl_fixture() -> Callable[[Path, Sequence[dict]], Path]:
    """``write_jsonl(path, rows)`` writes rows as JSONL."""
    return write_jsonl


@pytest.fixture(name="chat")
def chat_fixture() -> Callable[..., dict]:
    """``chat(*user_turns, system=None)`` builds a conversation row."""
    return chat


@pytest.fixture
def text_search(tmp_path: Path, make_backend: Callable[..., IndexBackend]) -> Callable[..., SearchResult]:
    """Index ``units`` (one per row of a text field) and search test rows in it, on each backend."""
    counter = iter(range(1000))

    def run(
        units: Sequence[str],
        rows: Sequence[Sequence[str]] | Sequence[str],
        *,
        ngram_size: int | None = None,
        threshold: float | None = None,
        top_k: int = 1,
        fields: Sequence[str] | None = None,
        **open_options,
    ) -> SearchResult:
        number = next(counter)
        train = write_jsonl(tmp_path / f"train{number}.jsonl", [{"text": unit} for unit in units])
        backend = make_backend()
        backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
        index = backend.open(str(train), **open_options)
        table = [(row,) if isinstance(row, str) else tuple(row) for row in rows]
        names = fields or tuple(f"f{i}" for i in range(len(table[0])))
        mode = SearchMode.create(ngram_size=ngram_size, match_threshold=threshold)
        return index.search(TestSet("test", tuple(names), table), mode, top_k=top_k)

    return run


@pytest.fixture
def osmem_url(osmem, monkeypatch) -> str:
    """An osmem clone, reached by the CLI's own client through the test-only node class (see es_support.py)."""
    import functools

    import elasticsearch

    from tests.contamination.es_support import OsmemNode

    clone = osmem.clone()
    monkeypatch.setattr(
        elasticsearch, "Elasticsearch", functools.partial(elasticsearch.Elasticsearch, node_class=OsmemNode)
    )
    yield clone.url
    clone.close()
