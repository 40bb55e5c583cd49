"""The Elasticsearch backend beyond the shared contract suite: its analyzer, builds, caps, errors and request bodies.

The contract suite (test_rules, test_differential, test_decontaminate) runs on every backend through the
``make_backend`` fixture; here are the things only a server has. osmem-server stands in for Elasticsearch where it
speaks the API (es_support.py lists the differences bridged in test set-up); the loopback recorder (es_recorder.py)
checks the exact requests, the vector search osmem lacks, and the error statuses.
"""

from __future__ import annotations

import json
import random
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import genbench.contamination._analysis as analysis
from genbench._core.plugins import CONTAMINATION_BACKENDS
from genbench.contamination import ContaminationError, SearchMode, TestSet, build_index, search
from genbench.contamination._backend_registry import create_backend
from genbench.contamination._es import ElasticsearchBackend, mappings
from genbench.contamination._es.connection import connect
from genbench.contamination._training_data import UnitSpec, load_training_dataset
from tests.contamination.conftest import BACKENDS
from tests.contamination.es_recorder import RecorderServer
from tests.contamination.test_differential import _random_text

ANALYZER_CASES = [
    "Hello, World! it's 3.14",
    "snake_case and_more",
    "",
    " ,.;! ",
    "CAFÉ Café café",
    "東京タワーに行く。",
    "Straße ΣΟΦΙΑ",
    "Le CAFÉ est bon",
    "東京タワー に 行く",
    "cafe\u0301 nai\u0308ve",  # combining marks end a token in both
    "Hello, WORLD: 3.14 — 東京タワー",
    "Ⅻ ½ ٣٤ x²",  # letter numbers, fractions, Arabic-Indic digits, superscripts
    "tab\tnew\nline\u00a0nbsp\u2003em",
]
CHAR_FILTER_CASES = ["ΟΔΟΣ οδος", "İstanbul", "ΑΣ'Β ΑΣΣ"]
"""Cases needing the mapping char filter (İ, final sigma), which osmem ignores (it warns): real Elasticsearch only."""


@pytest.fixture(params=[p for p in BACKENDS if p != "embedded"])
def backend_kind(request: pytest.FixtureRequest) -> str:
    """The Elasticsearch kinds of the contract suite's backends: osmem-server, and a real server when configured."""
    return str(request.param)


def _backend_with_index(make_backend, tmp_path: Path, write_jsonl) -> tuple[ElasticsearchBackend, str]:
    backend = make_backend()
    train = write_jsonl(tmp_path / "analyzer.jsonl", [{"text": "x"}])
    manifest = backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
    return backend, manifest["name"]


def _analyzed(backend: ElasticsearchBackend, index: str, text: str) -> list[str]:
    response = backend.client.indices.analyze(index=index, analyzer=mappings.ANALYZER, text=text)
    return [token["token"] for token in response["tokens"]]


def test_the_index_analyzer_equals_the_embedded_tokenizer(make_backend, backend_kind, tmp_path, write_jsonl):
    backend, index = _backend_with_index(make_backend, tmp_path, write_jsonl)
    rng = random.Random(0)
    cases = ANALYZER_CASES + [_random_text(rng) for _ in range(60)]
    if backend_kind == "es":
        cases += CHAR_FILTER_CASES
    for text in cases:
        assert _analyzed(backend, index, text) == analysis.tokenize(text), text


def test_lowercasing_never_changes_what_is_a_word_character():
    # Python lower-cases before tokenising, Lucene after: equal tokens need this, over all of Unicode.
    word = re.compile(r"\w")
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        lowered = char.lower()
        if len(lowered) == 1:
            assert bool(word.match(char)) == bool(word.match(lowered)), hex(code)
    assert analysis.tokenize("İ") == ["i"] and analysis.tokenize("ΟΔΟΣ οδος") == ["οδοσ", "οδοσ"]


