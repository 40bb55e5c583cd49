"""genbench's evaluators against sentence-transformers' own, key by key, on the same tiny CrossEncoder:
returned results, primary metric, logged lines and CSV files."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from genbench.reranking import (
    CrossEncoderClassificationEvaluator,
    CrossEncoderCorrelationEvaluator,
    CrossEncoderRerankingEvaluator,
)

from .reranking_helpers import LookupModel, RoundedScores, random_samples, run_both


@pytest.mark.parametrize("mode", ["negative", "documents", "mixed"])
@pytest.mark.parametrize("always_rerank_positives", [True, False])
@pytest.mark.parametrize("at_k", [1, 3, 10])
def test_reranking_equals_sentence_transformers(
    st_evaluation, cross_encoder, tmp_path, caplog, mode, always_rerank_positives, at_k
):
    samples = random_samples(seed=at_k * 7 + len(mode), mode=mode)
    kwargs = {
        "at_k": at_k,
        "always_rerank_positives": always_rerank_positives,
        "name": f"dev-{mode}",
        "batch_size": 16,
    }
    ours = CrossEncoderRerankingEvaluator(samples, **kwargs)
    theirs = st_evaluation.CrossEncoderRerankingEvaluator(samples, **kwargs)
    results, _ = run_both(ours, theirs, cross_encoder, tmp_path, caplog)
    assert set(results) >= {f"dev-{mode}_map", f"dev-{mode}_mrr@{at_k}", f"dev-{mode}_ndcg@{at_k}"}
    assert (f"dev-{mode}_base_map" in results) == (mode != "negative")


@pytest.mark.parametrize("mode", ["negative", "documents"])
@pytest.mark.parametrize("always_rerank_positives", [True, False])
def test_reranking_with_tied_scores(st_evaluation, cross_encoder, tmp_path, caplog, mode, always_rerank_positives):
    # Scores rounded to one decimal: most candidates tie, so MRR depends on numpy's sort order for ties.
    model = RoundedScores(cross_encoder, decimals=1)
    samples = random_samples(seed=99, mode=mode, num_samples=20)
    kwargs = {"at_k": 5, "always_rerank_positives": always_rerank_positives, "batch_size": 7}
    run_both(
        CrossEncoderRerankingEvaluator(samples, **kwargs),
        st_evaluation.CrossEncoderRerankingEvaluator(samples, **kwargs),
        model,
        tmp_path,
        caplog,
        epoch=2,
        steps=100,
    )


def test_reranking_long_candidate_lists_with_ties(st_evaluation, tmp_path, caplog):
    # More than 16 candidates with tied scores: numpy's argsort is unstable there.
    rng = np.random.default_rng(5)
    samples, score_of = [], {}
    for index in range(30):
        query = f"query {index}"
        documents = [f"doc {index}-{j}" for j in range(int(rng.integers(17, 60)))]
        positives = [d for d in documents if rng.random() < 0.15] or [documents[0]]
        negatives = [d for d in documents if d not in positives]
        samples.append({"query": query, "positive": positives, "negative": negatives})
        score_of.update({(query, d): float(rng.integers(0, 3)) for d in documents})
    model = LookupModel(score_of)
    run_both(
        CrossEncoderRerankingEvaluator(samples, at_k=10, name="long"),
        st_evaluation.CrossEncoderRerankingEvaluator(samples, at_k=10, name="long"),
        model,
        tmp_path,
        caplog,
    )


def test_reranking_unnamed_and_mrr_at_k_alias(st_evaluation, cross_encoder, tmp_path, caplog):
    samples = random_samples(seed=4, mode="documents")
    ours = CrossEncoderRerankingEvaluator(samples, mrr_at_k=5)
    theirs = st_evaluation.CrossEncoderRerankingEvaluator(samples, mrr_at_k=5)
    results, _ = run_both(ours, theirs, cross_encoder, tmp_path, caplog)
    assert "ndcg@5" in results and ours.primary_metric == "ndcg@5"
    assert ours.get_config_dict() == theirs.get_config_dict()


def test_reranking_scores_all_pairs_in_one_batched_call():
    samples = [
        {"query": "q1", "positive": ["a"], "negative": ["b", "c"]},
        {"query": "q2", "positive": [], "negative": ["d"]},  # no positive: not scored
        {"query": "q3", "positive": ["e"], "documents": ["f", "e"]},
    ]
    score_of = {(s["query"], d): 0.5 for s in samples for d in s.get("negative", []) + s.get("documents", [])}
    score_of.update({("q1", "a"): 0.9, ("q3", "e"): 0.1})
    model = LookupModel(score_of)
    CrossEncoderRerankingEvaluator(samples, batch_size=3, show_progress_bar=False)(model)
    assert model.calls == [{"num_pairs": 5, "batch_size": 3, "show_progress_bar": False, "convert_to_numpy": True}]


def test_model_given_as_a_path(cross_encoder_path, cross_encoder):
    samples = random_samples(seed=1, mode="negative")
    evaluator = CrossEncoderRerankingEvaluator(samples, name="p")
    assert evaluator(cross_encoder_path) == evaluator(cross_encoder)


def binary_data(seed: int, size: int = 40):
    rng = np.random.default_rng(seed)
    from .reranking_helpers import WORDS

    pairs = [[" ".join(rng.choice(WORDS, 4)), " ".join(rng.choice(WORDS, 6))] for _ in range(size)]
    pairs[1] = list(pairs[0])  # a duplicate pair: tied scores
    return pairs, rng


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_classification_equals_sentence_transformers(st_evaluation, cross_encoder, tmp_path, caplog, seed):
    pairs, rng = binary_data(seed)
    labels = rng.integers(0, 2, len(pairs)).tolist()
    kwargs = {"name": "bin" if seed else "", "batch_size": 8, "show_progress_bar": False}
    ours = CrossEncoderClassificationEvaluator(pairs, labels, **kwargs)
    theirs = st_evaluation.CrossEncoderClassificationEvaluator(pairs, labels, **kwargs)
    model = RoundedScores(cross_encoder, decimals=2) if seed == 2 else cross_encoder
    results, _ = run_both(ours, theirs, model, tmp_path, caplog)
    assert ours.primary_metric == ("bin_average_precision" if seed else "average_precision")
    assert len(results) == 7


@pytest.mark.parametrize("fixture", ["cross_encoder_3labels", "cross_encoder_2labels"])
def test_multiclass_classification_equals_sentence_transformers(st_evaluation, request, tmp_path, caplog, fixture):
    model = request.getfixturevalue(fixture)
    pairs, rng = binary_data(7, size=60)
    labels = rng.integers(0, model.num_labels, len(pairs)).tolist()
    ours = CrossEncoderClassificationEvaluator(pairs, labels, name="nli", show_progress_bar=False)
    theirs = st_evaluation.CrossEncoderClassificationEvaluator(pairs, labels, name="nli", show_progress_bar=False)
    results, _ = run_both(ours, theirs, model, tmp_path, caplog)
    assert list(results) == ["nli_f1_macro", "nli_f1_micro", "nli_f1_weighted"]
    assert ours.primary_metric == "nli_f1_macro"


@pytest.mark.parametrize("integer_gold", [False, True])
def test_correlation_equals_sentence_transformers(st_evaluation, cross_encoder, tmp_path, caplog, integer_gold):
    pairs, rng = binary_data(3, size=30)
    gold = rng.integers(0, 6, len(pairs)).tolist() if integer_gold else rng.random(len(pairs)).tolist()
    kwargs = {"name": "sts", "batch_size": 4, "show_progress_bar": False}
    ours = CrossEncoderCorrelationEvaluator(pairs, gold, **kwargs)
    theirs = st_evaluation.CrossEncoderCorrelationEvaluator(pairs, gold, **kwargs)
    results, _ = run_both(ours, theirs, cross_encoder, tmp_path, caplog, epoch=0, steps=10)
    assert list(results) == ["sts_pearson", "sts_spearman"]


def test_results_are_stored_in_the_model_card(cross_encoder):
    samples = random_samples(seed=8, mode="documents")
    evaluator = CrossEncoderRerankingEvaluator(samples, name="card")
    evaluator(cross_encoder)
    stored = cross_encoder.model_card_data.eval_results_dict[evaluator]
    assert set(stored) == {"card_map", "card_mrr@10", "card_ndcg@10"}
    assert all(isinstance(v, str) and "(" in v for v in stored.values())  # "0.1234 (+0.0100)"
    assert evaluator.description == "Cross Encoder Reranking"


def test_header_mentions_epoch_and_steps(cross_encoder, caplog):
    samples = random_samples(seed=2, mode="negative", num_samples=3)
    with caplog.at_level(logging.INFO):
        CrossEncoderRerankingEvaluator(samples, name="x")(cross_encoder, epoch=3, steps=7)
    assert caplog.records[0].getMessage() == (
        "CrossEncoderRerankingEvaluator: Evaluating the model on the x dataset in epoch 3 after 7 steps:"
    )


def test_works_inside_sentence_transformers_sequential_evaluator(cross_encoder):
    # sentence-transformers' trainers wrap a list of evaluators in a SequentialEvaluator.
    from sentence_transformers.base.evaluation import SequentialEvaluator

    reranking = CrossEncoderRerankingEvaluator(random_samples(seed=1, mode="documents"), name="a")
    correlation = CrossEncoderCorrelationEvaluator([["cat", "dog"], ["sun", "moon"], ["red", "sea"]], [0.1, 0.5, 0.9])
    results = SequentialEvaluator([reranking, correlation])(cross_encoder, epoch=1.0, steps=3)
    assert "a_ndcg@10" in results and "spearman" in results and "sequential_score" in results


@pytest.mark.parametrize(
    ("pairs", "labels", "message"),
    [
        ([["a", "b"]], [1, 0], "same length"),
        ([], [], "sentence_pairs is empty"),
        ([["a", "b"], "ab"], [1, 0], r"sentence_pairs\[1\] must be a pair"),
        ([["a", "b"], ["c", None]], [1, 0], r"sentence_pairs\[1\] contains None"),
        ([["a", "b"], ["c", "d"]], [1, 0.5], r"labels\[1\] is 0.5"),
    ],
)
def test_classification_input_errors(pairs, labels, message):
    with pytest.raises(ValueError, match=message):
        CrossEncoderClassificationEvaluator(pairs, labels)


def test_classification_label_errors_at_call(cross_encoder, cross_encoder_3labels):
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        CrossEncoderClassificationEvaluator([["a", "b"], ["c", "d"]], [0, 2], show_progress_bar=False)(cross_encoder)
    with pytest.raises(ValueError, match="class ids from 0 to 2"):
        CrossEncoderClassificationEvaluator([["a", "b"], ["c", "d"]], [0, 3], show_progress_bar=False)(
            cross_encoder_3labels
        )
    with pytest.warns(UserWarning, match="ignores the arguments"):
        CrossEncoderClassificationEvaluator([["a", "b"]], [1], unknown=1)


@pytest.mark.parametrize(
    ("pairs", "scores", "message"),
    [
        ([["a", "b"]], [0.5], "at least 2"),
        ([["a", "b"], ["c", "d"]], [0.5], "same length"),
        ([["a", "b"], ["c", "d"]], [0.5, float("nan")], r"scores\[1\] is NaN"),
    ],
)
def test_correlation_input_errors(pairs, scores, message):
    with pytest.raises(ValueError, match=message):
        CrossEncoderCorrelationEvaluator(pairs, scores)
