"""Reranking: genbench's cross-encoder reranking evaluator and metric core against sentence-transformers'.

Usage::

    python benchmarks/reranking.py [--queries 10000] [--candidates 100] [--runs 5]

Data (seeded): ``--queries`` queries, each with 0 to 3 positives and negatives up to ``--candidates`` candidates,
drawn from a pool of distinct documents; about 3% of the queries have no positive (not scored, 0 on every metric).
The stand-in model (``_reranking_child.StandInModel``) scores a pair by its document's length (so there are ties),
in C; both evaluators get the same one, so the figures measure the evaluators, not a model.

Measured, each side ``--runs`` times, same run:

* end to end: ``CrossEncoderRerankingEvaluator(samples, at_k=10)`` then ``evaluator(model)``, each run in a fresh
  process (``_reranking_child.py``): the whole process (interpreter, imports, reading the samples) and, inside it,
  construct + call; the metrics of both must agree to 1e-12;
* metric core, scores only (no model, no samples): sentence-transformers' per-query ``compute_metrics`` loop (as its
  evaluator runs it) against ``genbench.reranking.ranking_metrics_per_query``, on continuous scores and on scores
  with ties; every per-query value must agree (MRR exactly, MAP and NDCG to 1e-12).

Results: ``benchmarks/results/reranking.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ratio, row, summary, time_calls, versions, write_results  # noqa: E402

CHILD = str(Path(__file__).resolve().parent / "_reranking_child.py")
TOLERANCE = 1e-12


def make_samples(queries: int, candidates: int, seed: int) -> list[dict[str, Any]]:
    """Samples with ``positive`` and ``negative`` lists drawn from a pool of documents of 3 to 40 words."""
    rng = np.random.default_rng(seed)
    pool_size = max(queries * 20, 1000)
    words = rng.integers(1, 38, size=pool_size).tolist()
    documents = [
        f"document {i} " + " ".join(f"w{(i * 7 + k) % 1000}" for k in range(words[i])) for i in range(pool_size)
    ]
    samples = []
    for number in range(queries):
        picked = rng.choice(pool_size, size=candidates, replace=False).tolist()
        positives = 0 if rng.random() < 0.03 else int(rng.integers(1, 4))
        samples.append(
            {
                "query": f"query {number}",
                "positive": [documents[i] for i in picked[:positives]],
                "negative": [documents[i] for i in picked[positives:]],
            }
        )
    return samples


def end_to_end(side: str, samples_path: str, runs: int) -> dict[str, Any]:
    whole, inside, metrics = [], [], None
    for _ in range(runs):
        start = time.perf_counter()
        completed = subprocess.run(
            [sys.executable, CHILD, side, samples_path], capture_output=True, text=True, check=False
        )
        whole.append(time.perf_counter() - start)
        if completed.returncode != 0:
            raise SystemExit(f"{side} run failed:\n{completed.stderr}")
        result = json.loads(completed.stdout.splitlines()[-1])
        inside.append(result["seconds"])
        metrics = result["metrics"]
    return {"whole_process": summary(whole), "construct_and_call": summary(inside), "metrics": metrics}


def make_rankings(queries: int, candidates: int, seed: int, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    scores = rng.random((queries, candidates), dtype=np.float32)
    if ties:
        scores = np.round(scores, 2).astype(np.float32)
    labels = (rng.random((queries, candidates)) < 0.05).astype(np.int64)
    return scores, labels


def sentence_transformers_core(scores: np.ndarray, labels: np.ndarray, at_k: int) -> dict[str, np.ndarray]:
    """The metric part of sentence-transformers' ``CrossEncoderRerankingEvaluator.__call__``, query by query."""
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderRerankingEvaluator

    evaluator = CrossEncoderRerankingEvaluator(samples=[], at_k=at_k)
    mrr, ndcg, ap = [], [], []
    for row_scores, row_labels in zip(scores, labels, strict=True):
        is_relevant = row_labels.tolist()
        values = (0, 0, 0) if sum(is_relevant) == 0 else evaluator.compute_metrics(is_relevant, row_scores)
        mrr.append(values[0])
        ndcg.append(values[1])
        ap.append(values[2])
    return {"map": np.array(ap, float), f"mrr@{at_k}": np.array(mrr, float), f"ndcg@{at_k}": np.array(ndcg, float)}


