"""Classification built-ins against scikit-learn, and the hand-checked examples of the evaluate metric cards.

scikit-learn comes from the ``skm`` fixture, not a top-level import: importing it slows down the suite's collection.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genbench.metrics._builtin.classification import accuracy, f1, matthews_correlation, precision, recall

SEEDS = [0, 1, 2, 3, 4]


@pytest.fixture(scope="module")
def skm():
    """``sklearn.metrics``, the reference."""
    from sklearn import metrics

    return metrics


def _random_labels(seed: int, n_classes: int, size: int = 60) -> tuple[list[int], list[int], list[float]]:
    rng = np.random.default_rng(seed)
    references = rng.integers(0, n_classes, size).tolist()
    predictions = rng.integers(0, n_classes, size).tolist()
    weights = rng.uniform(0.1, 3.0, size).tolist()
    return predictions, references, weights


# --- hand cases (numbers from the evaluate metric cards and by hand) ---


def test_accuracy_hand_cases():
    refs, preds = [0, 1, 2, 0, 1, 2], [0, 1, 1, 2, 1, 0]
    assert accuracy(preds, refs) == {"accuracy": 0.5}
    assert accuracy(preds, refs, normalize=False) == {"accuracy": 3.0}
    weighted = accuracy(preds, refs, sample_weight=[0.5, 2, 0.7, 0.5, 9, 0.4])
    assert weighted["accuracy"] == pytest.approx(0.8778625954198473, abs=1e-15)
    assert isinstance(accuracy([1], [1])["accuracy"], float)


def test_f1_hand_cases():
    refs, preds = [0, 1, 0, 1, 0], [0, 0, 1, 1, 0]
    assert f1(preds, refs) == {"f1": 0.5}
    assert round(f1(preds, refs, pos_label=0)["f1"], 2) == 0.67
    assert round(f1(preds, refs, sample_weight=[0.9, 0.5, 3.9, 1.2, 0.3])["f1"], 2) == 0.35
    preds, refs = [0, 2, 1, 0, 0, 1], [0, 1, 2, 0, 1, 2]
    assert round(f1(preds, refs, average="macro")["f1"], 2) == 0.27
    assert round(f1(preds, refs, average="micro")["f1"], 2) == 0.33
    assert round(f1(preds, refs, average="weighted")["f1"], 2) == 0.27
    per_class = f1(preds, refs, average=None)["f1"]
    assert isinstance(per_class, np.ndarray)
    np.testing.assert_allclose(per_class, [0.8, 0.0, 0.0])


def test_precision_recall_hand_cases():
    # predicted positives: 3, of which 2 right; gold positives: 2, both found
    assert precision([1, 1, 1, 0], [1, 1, 0, 0]) == {"precision": 2 / 3}
    assert recall([1, 1, 1, 0], [1, 1, 0, 0]) == {"recall": 1.0}
    preds, refs = [0, 2, 1, 0, 0, 1], [0, 1, 2, 0, 1, 2]
    assert [round(x, 2) for x in precision(preds, refs, average=None)["precision"]] == [0.67, 0.0, 0.0]
    assert [round(x, 2) for x in recall(preds, refs, average=None)["recall"]] == [1.0, 0.0, 0.0]


def test_zero_division():
    # no predicted positive: precision is 0/0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert precision([0, 0], [1, 0]) == {"precision": 0.0}
    assert precision([0, 0], [1, 0], zero_division=1) == {"precision": 1.0}
    assert np.isnan(precision([0, 0], [1, 0], zero_division=np.nan)["precision"])
    assert recall([1, 1], [0, 0], zero_division=1) == {"recall": 1.0}
    assert f1([0, 0], [0, 0], zero_division=1) == {"f1": 1.0}


def test_single_label_average_none_is_a_float_as_in_evaluate():
    assert f1([1, 0], [1, 0], labels=[1], average=None) == {"f1": 1.0}


def test_matthews_hand_cases():
    # evaluate's metric card: references [1, 3, 2, 0, 3, 2], predictions [1, 2, 2, 0, 3, 3]
    result = matthews_correlation([1, 2, 2, 0, 3, 3], [1, 3, 2, 0, 3, 2])
    assert round(result["matthews_correlation"], 2) == 0.54
    weighted = matthews_correlation([1, 2, 2, 0, 3, 3], [1, 3, 2, 0, 3, 2], sample_weight=[0.5, 3, 1, 1, 1, 2])
    assert round(weighted["matthews_correlation"], 2) == 0.10
    # binary: TP=1 TN=1 FP=1 FN=1 -> (1 - 1) / ... = 0
    assert matthews_correlation([1, 1, 0, 0], [1, 0, 1, 0]) == {"matthews_correlation": 0.0}
    assert matthews_correlation([0, 1], [0, 1]) == {"matthews_correlation": 1.0}


# --- parity with scikit-learn on random data ---


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_accuracy_and_matthews_parity(skm, seed, n_classes):
    preds, refs, weights = _random_labels(seed, n_classes)
    assert accuracy(preds, refs)["accuracy"] == skm.accuracy_score(refs, preds)
    assert accuracy(preds, refs, normalize=False)["accuracy"] == skm.accuracy_score(refs, preds, normalize=False)
    assert accuracy(preds, refs, sample_weight=weights)["accuracy"] == skm.accuracy_score(
        refs, preds, sample_weight=weights
    )
    assert matthews_correlation(preds, refs)["matthews_correlation"] == skm.matthews_corrcoef(refs, preds)
    assert matthews_correlation(preds, refs, sample_weight=weights)["matthews_correlation"] == skm.matthews_corrcoef(
        refs, preds, sample_weight=weights
    )


SET_WISE = [(f1, "f1", "f1_score"), (precision, "precision", "precision_score"), (recall, "recall", "recall_score")]
"""genbench's metric, its result key and the name of its scikit-learn reference in ``sklearn.metrics``."""


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("metric", "key", "reference"), SET_WISE)
@pytest.mark.parametrize("average", ["micro", "macro", "weighted", None])
def test_set_wise_parity_multiclass(skm, seed, metric, key, reference, average):
    reference_fn = getattr(skm, reference)
    preds, refs, weights = _random_labels(seed, 4)
    for kwargs in ({}, {"sample_weight": weights}, {"labels": [3, 1, 0]}, {"zero_division": 0}):
        ours = metric(preds, refs, average=average, **kwargs)[key]
        expected = reference_fn(refs, preds, average=average, **kwargs)
        np.testing.assert_array_equal(ours, expected)
        assert isinstance(ours, np.ndarray) == (np.asarray(expected).size > 1)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("metric", "key", "reference"), SET_WISE)