def test_index_names_follow_the_seed_then_a_digest_of_the_exact_name(tmp_path):
    assert re.fullmatch(
        r"allenai_tulu-2-sft-mixture-[0-9a-f]{8}_text", mappings.index_name("allenai/tulu-2-sft-mixture", "text")
    )
    assert re.fullmatch(
        r"allenai_wildchat-1m-[0-9a-f]{8}_vector", mappings.index_name("allenai/WildChat-1M", "vector")
    )
    local = tmp_path / "My Data.jsonl"
    local.write_text("{}\n")
    name = mappings.index_name(str(local), "text")
    assert re.fullmatch(r"my_data-[0-9a-f]{8}-[0-9a-f]{8}_text", name)
    assert re.fullmatch(r"weird_name___-[0-9a-f]{8}_text", mappings.index_name("_weird/Name*?#", "text"))
    # Names that the seed's rule maps to one index (issue 20) get two.
    assert mappings.index_name("probe/x_y", "text") != mappings.index_name("probe_x/y", "text")
    assert mappings.index_name("Org/Data", "text") != mappings.index_name("org/data", "text")
    assert all(mappings.is_index_name(mappings.index_name(n, "text")) for n in ["x" * 300, "é" * 200, "a/b"])


def test_rebuilding_is_idempotent_and_a_stopped_build_resumes(make_backend, tmp_path, write_jsonl, chat):
    backend = make_backend(shard_rows=2)
    train = write_jsonl(tmp_path / "chat.jsonl", [chat(f"question {i}", f"follow up {i}") for i in range(5)])
    loaded = load_training_dataset(str(train))
    first = backend.build(loaded, UnitSpec())
    name = first["name"]
    assert first["counts"] == {"rows": 5, "units": 10, "tokens": 25} and first["status"] == "complete"
    assert backend.build(loaded, UnitSpec()) == first  # up to date: nothing is sent again
    # As if the build had stopped after its first shard: the next run sends the rest, overwriting by _id.
    stopped = {**first, "status": "building", "progress": {"shards": 1, "units": 4, "tokens": 10}}
    backend.client.indices.put_mapping(index=name, meta=stopped)
    with pytest.raises(ContaminationError, match="incomplete"):
        backend.open(str(train))
    resumed = backend.build(loaded, UnitSpec())
    assert resumed["counts"] == first["counts"] and resumed["status"] == "complete"
    backend.client.indices.refresh(index=name)
    assert backend.client.count(index=name)["count"] == 10
    document = backend.client.get(index=name, id="3:2")["_source"]
    assert document == {"unit_id": "000000000007", "original_id": "3", "turn": "2", "source": str(train)} | {
        "text": "follow up 3"
    }
    rebuilt = backend.build(loaded, UnitSpec(), rebuild=True)
    assert rebuilt["counts"] == first["counts"]
    assert backend.client.count(index=name)["count"] == 10


def test_an_index_that_is_not_genbench_s_is_never_touched(make_backend, tmp_path, write_jsonl):
    backend = make_backend()
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": "x"}])
    name = mappings.index_name(str(train), "text")
    backend.client.indices.create(index=name, mappings={"properties": {"title": {"type": "keyword"}}})
    backend.client.index(index=name, id="mine", document={"title": "keep me"}, refresh=True)
    with pytest.raises(ContaminationError, match=f"index {name} .* exists but is not a genbench contamination index"):
        backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
    with pytest.raises(ContaminationError, match="is not a genbench contamination index"):
        backend.open(str(train))
    assert backend.client.get(index=name, id="mine")["_source"] == {"title": "keep me"}
    backend.client.indices.delete(index=name)  # the test's own clean-up (on a real server it would stay)


def test_search_size_caps_hits_and_flags_truncated_instances(make_backend, tmp_path, write_jsonl):
    backend = make_backend(search_size=2, page_size=1)
    units = ["common words here"] * 3 + ["rare phrase only once", "x y"]
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": unit} for unit in units])
    build_index(str(train), text_field="text", backend=backend)
    tests = TestSet.from_texts("t", ["common words", "rare phrase", "nothing at all"])
    report = search(str(train), test_sets=[tests], ngram_size=2, match_threshold=0.5, top_k=5, backend=backend)
    instances = report.results[0].instances
    assert [i.truncated for i in instances] == [True, False, False]
    assert [m.unit_id for m in instances[0].matches] == [0, 1]  # the cap: unit 2 was never seen
    assert report.results[0].truncated == 1
    out = tmp_path / "out"
    report.write(out)
    lines = [json.loads(line) for line in next(out.glob("*.jsonl")).read_text().splitlines()]
    assert [line.get("truncated", False) for line in lines] == [True, False, False]
    tsv = (out / "contamination_report.tsv").read_text().splitlines()
    assert tsv[0].split("\t") == ["index", "t", "t truncated"] and tsv[1].split("\t")[2] == "1"
    assert "1 truncated" in (out / "report.html").read_text()
    uncapped = search(
        str(train), test_sets=[tests], ngram_size=2, top_k=5, backend=ElasticsearchBackend(client=backend.client)
    )
    assert [m.unit_id for m in uncapped.results[0].instances[0].matches] == [0, 1, 2]
    assert not any(i.truncated for i in uncapped.results[0].instances)


