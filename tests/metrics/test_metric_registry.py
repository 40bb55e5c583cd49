"""compute_metric: built-in dispatch, option checking, the evaluate fallback and its per-process cache."""

from __future__ import annotations

import sys
import textwrap
import types

import pytest

import genbench.metrics._configured_metrics as configured_metrics
from genbench._core.errors import GenbenchConfigWarning, MetricError
from genbench.config._schema import EvaluationMetricConfig
from genbench.metrics import BUILTIN_METRICS, compute_metric, evaluate_predictions, metric_key_prefix


def test_builtin_ids():
    assert BUILTIN_METRICS == (
        "accuracy",
        "bleu",
        "chrf",
        "exact_match",
        "f1",
        "matthews_correlation",
        "pearsonr",
        "precision",
        "recall",
        "sacrebleu",
        "seqeval",
        "spearmanr",
    )


def test_metric_key_prefix():
    assert metric_key_prefix("exact_match") == "hf_exact_match"
    assert metric_key_prefix(["exact_match"]) == "hf_exact_match"
    assert metric_key_prefix(["glue", "cola"]) == "hf_glue_cola"


def test_builtin_runs_with_extra_kwargs_and_ignores_the_revision():
    config = EvaluationMetricConfig(
        hf_id="accuracy", git_commit_sha="0123abc", compute_extra_kwargs={"normalize": False}
    )
    assert compute_metric(config, [0, 1, 1], [0, 1, 0]) == {"accuracy": 2.0}
    assert compute_metric(EvaluationMetricConfig(hf_id=["accuracy"]), [1], [1]) == {"accuracy": 1.0}
    assert compute_metric({"hf_id": "exact_match"}, ["a"], ["a"]) == {"exact_match": 1.0}


def test_unknown_option_names_the_metric_and_the_accepted_ones():
    config = EvaluationMetricConfig(hf_id="accuracy", compute_extra_kwargs={"average": "macro", "bogus": 1})
    with pytest.raises(MetricError) as info:
        compute_metric(config, [1], [1])
    message = str(info.value)
    assert "'accuracy'" in message and "'average'" in message and "'bogus'" in message
    assert "normalize, sample_weight" in message


def test_unknown_keys_of_a_metric_mapping_warn_and_are_not_passed_to_compute():
    """Lenient as the loader: accepted with its GenbenchConfigWarning; as in the original, only compute_extra_kwargs
    reach compute (so ignore_case here does not apply)."""
    with pytest.warns(
        GenbenchConfigWarning,
        match=r"ignore_case: unknown field, kept on the config, but not used; "
        r"to pass it to the metric's compute, write compute_extra_kwargs: \{ignore_case: true\}",
    ):
        assert compute_metric({"hf_id": "exact_match", "ignore_case": True}, ["Paris"], ["paris"]) == {
            "exact_match": 0.0
        }
    with pytest.warns(GenbenchConfigWarning, match=r"compute_extra_kwarg: .*did you mean `compute_extra_kwargs`\?"):
        compute_metric({"hf_id": "exact_match", "compute_extra_kwarg": {"ignore_case": True}}, ["a"], ["a"])
    with pytest.warns(GenbenchConfigWarning, match=r"ignore_case: unknown field, kept on the config"):
        result = evaluate_predictions(
            predictions=[{"target": "Paris"}],
            gold=[{"input": "Capital of France?", "target": "paris"}],
            task_type="free_form",
            metrics=[{"hf_id": "exact_match", "ignore_case": True}],
        )
    assert result == {"hf_exact_match__exact_match": 0.0}


def test_library_errors_become_metric_errors():
    with pytest.raises(MetricError, match="Metric 'f1' failed: ValueError: .*multiclass"):
        compute_metric({"hf_id": "f1"}, [0, 1, 2], [0, 1, 2])


def test_invalid_config_mapping():
    with pytest.raises(MetricError, match="Invalid metric config"):
        compute_metric({"hf_id": "accuracy", "best_score": "high"}, [1], [1])


@pytest.fixture
def fake_evaluate(monkeypatch):
    """An ``evaluate`` module whose ``load`` records its calls and returns a metric computing a constant."""
    calls = []

    class FakeMetric:
        def compute(self, *, predictions, references, **kwargs):
            return {"score": 0.25, "n": len(predictions), **kwargs}

    def load(*args, **kwargs):
        calls.append((args, kwargs))
        if args[0] == "missing":
            raise FileNotFoundError("Couldn't find a module script")
        return FakeMetric()

    monkeypatch.setitem(sys.modules, "evaluate", types.SimpleNamespace(load=load))
    monkeypatch.setattr(configured_metrics, "_LOADED_HF_METRICS", {})
    return calls


def test_other_ids_go_through_evaluate_load_once_per_process(fake_evaluate):
    config = EvaluationMetricConfig(hf_id=["glue", "cola"], git_commit_sha="abc123", compute_extra_kwargs={"k": 1})
    assert compute_metric(config, [1, 0], [1, 1]) == {"score": 0.25, "n": 2, "k": 1}
    assert compute_metric(config, [1], [1]) == {"score": 0.25, "n": 1, "k": 1}
    assert fake_evaluate == [(("glue", "cola"), {"revision": "abc123"})]
    # another revision is another metric
    compute_metric(EvaluationMetricConfig(hf_id=["glue", "cola"]), [1], [1])
    assert len(fake_evaluate) == 2
    # ["f1", "multilabel"] is not the built-in f1
    compute_metric(EvaluationMetricConfig(hf_id=["f1", "multilabel"]), [[1]], [[1]])
    assert fake_evaluate[-1] == (("f1", "multilabel"), {"revision": None})


def test_load_failure_message(fake_evaluate):
    with pytest.raises(MetricError) as info:
        compute_metric(EvaluationMetricConfig(hf_id="missing"), [1], [1])
    message = str(info.value)
    assert "'missing' is not built in" in message
    assert "evaluate.load('missing', revision=None) failed: FileNotFoundError" in message
    assert ", ".join(BUILTIN_METRICS) in message
    assert "unreachable offline" in message


def test_unknown_metric_offline_with_the_real_evaluate():
    with pytest.raises(MetricError) as info:
        compute_metric(EvaluationMetricConfig(hf_id="genbench_no_such_metric_xyz"), [1], [1])
    message = str(info.value)
    assert "'genbench_no_such_metric_xyz' is not built in" in message
    assert "accuracy, bleu, chrf" in message
    assert "Hub" in message and "offline" in message


def test_local_metric_script_loads_offline(tmp_path, monkeypatch):
    monkeypatch.setattr(configured_metrics, "_LOADED_HF_METRICS", {})
    script_dir = tmp_path / "genbench_length_ratio"
    script_dir.mkdir()
    (script_dir / "genbench_length_ratio.py").write_text(
        textwrap.dedent(
            """
            import datasets
            import evaluate


            class GenbenchLengthRatio(evaluate.Metric):
                def _info(self):
                    return evaluate.MetricInfo(
                        description="test metric",
                        citation="",
                        features=datasets.Features(
                            {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
                        ),
                    )

                def _compute(self, predictions, references):
                    return {"ratio": sum(map(len, predictions)) / sum(map(len, references))}
            """
        )
    )
    config = EvaluationMetricConfig(hf_id=str(script_dir))
    assert compute_metric(config, ["ab", "c"], ["abcd", "ef"]) == {"ratio": 0.5}
    assert compute_metric(config, ["ab"], ["ab"]) == {"ratio": 1.0}
    assert len(configured_metrics._LOADED_HF_METRICS) == 1