def test_set_wise_parity_binary(skm, seed, metric, key, reference):
    reference_fn = getattr(skm, reference)
    preds, refs, weights = _random_labels(seed, 2)
    assert metric(preds, refs)[key] == reference_fn(refs, preds)
    assert metric(preds, refs, pos_label=0)[key] == reference_fn(refs, preds, pos_label=0)
    assert metric(preds, refs, sample_weight=weights)[key] == reference_fn(refs, preds, sample_weight=weights)


labels = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(pairs=labels, average=st.sampled_from(["micro", "macro", "weighted"]))
def test_set_wise_parity_property(skm, pairs, average):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for metric, key, reference in SET_WISE:
            assert metric(preds, refs, average=average)[key] == getattr(skm, reference)(refs, preds, average=average)
        assert accuracy(preds, refs)["accuracy"] == skm.accuracy_score(refs, preds)
        assert matthews_correlation(preds, refs)["matthews_correlation"] == skm.matthews_corrcoef(refs, preds)


def test_string_labels_work(skm):
    assert accuracy(["a", "b"], ["a", "a"]) == {"accuracy": 0.5}
    assert f1(["a", "b", "b"], ["a", "b", "a"], average="macro")["f1"] == skm.f1_score(
        ["a", "b", "a"], ["a", "b", "b"], average="macro"
    )
