"""Every shift statistic equals a brute-force count on generated corpora, on every engine that computes it."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from genbench.contamination._embedded import EmbeddedBackend
from genbench.contamination._es import ElasticsearchBackend
from genbench.contamination._testsets import TestSet
from genbench.contamination._training_data import UnitSpec, load_training_dataset
from genbench.contamination.shift import CorpusEngine, measure_shift, open_corpus
from genbench.contamination.shift._elasticsearch import ElasticsearchCorpus
from genbench.contamination.shift._infinigram import build_infinigram_index
from tests.contamination.es_support import osmem_client
from tests.contamination.shift_support import (
    BruteForce,
    generated_documents,
    test_examples,
    trained_tokenizer,
    write_corpus,
)

pytest.importorskip("infini_gram")

NGRAM_SIZES = (1, 3, 8)
RAREST = 4
ENGINES = [
    ("infini-gram", "bytes", 1),
    ("infini-gram", "bytes", 3),
    ("infini-gram", "words", 1),
    ("infini-gram", "words", 3),
    ("infini-gram", "hf", 1),
    ("infini-gram", "hf", 3),
    ("embedded", "words", 1),
    ("embedded", "words", 3),
    ("elasticsearch", "words", 1),
]
NOT_COMPUTED = {
    "infini-gram": {},
    "embedded": {"longest_span": "count", "rarest_ngrams": "count"},  # its tables hold units, not occurrences
    # match_phrase counts documents, not occurrences; the analysed field has no unigram counts to read
    "elasticsearch": {"longest_span": "count", "rarest_ngrams": "count", "unigram_cross_entropy": "unigram_counts"},
}


@pytest.fixture(scope="module")
def corpus_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus"), generated_documents())


@pytest.fixture(scope="module")
def indexes(corpus_folder: Path, tmp_path_factory: pytest.TempPathFactory, osmem: Any) -> Iterator[dict]:
    root = tmp_path_factory.mktemp("indexes")
    tokenizer_file = trained_tokenizer(root / "tokenizer", generated_documents())
    built: dict[tuple[str, str, int], Any] = {
        (engine, tokenizer, shards): build_infinigram_index(
            [corpus_folder],
            root / f"{tokenizer}-{shards}",
            name="generated",
            tokenizer=tokenizer,
            tokenizer_file=tokenizer_file if tokenizer == "hf" else None,
            shards=shards,
        )
        for engine, tokenizer, shards in ENGINES
        if engine == "infini-gram"
    }
    one_file = root / "generated.jsonl"
    one_file.write_text("".join(path.read_text("utf-8") for path in sorted(corpus_folder.iterdir())), "utf-8")
    for shards in (1, 3):  # 60 documents: built in 3 shards of 20 rows (which the embedded backend merges)
        backend = EmbeddedBackend(root / f"embedded-{shards}", shard_rows=60 // shards)
        backend.build(load_training_dataset(str(one_file)), UnitSpec(text_field="text"))
        [folder] = [p for p in (root / f"embedded-{shards}").iterdir() if p.name.endswith(".text")]
        built["embedded", "words", shards] = folder
    clone = osmem.clone()  # Elasticsearch through osmem-server, as the backend's other tests
    elasticsearch = ElasticsearchBackend(client=osmem_client(clone.url))
    elasticsearch.build(load_training_dataset(str(one_file)), UnitSpec(text_field="text"))
    built["elasticsearch", "words", 1] = ElasticsearchCorpus(elasticsearch, str(one_file))
    yield built
    clone.close()


def _open(index: Any) -> CorpusEngine:
    return index if isinstance(index, CorpusEngine) else open_corpus(index)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: f"{e[0]}-{e[1]}-{e[2]}shards")
def test_every_statistic_equals_brute_force(engine: tuple[str, str, int], indexes: dict) -> None:
    documents = generated_documents()
    examples = test_examples(documents)
    corpus = _open(indexes[engine])
    brute = BruteForce(documents, engine[1], getattr(corpus, "folder", None))
    assert corpus.identity.tokens == sum(len(doc) for doc in brute.documents)
    assert corpus.identity.documents == len(documents)

    [result] = measure_shift(
        TestSet.from_texts("generated", examples), corpus=corpus, ngram_sizes=NGRAM_SIZES, rarest=RAREST
    )

    not_computed = NOT_COMPUTED[engine[0]]
    assert result.report["not_computed"] == not_computed
    for text, measured in zip(examples, result.examples, strict=True):
        expected = brute.example(text, NGRAM_SIZES, RAREST)
        got = measured.as_json()
        assert all(got[key] is None for key in not_computed if key in got)
        assert {key: got[key] for key in expected if key not in not_computed} == {
            key: value for key, value in expected.items() if key not in not_computed
        }, text
    if "longest_span" not in not_computed:
        found = [e for e in result.examples if e.longest_span and e.longest_span.tokens > 0]
        assert found and any(e.longest_span.count > 1 for e in found)  # the test sees spans that repeat
    assert any(0 < ((e.ngram_hit_share or {}).get(3) or 0) < 1 for e in result.examples)  # partial hits are seen
    entropy = result.report["unigram_cross_entropy"]
    if "unigram_cross_entropy" in not_computed:
        assert entropy is None
    else:
        assert math.isclose(entropy["bits_per_token"], brute.cross_entropy(examples), rel_tol=1e-12)


def test_shards_do_not_change_a_number(indexes: dict) -> None:
    examples = test_examples(generated_documents())
    reports = {}
    for key in ENGINES:
        [result] = measure_shift(TestSet.from_texts("t", examples), corpus=_open(indexes[key]))
        reports[key] = [e.as_json() for e in result.examples], result.report["unigram_cross_entropy"]
    for engine, tokenizer, shards in ENGINES:
        if shards == 3:
            assert reports[engine, tokenizer, 1] == reports[engine, tokenizer, 3]
    # The same statistic on the same corpus and tokenizer gives the same number whatever the engine.
    words = {engine: reports[engine, "words", 1] for engine in ("infini-gram", "embedded", "elasticsearch")}
    shares = {engine: [e["ngram_hit_share"] for e in report[0]] for engine, report in words.items()}
    assert shares["infini-gram"] == shares["embedded"] == shares["elasticsearch"]
    assert words["infini-gram"][1] == words["embedded"][1]


def test_empty_and_short_examples_have_no_share(indexes: dict) -> None:
    corpus = _open(indexes[("infini-gram", "words", 1)])
    [result] = measure_shift(TestSet.from_texts("t", ["", "a b"]), corpus=corpus, ngram_sizes=(3,))
    empty, short = result.examples
    assert empty.ngram_hit_share == {3: None} and empty.longest_span.tokens == 0 and empty.longest_span.count is None
    assert short.ngram_hit_share == {3: None} and short.rarest_ngrams == {3: []}
    assert result.report["summary"]["ngram_hit_share"]["3"] == {"mean": None, "interval": None, "examples": 0}
    assert result.report["summary"]["flagged"]["count"] == 0
