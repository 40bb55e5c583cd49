"""best_score_reached: tolerance, the main score key of each metric, readable failures."""

from __future__ import annotations

import numpy as np

from genbench.metrics import best_score_reached
from genbench.metrics._evaluation import main_score_key


def test_tolerance_not_float_equality():
    metrics = [{"hf_id": "accuracy", "best_score": 0.3}]
    assert 0.1 + 0.2 != 0.3
    assert best_score_reached({"hf_accuracy__accuracy": 0.1 + 0.2}, metrics) == []
    assert best_score_reached({"hf_accuracy__accuracy": 0.3 + 5e-7}, metrics) == []
    failures = best_score_reached({"hf_accuracy__accuracy": 0.99}, [{"hf_id": "accuracy", "best_score": 1.0}])
    assert len(failures) == 1
    assert "hf_accuracy__accuracy is 0.99, expected best_score 1.0" in failures[0]


def test_metrics_without_best_score_are_skipped():
    assert best_score_reached({"hf_accuracy__accuracy": 0.0}, [{"hf_id": "accuracy"}]) == []
    assert best_score_reached({"hf_accuracy__accuracy": 0.0}, None) == []


def test_main_score_key_rules():
    assert main_score_key("exact_match", ["hf_exact_match__exact_match"]) == "hf_exact_match__exact_match"
    keys = ["hf_pearsonr__pearsonr", "hf_pearsonr__p-value"]
    assert main_score_key("pearsonr", keys) == "hf_pearsonr__pearsonr"
    assert main_score_key(["glue", "cola"], ["hf_glue_cola__matthews_correlation"]) == (
        "hf_glue_cola__matthews_correlation"
    )
    assert main_score_key("chrf", ["hf_chrf__score", "hf_chrf__beta", "hf_chrf__char_order"]) == "hf_chrf__score"
    assert main_score_key("seqeval", ["hf_seqeval__PER", "hf_seqeval__overall_f1"]) == "hf_seqeval__overall_f1"
    assert main_score_key("./metrics/my_metric", ["hf_./metrics/my_metric__my_metric"]) == (
        "hf_./metrics/my_metric__my_metric"
    )
    assert main_score_key(["glue", "mrpc"], ["hf_glue_mrpc__accuracy", "hf_glue_mrpc__f1"]) is None
    assert main_score_key("accuracy", ["hf_exact_match__exact_match"]) is None


def test_only_the_main_key_is_checked():
    result = {"hf_sacrebleu__score": 100.0, "hf_sacrebleu__bp": 1.0, "hf_sacrebleu__sys_len": 7}
    assert best_score_reached(result, [{"hf_id": "sacrebleu", "best_score": 100}]) == []
    result = {"hf_seqeval__PER": {"f1": 1.0}, "hf_seqeval__overall_f1": 1.0, "hf_seqeval__overall_accuracy": 1.0}
    assert best_score_reached(result, [{"hf_id": "seqeval", "best_score": 1.0}]) == []


def test_every_key_is_checked_when_there_is_no_main_one():
    result = {"hf_glue_mrpc__accuracy": 1.0, "hf_glue_mrpc__f1": 0.5}
    failures = best_score_reached(result, [{"hf_id": ["glue", "mrpc"], "best_score": 1.0}])
    assert failures == [
        "hf_glue_mrpc__f1 is 0.5, expected best_score 1.0 (tolerance: rel 1e-09, abs 1e-06)",
    ]


def test_per_class_arrays_must_be_close_everywhere():
    metrics = [{"hf_id": "f1", "best_score": 1.0}]
    assert best_score_reached({"hf_f1__f1": np.array([1.0, 1.0 - 1e-9])}, metrics) == []
    assert len(best_score_reached({"hf_f1__f1": np.array([1.0, 0.5])}, metrics)) == 1


def test_missing_or_non_numeric_scores_fail_readably():
    failures = best_score_reached({"hf_accuracy__accuracy": 1.0}, [{"hf_id": "f1", "best_score": 1.0}])
    assert failures == [
        "metric 'f1' has best_score 1.0 but the result has no hf_f1__* key (result keys: hf_accuracy__accuracy)"
    ]
    assert len(best_score_reached({"hf_accuracy__accuracy": float("nan")}, [{"hf_id": "accuracy", "best_score": 1}]))
    assert len(best_score_reached({"hf_accuracy__accuracy": "1.0"}, [{"hf_id": "accuracy", "best_score": 1}]))
