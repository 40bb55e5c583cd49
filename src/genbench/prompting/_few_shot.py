"""Where few-shot examples come from, and which ones each query gets.

Guarantees (``docs/prompting.md``): every query gets exactly ``k`` distinct shots; shots come from the train split,
else the validation split, else the test split with the query itself excluded; a query's shots depend only on the
random seed, the query's ``_genbench_idx``, ``k`` and the pool size, so they are the same on any machine, with any
NumPy version, whichever other queries are prepared alongside.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench._core.errors import PreparationError
from genbench._core.vocabulary import split_name
from genbench.prompting._counter_rng import DOMAIN_ORDER_SHOTS, DOMAIN_SAMPLE_SHOTS, hash64, uniform_below

if TYPE_CHECKING:
    import datasets

logger = logging.getLogger(__name__)


def few_shot_pool(datasets: Mapping[str, datasets.Dataset] | Mapping[Any, Any]) -> tuple[str, bool]:
    """Choose the split few-shot examples are drawn from, and report the choice.

    The train split if present and non-empty, else the validation split, else the test split, in which case each
    query must be excluded from its own shots. A warning is logged whenever the pool is not the train split.

    Args:
        datasets: Split name (or :class:`~genbench._core.vocabulary.DatasetSplit`) to dataset; anything with
            ``len()`` works.

    Returns:
        ``(split_name, exclude_query)``: the pool's split name, and whether queries come from the pool itself.

    Raises:
        PreparationError: There is no train, validation or test split.

    >>> few_shot_pool({"train": [1, 2, 3], "test": [4]})
    ('train', False)
    >>> few_shot_pool({"train": [], "validation": [5], "test": [4]})
    ('validation', False)
    >>> few_shot_pool({"test": [4, 5]})
    ('test', True)
    """
    sizes = {split_name(key): len(value) for key, value in datasets.items()}
    if sizes.get("train"):
        logger.info("Few-shot examples are drawn from the 'train' split (%d examples).", sizes["train"])
        return "train", False
    if sizes.get("validation"):
        logger.warning(
            "No non-empty train split: few-shot examples are drawn from the 'validation' split (%d examples).",
            sizes["validation"],
        )
        return "validation", False
    if "test" in sizes:
        logger.warning(
            "No non-empty train or validation split: few-shot examples are drawn from the 'test' split "
            "(%d examples), each query excluded from its own shots.",
            sizes["test"],
        )
        return "test", True
    raise PreparationError(
        f"no train, validation or test split to draw few-shot examples from (splits: {list(sizes)})"
    )


def sample_shot_ids(
    query_ids: np.ndarray,
    pool_size: int,
    k: int,
    random_seed: int,
    exclude_self: bool,
    *,
    self_positions: np.ndarray | None = None,
    pool_split: str | None = None,
) -> np.ndarray:
    """Draw ``k`` distinct pool positions for every query, vectorised over the queries.

    Each query's shots are a uniformly random ``k``-subset of the pool (Floyd's algorithm: exactly ``k`` draws, no
    rejection loop) in a uniformly random order. Every draw is a counter-based hash of ``(random_seed, query id,
    draw number)``, so a query's shots depend on nothing but those, ``k`` and ``pool_size``: not on the other
    queries, not on the machine, not on NumPy's generator streams.

    Args:
        query_ids: The queries' ``_genbench_idx`` values, shape ``(n_queries,)``.
        pool_size: Number of examples in the pool; positions are ``0 .. pool_size - 1``.
        k: Shots per query.
        random_seed: Seed of the draws.
        exclude_self: The queries belong to the pool and must not be their own shots. A query's own pool position
            is its id unless ``self_positions`` says otherwise.
        self_positions: With ``exclude_self``, each query's position in the pool (defaults to ``query_ids``).
        pool_split: Name of the pool's split, for the error message.

    Returns:
        An int64 array of pool positions, shape ``(n_queries, k)``; rows hold distinct values.

    Raises:
        PreparationError: The pool holds fewer than ``k`` usable examples (``k + 1`` when excluding the query), or
            ``k`` is negative.

    >>> shots = sample_shot_ids(np.arange(4), pool_size=10, k=3, random_seed=42, exclude_self=True)
    >>> shots.shape
    (4, 3)
    >>> bool(all(q not in row for q, row in enumerate(shots.tolist())))
    True
    >>> bool((sample_shot_ids(np.array([2]), 10, 3, 42, True) == shots[2]).all())
    True
    """
    query_ids = np.asarray(query_ids)
    if query_ids.ndim != 1:
        raise ValueError(f"query_ids must be one-dimensional, got shape {query_ids.shape}")
    query_ids = query_ids.astype(np.int64, copy=False)
    if k < 0:
        raise PreparationError(f"the number of shots must be >= 0, got {k}")
    available = pool_size - 1 if exclude_self else pool_size
    if k > available:
        source = f"the '{pool_split}' split" if pool_split else "the few-shot pool"
        if exclude_self:
            why = f"{source} has {pool_size} examples and each query is excluded from its own shots"
        else:
            why = f"{source} has only {pool_size} examples"
        raise PreparationError(
            f"{k}-shot prompts need {k} distinct few-shot examples per query, "
            f"but only {max(available, 0)} are available: {why}"
        )

    n_queries = len(query_ids)
    if k == 0 or n_queries == 0:
        return np.empty((n_queries, k), dtype=np.int64)

    # Floyd's algorithm over 0 .. available - 1: draw t in [0, upper]; if t was already taken, take upper (which
    # cannot be). Draws are laid out one row per draw so that the membership test scans contiguous memory.
    query_key = hash64(DOMAIN_SAMPLE_SHOTS, random_seed, query_ids)
    drawn = np.empty((k, n_queries), dtype=np.int64)
    for draw, upper in enumerate(range(available - k, available)):
        candidate = uniform_below(hash64(query_key, draw), upper + 1)
        taken = (drawn[:draw] == candidate).any(axis=0)
        drawn[draw] = np.where(taken, upper, candidate)
    shots = drawn.T

    # Floyd's insertion order is not uniform; shuffle each row by counter-based keys.
    order_keys = hash64(DOMAIN_ORDER_SHOTS, random_seed, query_ids[:, None], np.arange(k)[None, :])
    shots = np.take_along_axis(shots, np.argsort(order_keys, axis=1, kind="stable"), axis=1)

    if exclude_self:
        own = query_ids if self_positions is None else np.asarray(self_positions, dtype=np.int64)
        if own.shape != query_ids.shape:
            raise ValueError(f"self_positions must have the shape of query_ids {query_ids.shape}, got {own.shape}")
        # Positions were drawn from a pool one smaller; skipping over the query's own slot keeps them uniform.
        shots += shots >= own[:, None]
    return shots
