"""Which mean over tasks the leaderboard ranks by: raw headline scores, or scores normalised to each task's chance.

``chance-normalised`` maps a task's headline to ``100 * (score - chance) / (perfect - chance)``, not clipped; chance
is the best score of the board's baselines on the task. A task with no known chance level is left out of the
normalised means and ranks, and the pages name it. See docs/leaderboard.md#raw-or-chance-normalised-means.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

import numpy as np

if TYPE_CHECKING:
    from genbench._leaderboard.standings import Score

Values = TypeVar("Values", float, np.ndarray)
Aggregation = Literal["raw", "chance-normalised"]
AGGREGATIONS: tuple[Aggregation, ...] = ("raw", "chance-normalised")
AGGREGATION_DESCRIPTIONS: dict[str, str] = {
    "raw": "Mean of headline scores",
    "chance-normalised": "Mean of chance-normalised scores, 0 = chance, 100 = perfect",
}
"""What each page says about the means it shows."""


@dataclass(frozen=True)
class ChanceLevel:
    """A task's chance level and perfect score (``chance`` None: unknown, with ``source`` saying why)."""

    chance: float | None
    perfect: float
    source: str
    """The baseline the chance level is the score of, or why there is none."""

    @property
    def known(self) -> bool:
        return self.chance is not None

    def normalise(self, value: Values) -> Values:
        """``value`` (a number or an array of them) on the scale 0 = chance, 100 = perfect."""
        if self.chance is None:
            raise ValueError(f"no chance level: {self.source}")
        return 100.0 * (value - self.chance) / (self.perfect - self.chance)


def chance_level(baseline_scores: Mapping[str, float], all_scores: Iterable[float]) -> ChanceLevel:
    """The chance level of a task from its baselines' scores (label -> score) and the perfect score from every score
    on it (models and baselines).

    >>> chance_level({"baseline:majority_option": 0.25}, [0.25, 0.5, 0.75])
    ChanceLevel(chance=0.25, perfect=1.0, source='baseline:majority_option')
    >>> chance_level({}, [0.5]).source
    'no baseline results on this task'
    """
    perfect = 1.0 if all(0.0 <= v <= 1.0 for v in [*all_scores, *baseline_scores.values()]) else 100.0
    if not baseline_scores:
        return ChanceLevel(None, perfect, "no baseline results on this task")
    label, chance = max(baseline_scores.items(), key=lambda kv: (kv[1], kv[0]))
    if chance >= perfect:
        return ChanceLevel(None, perfect, f"its baseline ({label}) is already perfect")
    return ChanceLevel(chance, perfect, label)


def normalised_score(score: Score, level: ChanceLevel) -> Score:
    """``score`` (value, interval, replicates, seeds' values) on the scale 0 = chance, 100 = perfect; the map is
    linear and increasing, so intervals map end to end."""
    if level.chance is None:
        raise ValueError(f"no chance level: {level.source}")
    ci = (level.normalise(score.ci[0]), level.normalise(score.ci[1])) if score.ci else None
    return dataclasses.replace(
        score,
        value=level.normalise(score.value),
        ci=ci,
        replicates=level.normalise(score.replicates),
        seed_values=[level.normalise(v) for v in score.seed_values],
    )