def genbench_core(scores: np.ndarray, labels: np.ndarray, at_k: int) -> dict[str, np.ndarray]:
    from genbench.reranking import ranking_metrics_per_query

    return ranking_metrics_per_query(scores, labels, at_k=at_k)


def check_core(ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> float:
    worst = 0.0
    for key, expected in theirs.items():
        got = ours[key]
        if key.startswith("mrr") and not np.array_equal(got, expected):
            raise SystemExit(f"per-query {key} differs from sentence-transformers'")
        difference = float(np.max(np.abs(got - expected))) if expected.size else 0.0
        if difference > TOLERANCE:
            raise SystemExit(f"per-query {key} differs from sentence-transformers' by {difference}")
        worst = max(worst, difference)
    return worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--candidates", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure and side")
    parser.add_argument("--no-write", action="store_true", help="do not write benchmarks/results/")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    at_k = 10

    payload: dict[str, Any] = {
        "workload": {"queries": args.queries, "candidates": args.candidates, "at_k": at_k, "runs": args.runs},
        "versions": versions("genbench", "sentence-transformers", "numpy", "scikit-learn"),
    }
    print(f"reranking: {args.queries} queries x {args.candidates} candidates, at_k={at_k}, {args.runs} runs each")
    with tempfile.TemporaryDirectory(prefix="genbench-bench-rerank-") as scratch:
        samples_path = os.path.join(scratch, "samples.json")
        with open(samples_path, "w", encoding="utf-8") as handle:
            json.dump({"samples": make_samples(args.queries, args.candidates, args.seed)}, handle)
        ours = end_to_end("genbench", samples_path, args.runs)
        theirs = end_to_end("sentence-transformers", samples_path, args.runs)
    differences = {key: abs(ours["metrics"][key] - value) for key, value in theirs["metrics"].items()}
    if set(ours["metrics"]) != set(theirs["metrics"]) or max(differences.values()) > TOLERANCE:
        raise SystemExit(f"metrics differ: genbench {ours['metrics']}, sentence-transformers {theirs['metrics']}")
    print(row("genbench evaluator, whole process", ours["whole_process"]))
    print(row("sentence-transformers evaluator, whole process", theirs["whole_process"]))
    print(row("genbench evaluator, construct + call", ours["construct_and_call"]))
    print(row("sentence-transformers evaluator, construct + call", theirs["construct_and_call"]))
    e2e_ratios = {
        "whole_process": ratio(theirs["whole_process"], ours["whole_process"]),
        "construct_and_call": ratio(theirs["construct_and_call"], ours["construct_and_call"]),
    }
    print(
        f"  median ratios: whole process {e2e_ratios['whole_process']:.1f}x, construct + call "
        f"{e2e_ratios['construct_and_call']:.1f}x; metrics {theirs['metrics']} agree to "
        f"{max(differences.values()):.1e}"
    )
    payload["end_to_end"] = {
        "genbench": {k: v for k, v in ours.items() if k != "metrics"},
        "sentence_transformers": {k: v for k, v in theirs.items() if k != "metrics"},
        "metrics": theirs["metrics"],
        "max_abs_difference": max(differences.values()),
        "ratios": e2e_ratios,
    }

    payload["metric_core"] = {}
    for case, ties in (("continuous scores", False), ("scores with ties (2 decimals)", True)):
        scores_2d, labels = make_rankings(args.queries, args.candidates, args.seed, ties)
        their_times, their_values = time_calls(
            lambda s=scores_2d, lab=labels: sentence_transformers_core(s, lab, at_k), args.runs
        )
        our_times, our_values = time_calls(lambda s=scores_2d, lab=labels: genbench_core(s, lab, at_k), args.runs)
        worst = check_core(our_values, their_values)
        figures = {"genbench": summary(our_times), "sentence_transformers": summary(their_times)}
        figures["ratio"] = ratio(figures["sentence_transformers"], figures["genbench"])
        figures["max_abs_difference"] = worst
        payload["metric_core"][case] = figures
        print(row(f"metric core, {case}: genbench", figures["genbench"]))
        print(row(f"metric core, {case}: sentence-transformers", figures["sentence_transformers"]))
        print(f"  median ratio {figures['ratio']:.1f}x, per-query values agree to {worst:.1e}")
    if not args.no_write:
        print(f"written {write_results('reranking', payload)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
