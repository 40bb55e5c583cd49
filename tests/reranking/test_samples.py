"""Reranking samples: validation messages, candidate building, metrics from precomputed scores, and the
``penalize_missing_positives`` correction of sentence-transformers' inflated reranked metrics."""

from __future__ import annotations

import numpy as np
import pytest

from genbench.reranking import CrossEncoderRerankingEvaluator, RerankingSamples

from .reranking_helpers import LookupModel

GOOD = {"query": "q", "positive": ["p"], "negative": ["n"]}


@pytest.mark.parametrize(
    ("bad_sample", "message"),
    [
        ({"positive": ["p"], "negative": ["n"]}, r"samples\[1\]: missing required key 'query'"),
        ({"query": "q", "negative": ["n"]}, r"samples\[1\]: missing required key 'positive'"),
        ({"query": "q", "positive": ["p"]}, r"samples\[1\]: missing key 'negative' or 'documents'"),
        (
            {"query": "q", "positive": ["p"], "negative": ["n"], "documents": ["p"]},
            r"samples\[1\]: has both 'negative' and 'documents'",
        ),
        ({"query": "q", "positive": ["p"], "documents": []}, r"samples\[1\]\['documents'\] is an empty list"),
        ({"query": "q", "positive": [], "negative": []}, r"samples\[1\]: 'positive' and 'negative' are both empty"),
        ({"query": "q", "positive": ["p"], "negative": "n"}, r"samples\[1\]\['negative'\] must be a list"),
        ({"query": "q", "positive": 3, "negative": ["n"]}, r"samples\[1\]\['positive'\] must be a list"),
        ({"query": "", "positive": ["p"], "negative": ["n"]}, r"samples\[1\]\['query'\] is empty"),
        ({"query": "q", "positive": ["p", None], "negative": ["n"]}, r"samples\[1\]\['positive'\]\[1\] is None"),
        ("not a dict", r"samples\[1\]: expected a dict"),
    ],
)
def test_bad_samples_name_index_and_key(bad_sample, message):
    with pytest.raises(ValueError, match=message):
        CrossEncoderRerankingEvaluator([GOOD, bad_sample])


def test_other_constructor_errors():
    with pytest.raises(ValueError, match="samples is empty"):
        CrossEncoderRerankingEvaluator([])
    with pytest.raises(ValueError, match="at_k must be a positive integer"):
        CrossEncoderRerankingEvaluator([GOOD], at_k=0)
    with pytest.raises(ValueError, match="batch_size"):
        CrossEncoderRerankingEvaluator([GOOD], batch_size=0)


def test_samples_given_as_a_dict_and_a_single_positive_string():
    prepared = RerankingSamples({"a": {"query": "q", "positive": "p", "documents": ["x", "p", "y"]}})
    assert prepared.candidates == [["p", "x", "y"]]
    assert prepared.pairs == [["q", "p"], ["q", "x"], ["q", "y"]]


def test_candidates_follow_sentence_transformers():
    sample = {"query": "q", "positive": ["p1", "p2"], "documents": ["d1", "p2", "d2"]}
    assert RerankingSamples([sample]).candidates == [["p1", "p2", "d1", "d2"]]
    assert RerankingSamples([sample], always_rerank_positives=False).candidates == [["d1", "p2", "d2"]]
    zero = {"query": "z", "positive": [], "negative": ["n1", "n2"]}
    prepared = RerankingSamples([sample, zero])
    assert prepared.scored.tolist() == [True, False]
    assert len(prepared.pairs) == 4  # the sample without positives is not scored
    assert prepared.statistics_line() == (
        "Queries: 2\tPositives: Min 0.0, Mean 1.0, Max 2.0\tNegatives: Min 2.0, Mean 2.0, Max 2.0"
    )


