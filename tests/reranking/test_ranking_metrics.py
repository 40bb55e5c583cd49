"""The ranking-metric core: hand-computed cases, ties, zero positives, input forms, and agreement with the
per-query computation of sentence-transformers' ``CrossEncoderRerankingEvaluator`` on random data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from genbench.reranking import pad_ragged, ranking_metrics, ranking_metrics_per_query

LOG2 = math.log2


def st_per_query(labels, scores, at_k):
    """What sentence-transformers 6.2 computes per query (``compute_metrics``), zero-positive queries as 0."""
    from sklearn.metrics import average_precision_score, ndcg_score  # here: importing it slows down collection

    if sum(labels) == 0:
        return 0.0, 0.0, 0.0
    ranking = np.argsort(scores)[::-1]
    mrr = 0.0
    for rank, index in enumerate(ranking[:at_k]):
        if labels[index]:
            mrr = 1 / (rank + 1)
            break
    ndcg = ndcg_score([labels], [scores], k=at_k)
    ap = average_precision_score(labels, scores)
    return mrr, ndcg, ap


def test_hand_computed_ranking():
    out = ranking_metrics([[0.9, 0.8, 0.7, 0.6]], [[0, 1, 0, 1]], at_k=10)
    dcg = 1 / LOG2(3) + 1 / LOG2(5)
    ideal = 1 + 1 / LOG2(3)
    assert out["mrr@10"] == 0.5
    assert out["map"] == pytest.approx((1 / 2 + 2 / 4) / 2, abs=1e-15)
    assert out["ndcg@10"] == pytest.approx(dcg / ideal, abs=1e-15)


def test_cut_off_at_k():
    out = ranking_metrics([[0.9, 0.8, 0.7, 0.6]], [[0, 1, 0, 1]], at_k=1)
    assert out == {"map": 0.5, "mrr@1": 0.0, "ndcg@1": 0.0}
    out = ranking_metrics([[0.9, 0.8, 0.7, 0.6]], [[0, 1, 0, 1]], at_k=2)
    assert out["mrr@2"] == 0.5
    assert out["ndcg@2"] == pytest.approx((1 / LOG2(3)) / (1 + 1 / LOG2(3)), abs=1e-15)


def test_ties_average_gain_and_share_one_threshold():
    # Two tied candidates, one relevant: AP has one threshold (precision 1/2); NDCG averages the gain over
    # ranks 1 and 2.
    out = ranking_metrics_per_query([[0.5, 0.5, 0.1]], [[1, 0, 0]], at_k=10)
    assert out["map"][0] == 0.5
    assert out["ndcg@10"][0] == pytest.approx(0.5 * (1 + 1 / LOG2(3)), abs=1e-15)
    at_1 = ranking_metrics_per_query([[0.5, 0.5, 0.1]], [[1, 0, 0]], at_k=1)
    assert at_1["ndcg@1"][0] == 0.5


def test_ties_for_mrr_follow_reversed_argsort():
    # sentence-transformers ranks with np.argsort(scores)[::-1]: for a short row the sort is stable, so the
    # later of two tied candidates comes first.
    assert ranking_metrics([[0.5, 0.5]], [[1, 0]])["mrr@10"] == 0.5
    assert ranking_metrics([[0.5, 0.5]], [[0, 1]])["mrr@10"] == 1.0


def test_zero_positive_queries_score_zero_and_count_in_the_mean():
    per_query = ranking_metrics_per_query([[0.3, 0.2], [0.9, 0.1]], [[0, 0], [1, 0]], at_k=10)
    for values in per_query.values():
        assert values.tolist() == [0.0, 1.0]
    assert ranking_metrics([[0.3, 0.2], [0.9, 0.1]], [[0, 0], [1, 0]]) == {"map": 0.5, "mrr@10": 0.5, "ndcg@10": 0.5}


def test_empty_query_and_single_candidate():
    out = ranking_metrics_per_query([[], [0.4]], [[], [1]], at_k=10)
    assert [v.tolist() for v in out.values()] == [[0.0, 1.0]] * 3


def test_num_relevant_counts_unretrieved_documents():
    out = ranking_metrics([[0.9, 0.1]], [[1, 0]], at_k=10, num_relevant=[2])
    assert out["mrr@10"] == 1.0
    assert out["map"] == 0.5
    assert out["ndcg@10"] == pytest.approx(1 / (1 + 1 / LOG2(3)), abs=1e-15)
    # More relevant documents than candidates: the ideal DCG still runs over all of them (up to k).
    out = ranking_metrics([[0.9]], [[1]], at_k=3, num_relevant=[5])
    assert out["ndcg@3"] == pytest.approx(1 / (1 + 1 / LOG2(3) + 1 / 2), abs=1e-15)


def test_input_forms_agree():
    rng = np.random.default_rng(3)
    rows = [rng.random(n).astype(np.float32) for n in (5, 3, 8, 1)]
    labels = [(rng.random(len(r)) < 0.4).astype(int) for r in rows]
    ragged = ranking_metrics(rows, labels, at_k=3)
    padded, mask = pad_ragged(rows)
    padded_labels, _ = pad_ragged(labels)
    assert ranking_metrics(padded, padded_labels, at_k=3, mask=mask) == ragged
    # Real entries may sit anywhere in a row: they are taken in order.
    scattered = np.zeros((4, 10), dtype=np.float32)
    scattered_labels = np.zeros((4, 10), dtype=int)
    scattered_mask = np.zeros((4, 10), dtype=bool)
    for i, (r, lab) in enumerate(zip(rows, labels, strict=True)):
        cols = np.sort(rng.choice(10, size=len(r), replace=False))
        scattered[i, cols], scattered_labels[i, cols], scattered_mask[i, cols] = r, lab, True
    assert ranking_metrics(scattered, scattered_labels, at_k=3, mask=scattered_mask) == ragged
    bools = ranking_metrics([r.tolist() for r in rows], [lab.astype(bool) for lab in labels], at_k=3)
    assert bools.keys() == ragged.keys()


@pytest.mark.parametrize("seed", range(40))
def test_vectorised_equals_per_query_computation(seed):
    rng = np.random.default_rng(seed)
    at_k = int(rng.choice([1, 2, 3, 5, 10, 20, 100]))
    rows, labels = [], []
    for _ in range(25):
        n = int(rng.integers(2, 60))
        if seed % 3 == 0:  # heavy ties, float32 as CrossEncoder.predict returns
            scores = rng.integers(0, int(rng.integers(2, 6)), n).astype(np.float32)
        elif seed % 3 == 1:
            scores = rng.random(n).astype(np.float32)
        else:
            scores = np.round(rng.normal(size=n), 1)  # float64 with ties
        rows.append(scores)
        labels.append((rng.random(n) < rng.uniform(0, 0.5)).astype(int))
    got = ranking_metrics_per_query(rows, labels, at_k=at_k)
    for q, (scores, lab) in enumerate(zip(rows, labels, strict=True)):
        mrr, ndcg, ap = st_per_query(list(lab), scores, at_k)
        assert got[f"mrr@{at_k}"][q] == mrr
        assert got[f"ndcg@{at_k}"][q] == pytest.approx(ndcg, abs=1e-12)
        assert got["map"][q] == pytest.approx(ap, abs=1e-12)


def test_long_rows_with_ties_match_unstable_argsort():
    # Rows longer than 16 go through numpy's unstable (SIMD) sort; grouping rows by length reproduces its order.
    rng = np.random.default_rng(11)
    rows = [rng.integers(0, 3, int(n)).astype(np.float32) for n in rng.integers(17, 300, 60)]
    labels = [(rng.random(len(r)) < 0.2).astype(int) for r in rows]
    got = ranking_metrics_per_query(rows, labels, at_k=100)["mrr@100"]
    expected = [st_per_query(list(lab), r, 100)[0] for r, lab in zip(rows, labels, strict=True)]
    assert got.tolist() == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scores": [[0.1, 0.2]], "labels": [[1, 2]]}, "labels must be 0/1"),
        ({"scores": [[0.1, float("nan")]], "labels": [[1, 0]]}, "NaN"),
        ({"scores": [[0.1, 0.2]], "labels": [[1]]}, "query 0: 2 scores but 1 labels"),
        ({"scores": [[0.1]], "labels": [[1]], "at_k": 0}, "at_k must be a positive integer"),
        ({"scores": [[0.1, 0.2]], "labels": [[1, 1]], "num_relevant": [1]}, r"num_relevant\[0\]"),
        ({"scores": np.zeros((2, 2)), "labels": np.zeros((2, 3))}, "shape"),
    ],
)
def test_invalid_inputs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ranking_metrics(**kwargs)
