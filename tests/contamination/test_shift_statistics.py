"""Every shift statistic equals a brute-force count on generated corpora, on every engine that computes it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from genbench.contamination.shift import measure_shift, open_corpus
from genbench.contamination.shift.infinigram import build_infinigram_index
from genbench.contamination.testsets import TestSet
from tests.contamination.shift_support import BruteForce, generated_documents, test_examples, write_corpus

pytest.importorskip("infini_gram")

NGRAM_SIZES = (1, 3, 8)
RAREST = 4
ENGINES = [
    ("infini-gram", "bytes", 1),
    ("infini-gram", "bytes", 3),
    ("infini-gram", "words", 1),
    ("infini-gram", "words", 3),
]


@pytest.fixture(scope="module")
def corpus_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus"), generated_documents())


@pytest.fixture(scope="module")
def indexes(corpus_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, int], Path]:
    root = tmp_path_factory.mktemp("indexes")
    return {
        (engine, tokenizer, shards): build_infinigram_index(
            [corpus_folder], root / f"{tokenizer}-{shards}", name="generated", tokenizer=tokenizer, shards=shards
        )
        for engine, tokenizer, shards in ENGINES
    }


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: f"{e[0]}-{e[1]}-{e[2]}shards")
def test_every_statistic_equals_brute_force(engine: tuple[str, str, int], indexes: dict) -> None:
    documents = generated_documents()
    examples = test_examples(documents)
    corpus = open_corpus(indexes[engine])
    brute = BruteForce(documents, engine[1])
    assert corpus.identity.tokens == sum(len(doc) for doc in brute.documents)
    assert corpus.identity.documents == len(documents)

    [result] = measure_shift(
        TestSet.from_texts("generated", examples), corpus=corpus, ngram_sizes=NGRAM_SIZES, rarest=RAREST
    )

    assert result.report["not_computed"] == {}
    for text, measured in zip(examples, result.examples, strict=True):
        expected = brute.example(text, NGRAM_SIZES, RAREST)
        got = measured.as_json()
        assert {key: got[key] for key in expected} == expected, text
    found = [e for e in result.examples if e.longest_span and e.longest_span.tokens > 0]
    assert found and any(e.longest_span.count > 1 for e in found)  # the test sees spans that repeat
    entropy = result.report["unigram_cross_entropy"]
    assert math.isclose(entropy["bits_per_token"], brute.cross_entropy(examples), rel_tol=1e-12)


def test_shards_do_not_change_a_number(indexes: dict) -> None:
    examples = test_examples(generated_documents())
    reports = {}
    for key in [("infini-gram", "bytes", 1), ("infini-gram", "bytes", 3)]:
        [result] = measure_shift(TestSet.from_texts("t", examples), corpus=open_corpus(indexes[key]))
        reports[key] = [e.as_json() for e in result.examples]
    assert reports[("infini-gram", "bytes", 1)] == reports[("infini-gram", "bytes", 3)]


def test_empty_and_short_examples_have_no_share(indexes: dict) -> None:
    corpus = open_corpus(indexes[("infini-gram", "words", 1)])
    [result] = measure_shift(TestSet.from_texts("t", ["", "a b"]), corpus=corpus, ngram_sizes=(3,))
    empty, short = result.examples
    assert empty.ngram_hit_share == {3: None} and empty.longest_span.tokens == 0 and empty.longest_span.count is None
    assert short.ngram_hit_share == {3: None} and short.rarest_ngrams == {3: []}
    assert result.report["summary"]["ngram_hit_share"]["3"] == {"mean": None, "interval": None, "examples": 0}
    assert result.report["summary"]["flagged"]["count"] == 0
