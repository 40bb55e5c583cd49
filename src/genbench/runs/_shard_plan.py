"""Which requests of a run a shard answers: a deterministic share, balanced by token counts across tasks.

Every shard enumerates all requests of the run (every task, seed and setting), drops duplicates (by request key),
and deals them to the shards longest first, each to the shard with the fewest tokens so far (ties: the lower
shard). The deal depends only on the requests, so every shard computes the same one on its own, on any machine, with
no coordination. See docs/running_models.md ("Sharded runs").
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable
from dataclasses import dataclass

_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based, as ``--shard 2/4`` writes it)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1 or not 1 <= self.index <= self.count:
            raise ValueError(f"Shard {self.index}/{self.count}: expected I/N with 1 <= I <= N (e.g. 2/4).")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/4"`` -> ``Shard(2, 4)``.

        >>> Shard.parse("2/4")
        Shard(index=2, count=4)
        >>> Shard.parse("5/4")
        Traceback (most recent call last):
        ValueError: Shard 5/4: expected I/N with 1 <= I <= N (e.g. 2/4).
        """
        index, sep, count = text.strip().partition("/")
        if not sep or not index.strip().isdigit() or not count.strip().isdigit():
            raise ValueError(f"Shard {text!r}: expected I/N with 1 <= I <= N (e.g. 2/4).")
        return cls(int(index), int(count))

    @property
    def name(self) -> str:
        """The shard's folder name: ``shard-2-of-4``."""
        return f"shard-{self.index}-of-{self.count}"


def token_count(text: str) -> int:
    """A model-independent estimate of the tokens of a text: words and punctuation marks.

    >>> token_count("Q: 2+2=?")
    7
    """
    return len(_TOKEN.findall(text))


def deal(weights: Iterable[tuple[str, int]], count: int) -> list[list[str]]:
    """Deal keys to ``count`` shards, heaviest first, each to the lightest shard so far (ties: the lower shard).

    Args:
        weights: ``(key, tokens)`` per distinct request.
        count: The number of shards.

    Returns:
        The keys of each shard, in dealing order.

    >>> deal([("a", 5), ("b", 3), ("c", 3), ("d", 1)], 2)
    [['a', 'd'], ['b', 'c']]
    """
    loads = [(0, shard) for shard in range(count)]
    shares: list[list[str]] = [[] for _ in range(count)]
    for key, tokens in sorted(weights, key=lambda item: (-item[1], item[0])):
        load, shard = heapq.heappop(loads)
        shares[shard].append(key)
        heapq.heappush(loads, (load + max(1, tokens), shard))
    return shares
