"""The ``negation_consistency`` task: an affirmative and a negated subtask, merged with a negation gap."""

from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Real

from genbench import TaskDict
from genbench.api import EvaluationResult

GAP_PREFIX = "negation_gap__"


class NegationConsistencyTaskDict(TaskDict):
    """Adds, per metric, the affirmative score minus the negated score (``negation_gap__{metric}``).

    A model that handles negation scores the same on both subtasks (gap 0); one that ignores the "not" scores
    about 1 - its affirmative accuracy on the negated statements, a large positive gap.
    """

    def merge_evaluation_results(self, results: Mapping[str, EvaluationResult]) -> EvaluationResult:
        merged = super().merge_evaluation_results(results)
        affirmative, negated = results.get("affirmative"), results.get("negated")
        if affirmative is None or negated is None:
            return merged
        for key, value in affirmative.items():
            other = negated.get(key)
            if _is_number(value) and _is_number(other):
                merged[GAP_PREFIX + key] = float(value) - float(other)
        return merged


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value))
