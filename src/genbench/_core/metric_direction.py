"""Which way a metric is better, as a task declares it (``metric_directions`` in its config): result keys or glob
patterns mapped to ``"higher"``, ``"lower"`` or ``"zero"``. Kept here, free of pydantic, because the config schema,
the task checks and the leaderboard all read it. See docs/config.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from typing import Literal

Direction = Literal["higher", "lower", "zero"]
DIRECTIONS: tuple[Direction, ...] = ("higher", "lower", "zero")


def declared_direction(key: str, declared: Mapping[str, str] | None) -> Direction | None:
    """The direction ``declared`` gives the result key ``key`` (None: it says nothing about it).

    >>> declared = {"negation_gap__*": "zero", "negation_gap__hf_f1__f1": "higher"}
    >>> declared_direction("negation_gap__hf_accuracy__accuracy", declared)
    'zero'
    >>> declared_direction("negation_gap__hf_f1__f1", declared), declared_direction("hf_f1__f1", declared)
    ('higher', None)
    """
    if not declared:
        return None
    if key in declared:
        return _direction(declared[key])
    matching = [pattern for pattern in declared if fnmatchcase(key, pattern)]
    if not matching:
        return None
    return _direction(declared[max(matching, key=lambda pattern: (len(pattern), pattern))])


def unmatched_patterns(declared: Mapping[str, str] | None, keys: Iterable[str]) -> list[str]:
    """The declared keys and patterns that match none of ``keys`` (a typo, or a metric the task no longer has).

    >>> unmatched_patterns({"negation_gap__*": "lower", "hf_wer__wer": "lower"}, ["negation_gap__hf_accuracy__x"])
    ['hf_wer__wer']
    """
    keys = list(keys)
    return [pattern for pattern in declared or {} if not any(fnmatchcase(key, pattern) for key in keys)]


def better_value_key(direction: Direction) -> Callable[[float], float]:
    """What to maximise to prefer better values of a metric of ``direction`` (sort descending by it).

    >>> [better_value_key(d)(-0.2) for d in DIRECTIONS]
    [-0.2, 0.2, -0.2]
    """
    if direction == "lower":
        return lambda value: -value
    if direction == "zero":
        return lambda value: -abs(value)
    return lambda value: value


def _direction(value: str) -> Direction | None:
    return next((direction for direction in DIRECTIONS if direction == value), None)
