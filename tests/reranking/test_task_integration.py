"""Reranking tasks, the cross-encoder config metrics, Task.evaluate_cross_encoder and `genbench-cli rerank`."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from genbench import load_task
from genbench._core.errors import ConfigError, GenbenchConfigWarning, PredictionError
from genbench.cli import cli
from genbench.config._schema import TaskConfig
from genbench.metrics import best_score_reached, evaluate_predictions
from genbench.reranking import CrossEncoderRerankingEvaluator, ranking_metrics
from genbench.reranking._task_evaluation import reranking_samples

TASK_ID = "passage_reranking_shift"
RERANK = {"type": "cross_encoder_reranking", "at_k": 10}


def _config(task_type: str, metrics: str, strategies: str = "finetuning: {objective: 'maximum_likelihood'}"):
    return TaskConfig.from_jsonnet(
        jsonnet_str=f"""{{name: 'n', description: 'd', keywords: ['k'], authors: ['a'],
        data_source: {{type: 'manual', test: 'test.jsonl', train: 'train.jsonl'}}, has_train_set: true,
        task_type: '{task_type}',
        evaluation_metrics: [{metrics}],
        preparation_strategies: {{{strategies}}}}}"""
    )


@pytest.mark.parametrize(
    ("task_type", "metric", "message"),
    [
        ("reranking", "{type: 'cross_encoder_reranking', at_kk: 3}", "evaluation_metrics.0.at_kk: unknown field"),
        ("multiple_choice", "{type: 'cross_encoder_classification', foo: 1}", "evaluation_metrics.0.foo: unknown"),
        ("free_form", "{type: 'cross_encoder_correlation', at_k: 1}", "evaluation_metrics.0.at_k: unknown field"),
        ("free_form", "{hf_id: 'exact_match', at_k: 1}", "evaluation_metrics.0.at_k: unknown field"),
    ],
)
def test_unknown_metric_keys_warn(task_type, metric, message):
    # Lenient at the door: an unknown key is a GenbenchConfigWarning, which the review gate fails on.
    with pytest.warns(GenbenchConfigWarning, match=message):
        _config(task_type, metric)


@pytest.mark.parametrize(
    ("task_type", "metric", "message"),
    [
        ("reranking", "{type: 'nope'}", "evaluation_metrics.0: unknown metric type"),
        ("reranking", "{hf_id: 'accuracy'}", "predictions are scores per candidate"),
        ("free_form", "{type: 'cross_encoder_reranking'}", "only allowed when task_type is 'reranking'"),
        ("reranking", "{type: 'cross_encoder_reranking', at_k: 0}", "evaluation_metrics.0.at_k"),
    ],
)
def test_metric_config_rules(task_type, metric, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        _config(task_type, metric)


def test_metric_types_parse():
    config = _config("reranking", "{type: 'cross_encoder_reranking', at_k: 5, first_stage_ranking: true}")
    assert config.evaluation_metrics[0].at_k == 5 and config.evaluation_metrics[0].always_rerank_positives
    assert _config("free_form", "{hf_id: 'exact_match'}").evaluation_metrics[0].type == "hf"
    assert (
        _config("multiple_choice", "{type: 'cross_encoder_classification'}").evaluation_metrics[0].best_score is None
    )


def test_reranking_rejects_prompt_based_testing_and_allows_no_strategy():
    with pytest.raises(ConfigError, match="reranking tasks are evaluated from scores"):
        _config("reranking", "{type: 'cross_encoder_reranking'}", "prompt_based_testing: {}")
    assert _config("reranking", "{type: 'cross_encoder_reranking'}", "").preparation_strategies.finetuning is None


GOLD = [
    {"input": "q0", "target": ["a"], "target_options": ["a", "b", "c"]},
    {"input": "q1", "target": ["e", "f"], "target_options": ["d", "e", "f"]},
    {"input": "q2", "target": ["h"], "target_options": ["g", "h"]},
]
SCORES = [[0.2, 0.9, 0.1], [0.8, 0.7, 0.1], [0.5, 0.4]]


def test_evaluation_from_scores_hand_computed():
    result = evaluate_predictions(
        predictions=[{"target": s} for s in SCORES], gold=GOLD, task_type="reranking", metrics=[RERANK]
    )
    # q0: the positive at rank 2 -> AP 1/2, RR 1/2, NDCG 1/log2(3). q1: positives at ranks 2 and 3 -> AP
    # (1/2 + 2/3)/2, RR 1/2, NDCG (1/log2(3) + 1/2) / (1 + 1/log2(3)). q2: positive at rank 2.
    l3 = 1 / math.log2(3)
    expected_map = (0.5 + (0.5 + 2 / 3) / 2 + 0.5) / 3
    expected_ndcg = (l3 + (l3 + 0.5) / (1 + l3) + l3) / 3
    assert result["cross_encoder_reranking__map"] == pytest.approx(expected_map)
    assert result["cross_encoder_reranking__mrr@10"] == pytest.approx(0.5)
    assert result["cross_encoder_reranking__ndcg@10"] == pytest.approx(expected_ndcg)
    labels = [[int(o in g["target"]) for o in g["target_options"]] for g in GOLD]
    core = ranking_metrics(SCORES, labels, at_k=10)
    assert {k.split("__")[1]: v for k, v in result.items()} == pytest.approx(core)
    assert "cross_encoder_reranking__base_map" not in result


def test_first_stage_ranking_adds_base_keys_and_best_score():
    metric = {**RERANK, "first_stage_ranking": True, "best_score": 1.0}
    perfect = [{"target": [float(o in g["target"]) for o in g["target_options"]]} for g in GOLD]
    result = evaluate_predictions(predictions=perfect, gold=GOLD, task_type="reranking", metrics=[metric])
    assert result["cross_encoder_reranking__base_mrr@10"] == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert best_score_reached(result, [metric]) == []
    worse = evaluate_predictions(
        predictions=[{"target": s} for s in SCORES], gold=GOLD, task_type="reranking", metrics=[metric]
    )
    assert best_score_reached(worse, [metric])[0].startswith("cross_encoder_reranking__ndcg@10 is")


@pytest.mark.parametrize(
    ("predictions", "message"),
    [
        ([[0.1, 0.2, 0.3], [0.1, 0.2], [0.1, 0.2]], r"predictions\[1\]\['target'\] has 2 scores, expected 3"),
        ([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3], [0.1, "x"]], r"predictions\[2\]\['target'\] is a list"),
        ([[0.1, 0.2, 0.3], 0.5, [0.1, 0.2]], r"predictions\[1\]\['target'\] is a float"),
    ],
)
def test_bad_reranking_predictions(predictions, message):
    with pytest.raises(PredictionError, match=message):
        evaluate_predictions(
            predictions=[{"target": p} for p in predictions], gold=GOLD, task_type="reranking", metrics=[RERANK]
        )


def test_classification_and_correlation_metrics_from_scores():
    gold = [{"input": ["a", "b"], "target": label} for label in (1, 0, 1, 0)]
    result = evaluate_predictions(
        predictions=[{"target": s} for s in (0.9, 0.1, 0.8, 0.3)],
        gold=gold,
        task_type="multiple_choice",
        metrics=[{"type": "cross_encoder_classification", "best_score": 1.0}],
    )
    assert result["cross_encoder_classification__accuracy"] == 1.0
    assert best_score_reached(result, [{"type": "cross_encoder_classification", "best_score": 1.0}]) == []
    gold = [{"input": ["a", "b"], "target": value} for value in (0.1, 0.5, 0.9)]
    result = evaluate_predictions(
        predictions=[{"target": s} for s in (1.0, 2.0, 3.0)],
        gold=gold,
        task_type="free_form",
        metrics=[{"type": "cross_encoder_correlation"}],
    )
    assert result["cross_encoder_correlation__spearman"] == pytest.approx(1.0)


def test_sample_task_loads_and_baseline_is_base_order():
    from genbench.runs.baselines import predict

    task = load_task(TASK_ID)
    test = task.get_datasets_raw()["test"]
    assert isinstance(test[0]["input"], str) and test[0]["target_options"] == test[0]["documents"]
    result = task.evaluate_predictions(predictions=predict(task, test), gold=test)
    for key in ("map", "mrr@10", "ndcg@10"):
        assert result[f"cross_encoder_reranking__{key}"] == result[f"cross_encoder_reranking__base_{key}"]


def test_evaluate_cross_encoder_equals_the_evaluator(cross_encoder):
    task = load_task(TASK_ID)
    samples = reranking_samples(task.get_datasets_raw()["test"], first_stage_ranking=True)
    direct = CrossEncoderRerankingEvaluator(samples, at_k=10, write_csv=False)(cross_encoder)
    assert task.evaluate_cross_encoder(cross_encoder) == direct
    assert set(direct) >= {"map", "mrr@10", "ndcg@10", "base_map", "base_mrr@10", "base_ndcg@10"}


def test_rerank_cli_with_the_bi_encoder():
    result = CliRunner().invoke(cli, ["rerank", "-i", TASK_ID, "--bi-encoder", "--at_k", "10"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "         Base  -> Reranked" in lines
    assert any(line.startswith("MAP:     48.75 -> ") for line in lines)
    assert any(line.startswith("MRR@10:  ") for line in lines) and any(line.startswith("NDCG@10: ") for line in lines)
    as_json = CliRunner().invoke(cli, ["rerank", "-t", TASK_ID, "--bi-encoder", "--at-k", "10", "--json"])
    assert as_json.exit_code == 0, as_json.output
    metrics = json.loads(as_json.stdout)
    assert round(metrics["base_map"] * 100, 2) == 48.75 and {"map", "mrr@10", "ndcg@10"} <= set(metrics)


def test_rerank_cli_help_and_usage_error():
    runner = CliRunner()
    result = runner.invoke(cli, ["rerank", "--help"])
    assert result.exit_code == 0 and "--bi-encoder" in result.output
    assert runner.invoke(cli, ["rerank", "-i", TASK_ID]).exit_code == 2


def test_rerank_of_a_task_with_subtasks_names_them_and_how_to_pick_one():
    result = CliRunner().invoke(cli, ["rerank", "-t", "negation_consistency", "--bi-encoder"])
    assert result.exit_code == 1
    assert "Task 'negation_consistency' has subtasks (affirmative, negated): rerank one of them" in result.output
    assert "Traceback" not in result.output and "AttributeError" not in result.output
