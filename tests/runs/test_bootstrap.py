"""Bootstrap intervals and the paired test, against a direct computation and against scipy."""

from __future__ import annotations

import numpy as np
import pytest

from genbench._core.bootstrap import bootstrap_mean_interval, is_mean_of, paired_difference


def _direct_interval(scores: list[float], resamples: int, seed: int) -> tuple[float, float]:
    """The documented procedure, written out as a loop."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(scores), size=(resamples, len(scores)))
    means = sorted(sum(scores[i] for i in row) / len(scores) for row in draws)
    return tuple(np.quantile(means, [0.025, 0.975]))  # type: ignore[return-value]


@pytest.mark.parametrize("seed", [0, 42])
def test_mean_interval_is_the_documented_computation(seed: int) -> None:
    scores = list(np.random.default_rng(7).integers(0, 2, size=60).astype(float))
    assert bootstrap_mean_interval(scores, resamples=500, seed=seed) == pytest.approx(
        _direct_interval(scores, 500, seed)
    )


def test_mean_interval_agrees_with_scipy_percentile_bootstrap() -> None:
    from scipy import stats

    scores = np.random.default_rng(3).normal(0.6, 0.2, size=200)
    ours = bootstrap_mean_interval(scores, resamples=4000, seed=1)
    theirs = stats.bootstrap((scores,), np.mean, n_resamples=4000, method="percentile", random_state=2)
    low, high = theirs.confidence_interval
    assert ours[0] == pytest.approx(low, abs=0.01) and ours[1] == pytest.approx(high, abs=0.01)
    assert ours[0] < scores.mean() < ours[1]


def test_paired_difference_against_direct_permutation_and_bootstrap() -> None:
    from scipy import stats

    rng = np.random.default_rng(5)
    a = rng.integers(0, 2, size=40).astype(float)
    b = np.where(rng.random(40) < 0.3, 1 - a, a)
    result = paired_difference(a, b, resamples=300, permutations=2000, seed=9)
    d = a - b
    assert result.difference == pytest.approx(d.mean())
    assert (result.low, result.high) == pytest.approx(_direct_interval(list(d), 300, 9))
    signs = np.random.default_rng(10).choice([-1.0, 1.0], size=(2000, 40))
    extreme = sum(abs(float(np.mean(row * d))) >= abs(d.mean()) - 1e-12 for row in signs)
    assert result.p_value == pytest.approx((1 + extreme) / 2001)
    # scipy's paired permutation test of the same two-sided statistic agrees up to Monte Carlo error
    scipy_p = stats.permutation_test(
        (a, b),
        lambda x, y: abs(np.mean(x - y)),
        permutation_type="samples",
        n_resamples=2000,
        random_state=0,
        alternative="greater",
    ).pvalue
    assert result.p_value == pytest.approx(scipy_p, abs=0.05)


def test_identical_systems_are_not_different() -> None:
    scores = [1.0, 0.0, 1.0, 1.0]
    result = paired_difference(scores, scores)
    assert (result.difference, result.low, result.high, result.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_is_mean_of() -> None:
    assert is_mean_of(0.5, [1.0, 0.0])
    assert not is_mean_of(0.4, [1.0, 0.0])
    assert not is_mean_of(0.5, [1.0, float("nan")])


def test_resamples_that_do_not_fit_in_memory_say_what_they_need_and_what_to_lower() -> None:
    # `--bootstrap-resamples 1000000000` once ended in numpy's "Unable to allocate 536. GiB for an array with shape
    # (1000000000, 72)", which named neither the resamples nor the option
    needs = r"1,000,000,000,000 bootstrap resamples of 72 examples need .* GiB"
    with pytest.raises(MemoryError, match=needs) as raised:
        bootstrap_mean_interval([1.0, 0.0] * 36, resamples=10**12)
    assert "--bootstrap-resamples" in str(raised.value)
