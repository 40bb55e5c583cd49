"""What contamination means: the analyzer and the match rules, defined once for every backend.

This module is the definition: the index backends compute the same numbers faster, and the tests compare each of
them with the plain functions here. The rules: docs/contamination.md#what-is-matched-the-rules.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

ANALYZER_VERSION = 2
"""Version of the tokenisation rules; part of every index manifest (2: the final sigma is folded)."""

TOKEN_PATTERN = re.compile(r"\w+")
_SEPARATOR = "\x1e"  # not a word character: it can never be part of a token
_TOKEN_OR_SEPARATOR = re.compile(r"\w+|\x1e")


def tokenize(text: str) -> list[str]:
    """The tokens of ``text``: lower-cased maximal runs of word characters.

    >>> tokenize("Hello, WORLD: 3.14 — 東京タワー")
    ['hello', 'world', '3', '14', '東京タワー']
    >>> tokenize("Café au lait, s'il vous plaît!")
    ['café', 'au', 'lait', 's', 'il', 'vous', 'plaît']
    """
    return TOKEN_PATTERN.findall(lower(text))


def lower(text: str) -> str:
    """``str.lower()`` with the final sigma folded (``ΟΔΟΣ`` and ``οδος`` both give ``οδοσ``).

    >>> lower("ΟΔΟΣ οδος İ")
    'οδοσ οδοσ i̇'
    """
    lowered = text.lower()
    return lowered.replace("ς", "σ") if "ς" in lowered else lowered


def tokenize_joined(texts: Sequence[str]) -> list[str]:
    """The tokens of many texts in one list, with :data:`SEPARATOR` between the texts' tokens.

    The same tokens as :func:`tokenize` on each text, several times faster on many short texts (one
    :func:`lower` and one regex pass over the joined text).

    >>> tokenize_joined(["A b", "", "C"])
    ['a', 'b', '\\x1e', '\\x1e', 'c']
    """
    joined = _SEPARATOR.join(texts)
    if joined.count(_SEPARATOR) == max(len(texts) - 1, 0):
        return _TOKEN_OR_SEPARATOR.findall(lower(joined))
    # A text contains the separator itself: tokenise one by one.
    tokens: list[str] = []
    for number, text in enumerate(texts):
        if number:
            tokens.append(_SEPARATOR)
        tokens.extend(tokenize(text))
    return tokens


SEPARATOR = _SEPARATOR
"""The item :func:`tokenize_joined` puts between texts."""


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """The n-grams of a token sequence, in order (none when it is shorter than ``n``).

    >>> ngrams(["a", "b", "c"], 2)
    [('a', 'b'), ('b', 'c')]
    """
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def matched_mask(field: Sequence[str], unit: Sequence[str], n: int) -> list[bool]:
    """For each token of ``field``, whether an n-gram of the field containing it occurs in ``unit``.

    >>> matched_mask(["x", "a", "b", "y"], ["a", "b"], 2)
    [False, True, True, False]
    """
    if n < 1:
        raise ValueError(f"ngram_size must be at least 1, got {n}.")
    unit_ngrams = set(ngrams(unit, n))
    mask = [False] * len(field)
    for start, gram in enumerate(ngrams(field, n)):
        if gram in unit_ngrams:
            mask[start : start + n] = [True] * n
    return mask


def longest_run(mask: Sequence[bool]) -> tuple[int, int]:
    """``(start, end)`` of the first longest run of ``True`` in ``mask``; ``(0, 0)`` when there is none.

    >>> longest_run([True, False, True, True, False])
    (2, 4)
    """
    best = (0, 0)
    start = None
    for position, value in enumerate([*mask, False]):
        if value and start is None:
            start = position
        elif not value and start is not None:
            if position - start > best[1] - best[0]:
                best = (start, position)
            start = None
    return best


def field_score(field: Sequence[str], unit: Sequence[str], n: int) -> float:
    """Matched tokens / tokens of the field (0.0 for a field with no tokens).

    >>> field_score(["a", "b", "c", "d"], ["b", "c", "d", "e"], 3)
    0.75
    """
    if not field:
        return 0.0
    return sum(matched_mask(field, unit, n)) / len(field)


def ngram_score(fields: Sequence[Sequence[str]], unit: Sequence[str], n: int) -> float:
    """Mean over the fields of :func:`field_score` (fields summed in order, then divided by their number).

    >>> ngram_score([tokenize("the cat sat on the mat")], tokenize("a cat sat on a mat"), 2)
    0.5
    """
    return sum(field_score(field, unit, n) for field in fields) / len(fields)


def contains(field: Sequence[str], unit: Sequence[str]) -> bool:
    """Whether ``field`` occurs contiguously in ``unit`` (never for an empty field).

    >>> contains(["b", "c"], ["a", "b", "c"]), contains(["c", "b"], ["a", "b", "c"]), contains([], ["a"])
    (True, False, False)
    """
    length = len(field)
    if not length:
        return False
    target = list(field)
    return any(list(unit[i : i + length]) == target for i in range(len(unit) - length + 1))


def exact_score(fields: Sequence[Sequence[str]], unit: Sequence[str]) -> float:
    """1.0 when ``unit`` contains every field, else 0.0."""
    return 1.0 if all(contains(field, unit) for field in fields) else 0.0


def pair_score(fields: Sequence[Sequence[str]], unit: Sequence[str], ngram_size: int | None) -> float:
    """The score of one test instance against one training unit (n-gram or exact rule)."""
    if ngram_size is None:
        return exact_score(fields, unit)
    return ngram_score(fields, unit, ngram_size)


def best_match(
    fields: Sequence[Sequence[str]], units: Iterable[Sequence[str]], ngram_size: int | None
) -> tuple[float, int | None]:
    """The largest match: ``(score, unit number)``, the first unit reaching the maximum; ``(0.0, None)`` if none.

    >>> best_match([["a", "b"]], [["x"], ["a", "b"], ["b", "a", "b"]], 2)
    (1.0, 1)
    """
    best_score, best_unit = 0.0, None
    for number, unit in enumerate(units):
        score = pair_score(fields, unit, ngram_size)
        if score > best_score:
            best_score, best_unit = score, number
    return best_score, best_unit


def apply_threshold(score: float, threshold: float | None) -> float:
    """The reported instance score: 1.0 if ``score > threshold``, else 0.0; ``score`` itself without a threshold.

    >>> apply_threshold(0.5, 0.5), apply_threshold(0.51, 0.5), apply_threshold(0.3, None)
    (0.0, 1.0, 0.3)
    """
    if threshold is None:
        return score
    return 1.0 if score > threshold else 0.0


def test_set_score(instance_scores: Iterable[float]) -> float:
    """Mean of the instance scores (exactly rounded, so it does not depend on their order); 0.0 for none.

    >>> test_set_score([1.0, 0.0, 0.5])
    0.5
    """
    scores = list(instance_scores)
    return math.fsum(scores) / len(scores) if scores else 0.0


test_set_score.__test__ = False  # type: ignore[attr-defined]  # not a pytest test despite its name