def test_task_checks_run_on_the_elasticsearch_backend(make_backend, tmp_path, write_jsonl, monkeypatch):
    from genbench.config import task_config_from_dict
    from genbench.contamination._task_checks import check_task_contamination
    from tests.contamination.test_task_integration import TEST_ROWS, TRAIN_CORPUS, config

    backend = make_backend()
    corpus = write_jsonl(tmp_path / "corpus.jsonl", TRAIN_CORPUS)
    build_index(str(corpus), text_field="text", messages_field=None, backend=backend)
    checks = [
        {"train_dataset": str(corpus), "mode": "exact", "backend": "elasticsearch"},
        {"train_dataset": str(corpus), "ngram_size": 5, "match_threshold": 0.5, "backend": "elasticsearch"},
    ]
    task_config = task_config_from_dict(config(contamination_checks=checks))

    class FakeTask:  # the two things check_task_contamination reads from a task
        task_id = "contaminated"
        task_dir = tmp_path
        config = task_config

        def get_datasets_raw(self):
            import datasets

            rows = [dict(row, _genbench_idx=i) for i, row in enumerate(TEST_ROWS)]
            return {"test": datasets.Dataset.from_list(rows)}

    outcome = check_task_contamination(FakeTask(), backend_options={"client": backend.client})  # type: ignore[arg-type]
    assert list(outcome.scores.values()) == [0.5, 0.5, 0.5]
    assert outcome.contaminated == [0, 2]


def test_backend_registry_and_config_field():
    from genbench._core.errors import ConfigError
    from genbench.config import task_config_from_dict
    from tests.contamination.test_task_integration import config

    assert CONTAMINATION_BACKENDS.names()[:2] == ["embedded", "elasticsearch"]
    with pytest.raises(ContaminationError, match="Unknown contamination backend 'solr'"):
        create_backend("solr")
    with pytest.raises(ContaminationError, match="has no option index_dir"):
        create_backend("elasticsearch", index_dir="/tmp/x")
    with pytest.raises(ConfigError) as info:
        task_config_from_dict(config(contamination_checks=[{"train_dataset": "d", "mode": "exact", "backend": "x"}]))
    assert "unknown contamination backend 'x'" in str(info.value)


# -- errors ------------------------------------------------------------------------------------------------------


def test_a_server_that_is_down_is_one_clear_message():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ContaminationError, match=r"Cannot reach Elasticsearch at http://127.0.0.1:\d+ .*--es-url"):
        connect(f"http://127.0.0.1:{port}", request_timeout=2)


PASSWORD = "Sup3r-secret"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_password_in_the_url_is_never_printed():
    """``--es_url https://elastic:PASSWORD@host``: every message shows ``elastic:***@`` instead (issue 20)."""
    url = f"http://elastic:{PASSWORD}@127.0.0.1:{_closed_port()}"
    with pytest.raises(ContaminationError, match=r"Cannot reach Elasticsearch at http://elastic:\*\*\*@127") as down:
        connect(url, request_timeout=2)
    assert PASSWORD not in str(down.value)
    with pytest.raises(ContaminationError) as listed:
        ElasticsearchBackend(url, request_timeout=2).list_indexes()
    assert PASSWORD not in str(listed.value) and "elastic:***@" in str(listed.value)
    assert ElasticsearchBackend(url).url == url.replace(PASSWORD, "***")
    with pytest.raises(ContaminationError) as malformed:
        connect(f"http://elastic:{PASSWORD}@[bad", request_timeout=2)
    assert PASSWORD not in str(malformed.value)


@pytest.mark.parametrize("status", [401, 403, 406])
def test_a_password_in_the_url_is_not_printed_when_the_server_refuses(status):
    with RecorderServer() as recorder:
        recorder.status = status
        url = recorder.url.replace("://", f"://elastic:{PASSWORD}@")
        with pytest.raises(ContaminationError) as refused:
            connect(url, request_timeout=5)
    assert PASSWORD not in str(refused.value) and "elastic:***@" in str(refused.value)


