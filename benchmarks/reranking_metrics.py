"""Time genbench's vectorised reranking metrics against sentence-transformers' per-query computation.

Usage::

    python benchmarks/reranking_metrics.py [--queries 10000] [--candidates 100] [--seed 0] [--repeats 3]

The data are seeded: ``--queries`` queries, each with ``--candidates`` float32 scores (as ``CrossEncoder.predict``
returns them) and relevance labels (about 5% relevant, so some queries have no relevant candidate). Two score
kinds are timed: continuous scores, and scores rounded to two decimals (many ties, where MRR depends on numpy's
sort order for ties). A third case gives every query its own number of candidates (50 to ``--candidates``).

The baseline is sentence-transformers' own code: the per-query loop of ``CrossEncoderRerankingEvaluator.__call__``
over precomputed scores (a query without relevant candidate scores 0; the others go through the evaluator's
``compute_metrics``, i.e. ``np.argsort`` + ``sklearn.metrics.ndcg_score`` + ``average_precision_score``), then the
means. genbench computes the same per-query values with ``ranking_metrics_per_query``; the script asserts that
every per-query value agrees (MRR exactly, MAP/NDCG to 1e-12) and prints both times and the speed-up.

A last row times the binary-classification thresholds (``BinaryClassificationEvaluator.find_best_acc_and_threshold``
and ``find_best_f1_and_threshold``, Python loops over sorted pairs) against genbench's vectorised versions.
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings

import numpy as np


def make_rankings(num_queries: int, num_candidates: int, seed: int, ties: bool, ragged: bool):
    rng = np.random.default_rng(seed)
    scores = rng.random((num_queries, num_candidates), dtype=np.float32)
    if ties:
        scores = np.round(scores, 2).astype(np.float32)
    labels = (rng.random((num_queries, num_candidates)) < 0.05).astype(np.int64)
    lengths = (
        rng.integers(num_candidates // 2, num_candidates + 1, num_queries)
        if ragged
        else np.full(num_queries, num_candidates)
    )
    return scores, labels, lengths


def sentence_transformers_metrics(scores, labels, lengths, at_k: int):
    """The metric part of sentence-transformers' CrossEncoderRerankingEvaluator, query by query."""
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderRerankingEvaluator

    evaluator = CrossEncoderRerankingEvaluator(samples=[], at_k=at_k)
    mrr, ndcg, ap = [], [], []
    for row_scores, row_labels, length in zip(scores, labels, lengths, strict=True):
        is_relevant = row_labels[:length].tolist()
        # As in the evaluator: a query without relevant candidate is not scored and counts as 0.
        values = (0, 0, 0) if sum(is_relevant) == 0 else evaluator.compute_metrics(is_relevant, row_scores[:length])
        mrr.append(values[0])
        ndcg.append(values[1])
        ap.append(values[2])
    return {"map": np.array(ap, float), f"mrr@{at_k}": np.array(mrr, float), f"ndcg@{at_k}": np.array(ndcg, float)}


def genbench_metrics(scores, labels, lengths, at_k: int):
    from genbench.reranking import ranking_metrics_per_query

    mask = np.arange(scores.shape[1]) < lengths[:, None]
    return ranking_metrics_per_query(scores, labels, at_k=at_k, mask=mask)


def best_time(function, repeats: int):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def check_same(ours: dict, theirs: dict) -> float:
    worst = 0.0
    for key, expected in theirs.items():
        got = ours[key]
        if key.startswith("mrr"):
            assert np.array_equal(got, expected), f"{key} differs"
        difference = float(np.max(np.abs(got - expected))) if expected.size else 0.0
        assert difference <= 1e-12, f"{key} differs by {difference}"
        assert abs(float(np.mean(got)) - float(np.mean(expected))) <= 1e-12
        worst = max(worst, difference)
    return worst


def classification_row(num_pairs: int, seed: int, repeats: int) -> None:
    from sentence_transformers.sentence_transformer.evaluation import BinaryClassificationEvaluator

    from genbench.reranking import find_best_accuracy_and_threshold, find_best_f1_and_threshold

    rng = np.random.default_rng(seed)
    scores = np.round(rng.random(num_pairs, dtype=np.float32), 3).astype(np.float32)
    labels = (rng.random(num_pairs) < 0.3).astype(np.int64)

    def theirs():
        return (
            BinaryClassificationEvaluator.find_best_acc_and_threshold(scores, labels, True),
            BinaryClassificationEvaluator.find_best_f1_and_threshold(scores, labels, True),
        )

    def ours():
        return find_best_accuracy_and_threshold(scores, labels), find_best_f1_and_threshold(scores, labels)

    their_time, their_result = best_time(theirs, 1)
    our_time, our_result = best_time(ours, repeats)
    assert our_result[0] == tuple(float(v) for v in their_result[0])
    assert our_result[1] == tuple(float(v) for v in their_result[1])
    print(
        f"{'binary thresholds, ' + str(num_pairs) + ' pairs':<42} {their_time:>10.3f} s {our_time:>10.4f} s "
        f"{their_time / our_time:>9.1f}x   identical"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--candidates", type=int, default=100)
    parser.add_argument("--at-k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="genbench runs per case; the best time counts")
    parser.add_argument("--pairs", type=int, default=200_000, help="pairs of the classification row")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")

    import sentence_transformers

    print(f"sentence-transformers {sentence_transformers.__version__}, numpy {np.__version__}")
    print(f"{args.queries} queries x {args.candidates} candidates, at_k={args.at_k}, seed={args.seed}")
    print(f"{'case':<42} {'sentence-tr.':>12} {'genbench':>12} {'speed-up':>10}   max |diff|")
    for label, ties, ragged in (
        ("continuous scores", False, False),
        ("scores with ties (2 decimals)", True, False),
        ("ragged (50-100 candidates), ties", True, True),
    ):
        scores, labels, lengths = make_rankings(args.queries, args.candidates, args.seed, ties, ragged)
        their_time, theirs = best_time(
            lambda s=scores, lab=labels, n=lengths: sentence_transformers_metrics(s, lab, n, args.at_k), 1
        )
        our_time, ours = best_time(
            lambda s=scores, lab=labels, n=lengths: genbench_metrics(s, lab, n, args.at_k), args.repeats
        )
        worst = check_same(ours, theirs)
        print(f"{label:<42} {their_time:>10.3f} s {our_time:>10.4f} s {their_time / our_time:>9.1f}x   {worst:.1e}")
    classification_row(args.pairs, args.seed, args.repeats)


if __name__ == "__main__":
    main()
