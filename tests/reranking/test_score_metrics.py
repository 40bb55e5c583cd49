"""Classification and correlation metrics from scores, against the functions sentence-transformers calls.

The references (sentence-transformers, scikit-learn, scipy) are imported inside the tests: importing them at the top
would slow down the collection of the whole suite.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from genbench.metrics._correlation_metrics import ConstantInputWarning, rankdata_average
from genbench.reranking import (
    average_precision,
    binary_classification_metrics,
    correlation_metrics,
    find_best_accuracy_and_threshold,
    find_best_f1_and_threshold,
    multiclass_classification_metrics,
    pearson,
    spearman,
)


def random_binary(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    kind = seed % 3
    if kind == 0:
        scores = rng.integers(0, 5, n).astype(np.float32)  # many ties
    elif kind == 1:
        scores = rng.random(n).astype(np.float32)
    else:
        scores = rng.normal(size=n)
    labels = (rng.random(n) < rng.random()).astype(int)
    return scores, labels


@pytest.mark.parametrize("seed", range(60))
def test_best_thresholds_equal_sentence_transformers(seed):
    from sentence_transformers.sentence_transformer.evaluation import BinaryClassificationEvaluator
    from sklearn.metrics import average_precision_score

    scores, labels = random_binary(seed)
    expected_acc = BinaryClassificationEvaluator.find_best_acc_and_threshold(scores, labels, True)
    assert find_best_accuracy_and_threshold(scores, labels) == tuple(float(v) for v in expected_acc)
    expected_f1 = BinaryClassificationEvaluator.find_best_f1_and_threshold(scores, labels, True)
    assert find_best_f1_and_threshold(scores, labels) == tuple(float(v) for v in expected_f1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns when there is no positive
        assert average_precision(scores, labels) == pytest.approx(average_precision_score(labels, scores), abs=1e-12)


def test_threshold_edge_cases():
    # Everything negative is best: the threshold is just above the top score, in the scores' dtype.
    acc, threshold = find_best_accuracy_and_threshold(np.array([0.5, 0.25], dtype=np.float32), [0, 0])
    assert acc == 1.0 and threshold == float(np.nextafter(np.float32(0.5), np.float32(np.inf)))
    # The midpoint is computed in float32, like sentence-transformers does with CrossEncoder scores.
    scores = np.array([0.7, 0.2], dtype=np.float32)
    assert find_best_accuracy_and_threshold(scores, [1, 0])[1] == float((scores[0] + scores[1]) / 2)
    assert find_best_f1_and_threshold([0.3, 0.2], [0, 0]) == (0.0, 0.0, 0.0, 0.0)
    assert find_best_accuracy_and_threshold([], []) == (0.0, -1.0)


def test_binary_metrics_keys_in_sentence_transformers_order():
    metrics = binary_classification_metrics([0.9, 0.4, 0.35, 0.8], [1, 0, 1, 1])
    assert list(metrics) == [
        "accuracy",
        "accuracy_threshold",
        "f1",
        "f1_threshold",
        "precision",
        "recall",
        "average_precision",
    ]
    with pytest.raises(ValueError, match="0 or 1"):
        binary_classification_metrics([0.1, 0.2], [0, 2])


@pytest.mark.parametrize("seed", range(30))
def test_multiclass_f1_equals_sklearn(seed):
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(seed)
    n, num_classes = int(rng.integers(1, 60)), int(rng.integers(2, 6))
    scores = rng.normal(size=(n, num_classes)).astype(np.float32)
    labels = rng.integers(0, num_classes, n)
    predicted = np.argmax(scores, axis=1)
    got = multiclass_classification_metrics(scores, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for average in ("macro", "micro", "weighted"):
            assert got[f"f1_{average}"] == pytest.approx(f1_score(labels, predicted, average=average), abs=1e-15)
    assert multiclass_classification_metrics(predicted, labels) == got


@pytest.mark.parametrize("seed", range(30))
def test_correlations_equal_scipy(seed):
    from scipy.stats import pearsonr, spearmanr

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 50))
    gold = (rng.integers(0, 6, n) if seed % 2 else rng.random(n)).tolist()
    predicted = rng.random(n).astype(np.float32)
    if seed % 5 == 0:
        predicted = np.round(predicted, 1)  # ties
    assert pearson(gold, predicted) == pytest.approx(pearsonr(gold, predicted)[0], abs=1e-12)
    assert spearman(gold, predicted) == pytest.approx(spearmanr(gold, predicted)[0], abs=1e-12)
    gold32 = np.asarray(gold, dtype=np.float32)
    assert pearson(gold32, predicted) == pytest.approx(float(pearsonr(gold32, predicted)[0]), abs=1e-6)
    assert correlation_metrics(predicted, gold) == {
        "pearson": pearson(gold, predicted),
        "spearman": spearman(gold, predicted),
    }


def test_correlation_edge_cases():
    with pytest.warns(ConstantInputWarning):
        assert np.isnan(pearson([1, 1, 1], [0.1, 0.2, 0.3]))
    with pytest.warns(ConstantInputWarning):
        assert np.isnan(spearman([1, 2, 3], [0.5, 0.5, 0.5]))
    assert pearson([1, 2], [0.2, 0.1]) == -1.0
    with pytest.raises(ValueError, match="at least 2"):
        pearson([1], [0.5])
    with pytest.raises(ValueError, match="gold scores but"):
        pearson([1, 2, 3], [0.5, 0.2])
    assert rankdata_average([3, 1, 3, 2]).tolist() == [3.5, 1.0, 3.5, 2.0]
