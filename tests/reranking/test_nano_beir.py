"""The NanoBEIR-style suite: local data, names and defaults, aggregation, errors, and agreement with
sentence-transformers' ``CrossEncoderNanoBEIREvaluator`` fed the same data through ``datasets.load_dataset``."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from genbench._core.errors import DataLoadError, DataNotFoundError
from genbench.reranking import CrossEncoderNanoBEIREvaluator, CrossEncoderRerankingEvaluator, load_nanobeir_samples
from genbench.reranking._nano_beir_suite import DEFAULT_DATASET_NAMES, default_dataset_names, demo_suite_path

from .reranking_helpers import assert_same_results, run_both


@pytest.fixture
def renamed_suite(tmp_path):
    """The demo suite under NanoBEIR names: gardening as NanoMSMARCO, astronomy as NanoNQ."""
    root = tmp_path / "suite"
    shutil.copytree(demo_suite_path() / "NanoGardening", root / "NanoMSMARCO")
    shutil.copytree(demo_suite_path() / "NanoAstronomy", root / "NanoNQ")
    return root


@pytest.fixture
def hub_from_local(monkeypatch, renamed_suite):
    """Make ``datasets.load_dataset(id, subset, split=...)`` read ``renamed_suite/{split}/{subset}.jsonl``."""
    import datasets

    real_load_dataset = datasets.load_dataset

    def load_dataset(path, name=None, split=None, **kwargs):
        data_file = renamed_suite / split / f"{name}.jsonl"
        return real_load_dataset("json", data_files=str(data_file), split="train")

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    return renamed_suite


@pytest.mark.parametrize(
    ("rerank_k", "at_k", "always_rerank_positives"), [(10, 10, True), (10, 3, False), (100, 10, False), (20, 5, True)]
)
def test_equals_sentence_transformers(
    cross_encoder, hub_from_local, tmp_path, caplog, rerank_k, at_k, always_rerank_positives
):
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderNanoBEIREvaluator as STNanoBEIR

    kwargs = {"rerank_k": rerank_k, "at_k": at_k, "always_rerank_positives": always_rerank_positives, "batch_size": 16}
    theirs = STNanoBEIR(["msmarco", "nq"], dataset_id="stand-in/NanoBEIR", **kwargs)
    ours = CrossEncoderNanoBEIREvaluator(["msmarco", "nq"], dataset_id=hub_from_local, **kwargs)
    results, _ = run_both(ours, theirs, cross_encoder, tmp_path, caplog)
    assert ours.primary_metric == f"NanoBEIR_R{rerank_k}_mean_ndcg@{at_k}"
    assert f"NanoMSMARCO_R{rerank_k}_base_map" in results and f"NanoNQ_R{rerank_k}_mrr@{at_k}" in results
    # Ours also reads the same data through datasets.load_dataset (a Hub id, here the stand-in).
    through_datasets = CrossEncoderNanoBEIREvaluator(["msmarco", "nq"], dataset_id="stand-in/NanoBEIR", **kwargs)
    assert_same_results(through_datasets(cross_encoder), results)


def test_demo_suite_keys_and_aggregation(cross_encoder):
    evaluator = CrossEncoderNanoBEIREvaluator(dataset_id=demo_suite_path(), rerank_k=20, at_k=5)
    assert evaluator.dataset_names == ["astronomy", "gardening"]
    results = evaluator(cross_encoder)
    metrics = ["map", "mrr@5", "ndcg@5", "base_map", "base_mrr@5", "base_ndcg@5"]
    assert list(results) == (
        [f"NanoAstronomy_R20_{m}" for m in metrics]
        + [f"NanoGardening_R20_{m}" for m in metrics]
        + [f"NanoBEIR_R20_mean_{m}" for m in metrics]
    )
    for metric in metrics:
        expected = np.mean([results[f"NanoAstronomy_R20_{metric}"], results[f"NanoGardening_R20_{metric}"]])
        assert results[f"NanoBEIR_R20_mean_{metric}"] == expected
    # Each dataset equals a reranking evaluator on the same samples.
    _, samples = load_nanobeir_samples(demo_suite_path(), "gardening", rerank_k=20)
    single = CrossEncoderRerankingEvaluator(samples, at_k=5, name="NanoGardening_R20")(cross_encoder)
    assert single == {k: v for k, v in results.items() if k.startswith("NanoGardening")}


def test_custom_aggregate_and_csv(cross_encoder, tmp_path):
    evaluator = CrossEncoderNanoBEIREvaluator(
        ["gardening", "Astronomy"],
        dataset_id=str(demo_suite_path()),
        rerank_k=10,
        aggregate_fn=max,
        aggregate_key="max",
    )
    results = evaluator(cross_encoder, output_path=str(tmp_path))
    assert results["NanoBEIR_R10_max_map"] == max(results["NanoGardening_R10_map"], results["NanoAstronomy_R10_map"])
    assert evaluator.primary_metric == "NanoBEIR_R10_max_ndcg@10"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "CrossEncoderRerankingEvaluator_NanoAstronomy_R10_results_@10.csv",
        "CrossEncoderRerankingEvaluator_NanoGardening_R10_results_@10.csv",
        "NanoBEIR_evaluation_max_results.csv",
    ]
    lines = (tmp_path / "NanoBEIR_evaluation_max_results.csv").read_text().splitlines()
    assert lines[0] == "epoch,steps,MAP,MRR@10,NDCG@10" and lines[1].startswith("-1,-1,")


def test_missing_positives_are_penalized_on_request(cross_encoder):
    kwargs = {"dataset_id": demo_suite_path(), "rerank_k": 10, "always_rerank_positives": False}
    plain = CrossEncoderNanoBEIREvaluator(["astronomy"], **kwargs)(cross_encoder)
    fixed = CrossEncoderNanoBEIREvaluator(["astronomy"], penalize_missing_positives=True, **kwargs)(cross_encoder)
    # BM25's top 10 misses positives of several queries: counting them lowers MAP.
    assert fixed["NanoAstronomy_R10_map"] < plain["NanoAstronomy_R10_map"]
    assert fixed["NanoAstronomy_R10_base_map"] < plain["NanoAstronomy_R10_base_map"]


def test_default_dataset_names():
    assert len(DEFAULT_DATASET_NAMES) == 11
    assert "arguana" not in DEFAULT_DATASET_NAMES and "touche2020" not in DEFAULT_DATASET_NAMES
    assert default_dataset_names("sentence-transformers/NanoBEIR-en") == DEFAULT_DATASET_NAMES


def test_local_default_leaves_out_argument_retrieval(renamed_suite):
    shutil.copytree(renamed_suite / "NanoNQ", renamed_suite / "NanoArguAna")
    assert default_dataset_names(renamed_suite) == ["msmarco", "nq"]
    evaluator = CrossEncoderNanoBEIREvaluator(dataset_id=renamed_suite, rerank_k=5)
    assert [e.name for e in evaluator.evaluators] == ["NanoMSMARCO_R5", "NanoNQ_R5"]
    assert CrossEncoderNanoBEIREvaluator(["arguana"], dataset_id=renamed_suite, rerank_k=5).evaluators[0].name == (
        "NanoArguAna_R5"
    )


def test_hub_unreachable_gives_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(ValueError, match="point dataset_id to a local directory") as info:
        CrossEncoderNanoBEIREvaluator(["msmarco"])
    assert isinstance(info.value, DataLoadError)
    assert "sentence-transformers/NanoBEIR-en" in str(info.value)


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ([], "dataset_names cannot be empty"),
        (["msmarco", "nope"], r"Dataset\(s\) \['nope'\] are not valid NanoBEIR datasets"),
    ],
)
def test_bad_dataset_names(names, message):
    with pytest.raises(ValueError, match=message):
        CrossEncoderNanoBEIREvaluator(names)


def test_bad_local_names_and_arguments():
    with pytest.raises(ValueError, match=r"not in the local suite .* it has \['astronomy', 'gardening'\]"):
        CrossEncoderNanoBEIREvaluator(["msmarco"], dataset_id=demo_suite_path())
    with pytest.raises(ValueError, match="rerank_k must be a positive integer"):
        CrossEncoderNanoBEIREvaluator(dataset_id=demo_suite_path(), rerank_k=0)
    with pytest.raises(ValueError, match="list of names"):
        CrossEncoderNanoBEIREvaluator("gardening", dataset_id=demo_suite_path())


@pytest.mark.parametrize(
    ("damage", "error", "message"),
    [
        (lambda d: (d / "qrels.jsonl").unlink(), DataNotFoundError, r"qrels.jsonl: file not found"),
        (
            lambda d: (d / "queries.jsonl").write_text('{"_id": "q"}\n'),
            DataLoadError,
            r"queries.jsonl:1: missing field",
        ),
        (lambda d: (d / "corpus.jsonl").write_text("{oops\n"), DataLoadError, r"corpus.jsonl:1: invalid JSON"),
        (
            lambda d: (d / "bm25.jsonl").write_text(json.dumps({"query-id": "gq0", "corpus-ids": ["nowhere"]}) + "\n"),
            DataLoadError,
            r"corpus id 'nowhere' is not in the corpus table",
        ),
        (
            lambda d: (d / "bm25.jsonl").write_text(json.dumps({"query-id": "zz", "corpus-ids": []}) + "\n"),
            DataLoadError,
            r"bm25 query-id 'zz' has no qrels",
        ),
    ],
)
def test_bad_local_data(tmp_path, damage, error, message):
    shutil.copytree(demo_suite_path() / "NanoGardening", tmp_path / "NanoGardening")
    damage(tmp_path / "NanoGardening")
    with pytest.raises(error, match=message):
        CrossEncoderNanoBEIREvaluator(["gardening"], dataset_id=tmp_path)