def test_metrics_from_precomputed_scores():
    samples = [
        {"query": "q1", "positive": ["a"], "negative": ["b", "c"]},
        {"query": "q2", "positive": ["d"], "documents": ["e", "d", "f"]},
    ]
    prepared = RerankingSamples(samples)
    flat = prepared.compute_metrics(np.array([0.1, 0.9, 0.5, 0.8, 0.2, 0.3]), at_k=10)
    per_sample = prepared.compute_metrics([[0.1, 0.9, 0.5], [0.8, 0.2, 0.3]], at_k=10)
    assert flat == per_sample
    assert flat["mrr@10"] == pytest.approx((1 / 3 + 1) / 2)
    # Base: d is second of e, d, f.
    assert flat["base_mrr@10"] == 0.5
    with pytest.raises(ValueError, match="expected 6 scores"):
        prepared.compute_metrics([0.1, 0.2])
    with pytest.raises(ValueError, match=r"scores\[1\] has shape"):
        prepared.compute_metrics([[0.1, 0.9, 0.5], [0.8, 0.2]])


def first_stage_model(samples):
    """A 'reranker' that keeps each sample's ``documents`` order (and puts extra positives last)."""
    score_of = {}
    for sample in samples:
        for rank, document in enumerate(sample["documents"]):
            score_of.setdefault((sample["query"], document), float(-rank))
        for document in sample["positive"]:
            score_of.setdefault((sample["query"], document), -1000.0)
    return LookupModel(score_of)


MISSING = [
    # p2 and p3 are relevant but not in the first-stage list.
    {"query": "q1", "positive": ["p1", "p2", "p3"], "documents": ["n1", "p1", "n2", "n3"]},
    {"query": "q2", "positive": ["p4"], "documents": ["p4", "n4", "n5"]},
    {"query": "q3", "positive": ["p5"], "documents": ["n6", "n7"]},  # no positive retrieved
]


def test_sentence_transformers_inflates_reranked_metrics_of_missing_positives(st_evaluation):
    model = first_stage_model(MISSING)
    ours = CrossEncoderRerankingEvaluator(MISSING, at_k=3, always_rerank_positives=False)(model)
    theirs = st_evaluation.CrossEncoderRerankingEvaluator(MISSING, at_k=3, always_rerank_positives=False)(model)
    assert ours == pytest.approx(theirs, abs=1e-12)
    # The reranker reproduces the first stage, yet sentence-transformers reports an improvement: its reranked
    # metrics ignore the missing positives (q1 looks like a query with one relevant document).
    assert ours["map"] > ours["base_map"]
    assert ours["ndcg@3"] > ours["base_ndcg@3"]


def test_penalize_missing_positives_measures_base_and_reranked_alike():
    model = first_stage_model(MISSING)
    results = CrossEncoderRerankingEvaluator(MISSING, always_rerank_positives=False, penalize_missing_positives=True)(
        model
    )
    for metric in ("map", "mrr@10", "ndcg@10"):
        assert results[metric] == pytest.approx(results[f"base_{metric}"], abs=1e-15)
    # q1: p1 at rank 2 of 3 relevant -> AP (1/2)/3; q2: AP 1; q3: 0.
    assert results["map"] == pytest.approx((1 / 6 + 1 + 0) / 3)
    ideal_q1 = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert results["ndcg@10"] == pytest.approx(((1 / np.log2(3)) / ideal_q1 + 1 + 0) / 3)


def test_penalize_changes_nothing_without_missing_positives():
    samples = [{"query": "q", "positive": ["p"], "documents": ["n1", "p", "n2"]}]
    model = first_stage_model(samples)
    for always in (True, False):
        plain = CrossEncoderRerankingEvaluator(samples, always_rerank_positives=always)(model)
        fixed = CrossEncoderRerankingEvaluator(
            samples, always_rerank_positives=always, penalize_missing_positives=True
        )(model)
        assert plain == fixed


@pytest.mark.parametrize("enabled", [True, False])
def test_building_samples_and_pairs_leaves_the_garbage_collector_as_it_was(enabled):
    import gc

    was = gc.isenabled()
    try:
        if enabled:
            gc.enable()
        else:
            gc.disable()
        prepared = RerankingSamples([GOOD, {"query": "r", "positive": ["a"], "documents": ["b", "a"]}])
        assert prepared.pairs == [["q", "p"], ["q", "n"], ["r", "a"], ["r", "b"]]
        assert gc.isenabled() is enabled
        with pytest.raises(ValueError, match=r"samples\[0\]\['negative'\]\[1\] is None"):
            RerankingSamples([{"query": "q", "positive": ["p"], "negative": ["n", None]}])
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
