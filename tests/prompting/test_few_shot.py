"""Shot pool choice and shot sampling: exactly k distinct shots, no leak of the query, determinism."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from genbench._core.errors import PreparationError
from genbench._core.vocabulary import DatasetSplit
from genbench.prompting import few_shot_pool, sample_shot_ids
from genbench.prompting._counter_rng import hash64, uniform_below


class TestFewShotPool:
    def test_train_first(self, caplog):
        with caplog.at_level(logging.WARNING, logger="genbench.prompting"):
            assert few_shot_pool({"train": [1], "validation": [2], "test": [3]}) == ("train", False)
        assert not caplog.records

    def test_validation_when_no_train(self, caplog):
        with caplog.at_level(logging.WARNING, logger="genbench.prompting"):
            assert few_shot_pool({"validation": [2], "test": [3]}) == ("validation", False)
        assert "'validation'" in caplog.text

    def test_validation_when_train_empty(self):
        assert few_shot_pool({"train": [], "validation": [2], "test": [3]}) == ("validation", False)

    def test_test_excluding_query(self, caplog):
        with caplog.at_level(logging.WARNING, logger="genbench.prompting"):
            assert few_shot_pool({"train": [], "validation": [], "test": [3]}) == ("test", True)
        assert "'test'" in caplog.text and "excluded" in caplog.text

    def test_enum_keys(self):
        assert few_shot_pool({DatasetSplit.TEST: [1], DatasetSplit.VALIDATION: [1]}) == ("validation", False)

    def test_no_split(self):
        with pytest.raises(PreparationError, match="no train, validation or test split"):
            few_shot_pool({"other": [1]})


def assert_valid(shots: np.ndarray, n_queries: int, pool_size: int, k: int) -> None:
    assert shots.shape == (n_queries, k)
    assert shots.dtype == np.int64
    if shots.size:
        assert shots.min() >= 0 and shots.max() < pool_size
    assert all(len(set(row)) == k for row in shots.tolist())  # exactly k distinct


class TestSampleShotIds:
    @pytest.mark.parametrize(("pool_size", "k"), [(1, 1), (2, 2), (5, 3), (7, 7), (1000, 5), (50, 49)])
    def test_exactly_k_distinct(self, pool_size, k):
        shots = sample_shot_ids(np.arange(300), pool_size, k, random_seed=1, exclude_self=False)
        assert_valid(shots, 300, pool_size, k)

    @pytest.mark.parametrize(("pool_size", "k"), [(2, 1), (6, 5), (40, 39), (500, 5), (3, 1)])
    def test_never_the_query_itself(self, pool_size, k):
        query_ids = np.arange(pool_size)
        shots = sample_shot_ids(query_ids, pool_size, k, random_seed=7, exclude_self=True)
        assert_valid(shots, pool_size, pool_size, k)
        assert not (shots == query_ids[:, None]).any()

    def test_all_others_when_k_is_pool_minus_one(self):
        shots = sample_shot_ids(np.arange(9), 9, 8, random_seed=0, exclude_self=True)
        for query, row in enumerate(shots.tolist()):
            assert sorted(row) == [i for i in range(9) if i != query]

    def test_self_positions(self):
        ids = np.array([100, 200, 300, 400])
        shots = sample_shot_ids(ids, 4, 3, random_seed=0, exclude_self=True, self_positions=np.array([3, 2, 1, 0]))
        for position, row in zip([3, 2, 1, 0], shots.tolist(), strict=True):
            assert sorted(row) == [i for i in range(4) if i != position]

    def test_self_positions_shape(self):
        with pytest.raises(ValueError, match="self_positions"):
            sample_shot_ids(np.arange(3), 10, 2, 0, True, self_positions=np.arange(2))

    def test_pool_too_small(self):
        with pytest.raises(PreparationError, match=r"only 3 are available: the 'validation' split has only 3"):
            sample_shot_ids(np.arange(2), 3, 4, random_seed=0, exclude_self=False, pool_split="validation")

    def test_pool_too_small_excluding_query(self):
        with pytest.raises(PreparationError, match=r"5-shot .* only 4 are available: the 'test' split has 5 examples"):
            sample_shot_ids(np.arange(5), 5, 5, random_seed=0, exclude_self=True, pool_split="test")

    def test_empty_pool(self):
        with pytest.raises(PreparationError, match="only 0 are available"):
            sample_shot_ids(np.arange(0), 0, 1, random_seed=0, exclude_self=True)

    def test_negative_k(self):
        with pytest.raises(PreparationError, match=">= 0"):
            sample_shot_ids(np.arange(3), 10, -1, random_seed=0, exclude_self=False)

    def test_zero_shots_and_no_queries(self):
        assert sample_shot_ids(np.arange(3), 10, 0, 0, False).shape == (3, 0)
        assert sample_shot_ids(np.arange(0), 10, 4, 0, False).shape == (0, 4)

    def test_deterministic(self):
        first = sample_shot_ids(np.arange(1000), 5000, 5, random_seed=42, exclude_self=False)
        second = sample_shot_ids(np.arange(1000), 5000, 5, random_seed=42, exclude_self=False)
        np.testing.assert_array_equal(first, second)

    def test_independent_of_other_queries(self):
        ids = np.arange(2000)
        full = sample_shot_ids(ids, 2000, 5, random_seed=42, exclude_self=True)
        keep = np.array([5, 17, 1999, 3, 640])
        part = sample_shot_ids(ids[keep], 2000, 5, random_seed=42, exclude_self=True)
        np.testing.assert_array_equal(part, full[keep])

    def test_seeds_differ(self):
        a = sample_shot_ids(np.arange(500), 5000, 5, random_seed=1, exclude_self=False)
        b = sample_shot_ids(np.arange(500), 5000, 5, random_seed=2, exclude_self=False)
        assert (a != b).any(axis=1).mean() > 0.95

    def test_queries_differ(self):
        shots = sample_shot_ids(np.arange(500), 5000, 5, random_seed=1, exclude_self=False)
        assert len({tuple(sorted(row)) for row in shots.tolist()}) == 500

    def test_golden_values(self):
        """Pinned output: the same shots on any machine and NumPy version (change only with a version bump)."""
        assert sample_shot_ids(np.arange(5), 10, 3, 42, True).tolist() == [
            [1, 6, 2],
            [5, 0, 2],
            [6, 9, 3],
            [5, 7, 2],
            [0, 9, 5],
        ]
        assert sample_shot_ids(np.array([0, 7, 123456]), 1000, 4, 7, False).tolist() == [
            [187, 250, 245, 323],
            [807, 41, 25, 762],
            [981, 990, 561, 387],
        ]

    def test_roughly_uniform(self):
        pool_size, k = 50, 3
        shots = sample_shot_ids(np.arange(20000), pool_size, k, random_seed=5, exclude_self=False)
        counts = np.bincount(shots.ravel(), minlength=pool_size)
        expected = 20000 * k / pool_size
        assert np.abs(counts - expected).max() < 0.1 * expected
        # Every slot of the prompt is uniform too (the order within a row is shuffled).
        first_slot = np.bincount(shots[:, 0], minlength=pool_size)
        assert np.abs(first_slot - 20000 / pool_size).max() < 0.25 * 20000 / pool_size

    def test_two_dimensional_ids_rejected(self):
        with pytest.raises(ValueError, match="one-dimensional"):
            sample_shot_ids(np.zeros((2, 2), dtype=int), 10, 1, 0, False)


class TestCounterRng:
    def test_golden_values(self):
        assert int(hash64(0)[()]) == 16294208416658607535
        assert int(hash64(42, 7)[()]) == 1587005860896957696
        assert int(hash64(-1, 2**70)[()]) == 6755974106381971767

    def test_arrays_match_scalars(self):
        values = hash64(9, np.arange(4))
        assert [int(v) for v in values] == [int(hash64(9, i)[()]) for i in range(4)]

    def test_uniform_below_bound(self):
        draws = uniform_below(hash64(1, np.arange(10000)), 7)
        assert draws.min() == 0 and draws.max() == 6

    def test_rejects_floats(self):
        with pytest.raises(TypeError):
            hash64(np.array([1.5]))
