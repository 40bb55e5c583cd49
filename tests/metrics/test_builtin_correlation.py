"""Correlation built-ins against SciPy; inputs are rounded to float32 as evaluate does."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genbench.metrics._builtin.correlation import pearsonr, spearmanr


def _float32_data(seed: int, size: int = 50) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(seed)
    references = rng.normal(size=size).astype(np.float32)
    predictions = (references + rng.normal(scale=0.7, size=size)).astype(np.float32)
    return predictions.astype(float).tolist(), references.astype(float).tolist()


def test_hand_cases_from_the_metric_cards():
    preds, refs = [10, 9, 2.5, 6, 4], [1, 2, 3, 4, 5]
    result = pearsonr(preds, refs, return_pvalue=True)
    assert list(result) == ["pearsonr", "p-value"]
    assert round(result["pearsonr"], 2) == -0.74
    assert round(result["p-value"], 2) == 0.15
    assert list(pearsonr(preds, refs)) == ["pearsonr"]
    result = spearmanr(preds, refs, return_pvalue=True)
    assert list(result) == ["spearmanr", "spearmanr_pvalue"]
    assert result["spearmanr"] == pytest.approx(-0.7)
    assert round(result["spearmanr_pvalue"], 2) == 0.19


def test_perfect_and_inverse():
    assert pearsonr([1, 2, 3], [2, 4, 6])["pearsonr"] == pytest.approx(1.0)
    assert spearmanr([3, 2, 1], [1, 5, 9])["spearmanr"] == pytest.approx(-1.0)


@pytest.mark.parametrize("seed", range(6))
def test_parity_with_scipy(seed):
    import scipy.stats

    preds, refs = _float32_data(seed)
    expected = scipy.stats.pearsonr(refs, preds)
    assert pearsonr(preds, refs, return_pvalue=True) == {
        "pearsonr": float(expected[0]),
        "p-value": float(expected[1]),
    }
    expected = scipy.stats.spearmanr(refs, preds)
    assert spearmanr(preds, refs, return_pvalue=True) == {
        "spearmanr": float(expected[0]),
        "spearmanr_pvalue": float(expected[1]),
    }


@pytest.mark.parametrize("seed", range(6))
def test_spearman_ties_parity(seed):
    import scipy.stats

    rng = np.random.default_rng(seed)
    refs = rng.integers(0, 4, 40).astype(float).tolist()
    preds = rng.integers(0, 3, 40).astype(float).tolist()
    expected = scipy.stats.spearmanr(refs, preds)
    assert spearmanr(preds, refs)["spearmanr"] == float(expected[0])
    # ties get their mean rank: hand case [1, 1, 2] ranks 1.5, 1.5, 3
    assert spearmanr([1, 1, 2], [1, 2, 3])["spearmanr"] == pytest.approx(np.corrcoef([1.5, 1.5, 3], [1, 2, 3])[0, 1])


def test_inputs_are_rounded_to_float32_like_evaluate():
    import scipy.stats

    refs = [1.0, 2.0, 3.0, 4.0]
    preds = [0.1, 0.2000000001, 0.3, 0.45]
    rounded = np.asarray(preds, dtype=np.float32).astype(float)
    assert pearsonr(preds, refs)["pearsonr"] == float(scipy.stats.pearsonr(refs, rounded)[0])
    # two values equal in float32 tie, as they do in evaluate
    assert (
        spearmanr([1.0, 1.0 + 1e-12, 2.0], [1, 2, 3])["spearmanr"]
        == spearmanr([1.0, 1.0, 2.0], [1, 2, 3])["spearmanr"]
    )


finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, width=32)


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(finite, finite), min_size=3, max_size=30))
def test_parity_property(pairs):
    import scipy.stats

    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: SciPy warns and returns NaN, for both
        expected_p = float(scipy.stats.pearsonr(refs, preds)[0])
        expected_s = float(scipy.stats.spearmanr(refs, preds)[0])
        ours_p, ours_s = pearsonr(preds, refs)["pearsonr"], spearmanr(preds, refs)["spearmanr"]
    assert ours_p == expected_p or (math.isnan(ours_p) and math.isnan(expected_p))
    assert ours_s == expected_s or (math.isnan(ours_s) and math.isnan(expected_s))