def test_the_cli_never_prints_the_password_of_es_url(tmp_path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": "unit one"}])
    url = f"http://elastic:{PASSWORD}@127.0.0.1:{_closed_port()}"
    code = "from genbench.cli import cli; cli()"
    for command in (
        ["contamination", "list", "--backend", "elasticsearch", "--es_url", url],
        ["contamination", "index", "--dataset", str(train), "--backend", "elasticsearch", "--es_url", url,
         "--no-progress"],
    ):  # fmt: skip
        finished = subprocess.run(
            [sys.executable, "-c", code, *command], capture_output=True, text=True, timeout=120, check=False
        )
        output = finished.stdout + finished.stderr
        assert finished.returncode == 1, output
        assert PASSWORD not in output
        assert "Cannot reach Elasticsearch at http://elastic:***@127.0.0.1" in output


@pytest.mark.parametrize(
    ("status", "version", "product", "message"),
    [
        (401, "9.1.0", "Elasticsearch", "refused the credentials .*ELASTIC_PASSWORD .*ELASTIC_API_KEY"),
        (403, "9.1.0", "Elasticsearch", "does not allow this user"),
        (406, "9.1.0", "Elasticsearch", "does not speak the API of this client"),
        (None, "7.17.0", "Elasticsearch", "runs version 7.17.0; .*needs Elasticsearch 8"),
        (None, "9.1.0", "Opensearch", "is not Elasticsearch"),
    ],
)
def test_refusals_and_incompatible_servers_are_one_clear_message(status, version, product, message, monkeypatch):
    monkeypatch.setenv("ELASTIC_PASSWORD", "secret")
    with RecorderServer() as recorder:
        recorder.status, recorder.version, recorder.product = status, version, product
        with pytest.raises(ContaminationError, match=message):
            connect(recorder.url, request_timeout=5)


def test_credentials_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("ELASTIC_API_KEY", "a2V5OnNlY3JldA==")
    with RecorderServer() as recorder:
        client = connect(recorder.url, request_timeout=5)
        assert client._headers["authorization"] == "ApiKey a2V5OnNlY3JldA=="  # noqa: SLF001
    monkeypatch.delenv("ELASTIC_API_KEY")
    monkeypatch.setenv("ELASTIC_PASSWORD", "pw")
    with RecorderServer() as recorder:
        client = connect(recorder.url, request_timeout=5)
        assert client._headers["authorization"].startswith("Basic ")  # noqa: SLF001
    with pytest.raises(ContaminationError, match="--es-ca-certs /nonexistent.crt: no such file"):
        connect("https://localhost:9200", ca_certs="/nonexistent.crt")


def test_refused_documents_are_all_reported(tmp_path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": f"unit {i}"} for i in range(6)])
    with RecorderServer() as recorder:
        recorder.fail_ids = {"1:-1", "4:-1"}
        backend = ElasticsearchBackend(recorder.url, request_timeout=5, max_retries=0)
        with pytest.raises(ContaminationError, match=r"refused 2 documents .*1:-1: 400 refused by the test; 4:-1"):
            backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
        meta = next(iter(recorder.mappings.values()))["_meta"]
        assert meta["status"] == "building" and meta["progress"]["shards"] == 0  # resumable, never "complete"


def test_documents_refused_with_429_are_retried_with_back_off(tmp_path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": f"unit {i}"} for i in range(6)])
    with RecorderServer() as recorder:
        recorder.busy_once_ids = {"2:-1", "5:-1"}
        backend = ElasticsearchBackend(recorder.url, request_timeout=5, initial_backoff=0.01, max_backoff=0.02)
        manifest = backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
        assert manifest["status"] == "complete" and manifest["counts"]["units"] == 6
        bulks = recorder.bodies("PUT", "/_bulk") + recorder.bodies("POST", "/_bulk")
        assert [[line["index"]["_id"] for line in bulk[0::2]] for bulk in bulks] == [
            [f"{i}:-1" for i in range(6)],
            ["2:-1", "5:-1"],  # only the refused documents, once more
        ]
        assert sorted(recorder.documents) == [f"{i}:-1" for i in range(6)]


# -- request bodies ------------------------------------------------------------------------------------------------


def test_text_index_requests(tmp_path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": f"a b unit {i}"} for i in range(5)])
    with RecorderServer() as recorder:
        backend = ElasticsearchBackend(recorder.url, request_timeout=5, shards=3, replicas=1, page_size=2)
        manifest = backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
        name = manifest["name"]
        (created,) = recorder.bodies("PUT", "/" + name)
        assert created["settings"] == {"number_of_shards": 3, "number_of_replicas": 1, "analysis": mappings.ANALYSIS}
        assert mappings.ANALYSIS["tokenizer"]["genbench_tokens"] == {
            "type": "pattern",
            "pattern": "[\\p{L}\\p{N}_]+",
            "group": 0,
        }
        assert created["mappings"]["dynamic"] == "strict"
        assert created["mappings"]["properties"] == {
            "unit_id": {"type": "keyword"},
            "original_id": {"type": "keyword"},
            "turn": {"type": "keyword"},
            "source": {"type": "keyword"},
            "text": {"type": "text", "analyzer": "genbench_words", "index_options": "positions", "norms": False},
        }
        (bulk,) = recorder.bodies("PUT", "/_bulk") + recorder.bodies("POST", "/_bulk")
        assert bulk[0] == {"index": {"_index": name, "_id": "0:-1"}}
        assert bulk[1] == {"unit_id": "000000000000", "original_id": "0", "turn": "-1", "source": str(train)} | {
            "text": "a b unit 0"
        }
        assert recorder.bodies("POST", f"/{name}/_refresh")

        result = backend.open(str(train)).search(TestSet.from_texts("t", ["a b"]), SearchMode.create(ngram_size=2))
        assert result.instances[0].raw_score == 1.0 and result.instances[0].matches[0].unit_id == 0
        assert [body for m, p, body in recorder.requests if p == f"/{name}/_pit"] == [None]
        pages = [body[1] for body in recorder.bodies("POST", "/_msearch")]
        assert [page.get("search_after") for page in pages] == [None, ["000000000001", 7], ["000000000003", 7]]
        assert pages[0] == {
            "query": {"match_phrase": {"text": {"query": "a b", "slop": 0}}},
            "size": 2,
            "sort": [{"unit_id": "asc"}],
            "_source": False,
            "track_total_hits": False,
            "pit": {"id": "pit-1", "keep_alive": "5m"},
        }
        assert all("from" not in page for page in pages)
        assert recorder.bodies("DELETE", "/_pit") == [{"id": "pit-1"}]


def test_vector_index_requests_and_cosine_scores(tmp_path, write_jsonl):
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": "What is the capital of Australia?"}, {"text": "Hi"}])
    with RecorderServer() as recorder:
        backend = ElasticsearchBackend(recorder.url, request_timeout=5, num_candidates=50)
        manifest = backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"), index_type="vector")
        assert manifest["name"].endswith("_vector") and manifest["counts"]["dimension"] == 384
        created = recorder.bodies("PUT", "/" + manifest["name"])[0]
        assert created["mappings"]["properties"]["vector"] == {
            "type": "dense_vector",
            "dims": 384,
            "index": True,
            "similarity": "cosine",
            "index_options": {"type": "hnsw"},
        }
        bulk = (recorder.bodies("PUT", "/_bulk") + recorder.bodies("POST", "/_bulk"))[0]
        assert len(bulk[1]["vector"]) == 384 and "text" not in bulk[1]

        recorder.knn_hits = [(0.95, 0), (0.75, 1)]  # Elasticsearch's (1 + cos) / 2: cosines 0.9 and 0.5
        tests = TestSet.from_texts("t", ["capital of Australia?"])
        result = backend.open(str(train), index_type="vector").search(
            tests, SearchMode.create(index_type="vector", match_threshold=0.6), top_k=2
        )
        instance = result.instances[0]
        assert [m.score for m in instance.matches] == pytest.approx([0.9, 0.5])
        assert instance.raw_score == pytest.approx(0.9) and instance.score == 1.0
        assert result.matched_units.tolist() == [0] and result.matched_rows.tolist() == [0]
        knn = [body[1]["knn"] for body in recorder.bodies("POST", "/_msearch")]
        assert (knn[0]["k"], knn[0]["num_candidates"], knn[0]["field"]) == (2, 50, "vector")
        assert "similarity" not in knn[0] and knn[1]["similarity"] == 0.6 and knn[1]["k"] == 50
        assert len(knn[0]["query_vector"]) == 384
        headers = [body[0] for body in recorder.bodies("POST", "/_msearch")]
        assert headers[0] == {"index": manifest["name"]}
