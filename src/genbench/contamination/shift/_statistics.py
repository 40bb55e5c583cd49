"""The shift statistics, each defined once on the counting primitives of :mod:`~genbench.contamination.shift._engine`.

Per example the n-gram hit share, the longest verbatim span and the rarest n-grams; per test set the unigram
cross-entropy. A statistic needs the primitives listed in :data:`NEEDS`; an engine without them leaves it out (and
says so). Definitions: docs/shift.md#what-is-measured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from genbench.contamination.shift._engine import UNKNOWN, CorpusEngine
from genbench.contamination.shift._tokenizers import SplitText

NEEDS: dict[str, tuple[str, ...]] = {
    "ngram_hit_share": ("contains",),
    "longest_span": ("contains", "count"),
    "rarest_ngrams": ("count",),
    "unigram_cross_entropy": ("unigram_counts", "total_tokens"),
}
"""Each statistic, and the primitives it is computed from."""


def computable(engine: CorpusEngine) -> dict[str, str | None]:
    """For each statistic, ``None`` if ``engine`` computes it, else the first primitive it lacks."""
    return {name: next((p for p in needs if p not in engine.primitives), None) for name, needs in NEEDS.items()}


@dataclass
class Span:
    """The longest verbatim span of an example."""

    tokens: int
    characters: int
    count: int | None
    text: str

    def as_json(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "characters": self.characters, "count": self.count, "text": self.text}


@dataclass
class ExampleShift:
    """The statistics of one example (``None`` for those the engine cannot compute)."""

    index: int
    tokens: int
    ngram_hit_share: dict[int, float | None] | None = None
    longest_span: Span | None = None
    rarest_ngrams: dict[int, list[tuple[str, int]]] | None = None
    flagged: bool = False
    text_sha256: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "text_sha256": self.text_sha256,
            "tokens": self.tokens,
            "ngram_hit_share": None
            if self.ngram_hit_share is None
            else {str(n): share for n, share in self.ngram_hit_share.items()},
            "longest_span": None if self.longest_span is None else self.longest_span.as_json(),
            "rarest_ngrams": None
            if self.rarest_ngrams is None
            else {
                str(n): [{"text": text, "count": count} for text, count in grams]
                for n, grams in self.rarest_ngrams.items()
            },
            "flagged": self.flagged,
        }


@dataclass
class CountCache:
    """Counts and presences asked of the engine, each asked once (examples repeat n-grams)."""

    engine: CorpusEngine
    counts: dict[tuple[int, ...], int] = field(default_factory=dict)
    presence: dict[tuple[int, ...], bool] = field(default_factory=dict)

    def count(self, ids: Sequence[int]) -> int:
        key = tuple(ids)
        if key not in self.counts:
            self.counts[key] = 0 if UNKNOWN in key else self.engine.count(key)
            self.presence[key] = self.counts[key] > 0
        return self.counts[key]

    def contains(self, ids: Sequence[int]) -> bool:
        key = tuple(ids)
        if key not in self.presence:
            self.presence[key] = False if UNKNOWN in key else self.engine.contains(key)
        return self.presence[key]


def example_shift(
    index: int,
    split: SplitText,
    ids: Sequence[int],
    counts: CountCache,
    *,
    ngram_sizes: Sequence[int],
    rarest: int,
    statistics: set[str],
) -> ExampleShift:
    """The statistics named in ``statistics`` for one example (its tokens ``split``, their corpus ``ids``).

    Where the engine counts sequences of any length (what the longest span needs), the example's *matching
    statistics* are found first: for each position, the length of the longest run from there that the corpus holds.
    A window of n tokens at ``i`` occurs exactly when that length is at least n, so every n's hit share, the longest
    span and the zero counts of the rarest n-grams follow from about ``2 L`` presence queries, whatever the n.
    """
    result = ExampleShift(index=index, tokens=len(ids))
    windows = {n: [tuple(ids[i : i + n]) for i in range(len(ids) - n + 1)] for n in ngram_sizes}
    matching = _matching_statistics(ids, counts) if "longest_span" in statistics else None

    def found(n: int, position: int) -> bool:
        if matching is not None:
            return matching[position] >= n
        return counts.contains(windows[n][position])

    if "ngram_hit_share" in statistics:
        result.ngram_hit_share = {
            n: (sum(found(n, i) for i in range(len(grams))) / len(grams)) if grams else None
            for n, grams in windows.items()
        }
    if "rarest_ngrams" in statistics:
        result.rarest_ngrams = {}
        units = list(split.units)
        for n, grams in windows.items():
            # Distinct by their tokens, not their ids: two words the corpus lacks share the id UNKNOWN.
            first: dict[tuple[object, ...], int] = {}
            for position in range(len(grams)):
                first.setdefault(tuple(units[position : position + n]), position)
            absent = [p for p in first.values() if not found(n, p)]
            if len(absent) >= rarest:  # zeros come first: no count to ask
                order, gram_counts = absent[:rarest], [0] * rarest
            else:
                order = sorted(first.values(), key=lambda p: (counts.count(grams[p]), p))[:rarest]
                gram_counts = [counts.count(grams[p]) for p in order]
            result.rarest_ngrams[n] = [(_text(split, p, p + n), c) for p, c in zip(order, gram_counts, strict=True)]
    if matching is not None:
        result.longest_span = _longest_span(split, ids, matching, counts)
    return result


def _text(split: SplitText, start: int, end: int) -> str:
    first, past = split.characters(start, end)
    return split.text[first:past]


def _matching_statistics(ids: Sequence[int], counts: CountCache) -> list[int]:
    """For each position, the length of the longest run of tokens from there that occurs in the corpus."""
    # Two pointers: if tokens i..j occur, so do i+1..j, so the end never moves back (at most 2L presence queries).
    lengths = []
    end = 0
    for start in range(len(ids)):
        end = max(end, start)
        while end < len(ids) and counts.contains(ids[start : end + 1]):
            end += 1
        lengths.append(end - start)
    return lengths


def _longest_span(split: SplitText, ids: Sequence[int], matching: list[int], counts: CountCache) -> Span:
    longest = max(matching, default=0)
    if longest == 0:
        return Span(tokens=0, characters=0, count=None, text="")
    start = matching.index(longest)
    first, past = split.characters(start, start + longest)
    return Span(
        tokens=longest,
        characters=past - first,
        count=counts.count(ids[start : start + longest]),
        text=split.text[first:past],
    )


def unigram_cross_entropy(engine: CorpusEngine, examples: Sequence[tuple[SplitText, Sequence[int]]]) -> dict[str, Any]:
    """The test set's unigram cross-entropy under the corpus (bits per token, add-one smoothing; module docs).

    Returns ``bits_per_token`` (``None`` for a test set without tokens), ``test_tokens``, ``unseen_token_share``
    (the share of test tokens the corpus never contains) and ``vocabulary`` (``V``).
    """
    unigrams = engine.unigram_counts()
    total = engine.total_tokens()
    unseen_types: set[object] = set()
    test_tokens = 0
    for split, ids in examples:
        for unit, token in zip(split.units, ids, strict=True):
            test_tokens += 1
            if unigrams.get(token, 0) == 0:
                unseen_types.add(unit)
    vocabulary = len(unigrams) + len(unseen_types)
    bits = 0.0
    unseen = 0
    for _, ids in examples:
        for token in ids:
            count = unigrams.get(token, 0)
            unseen += count == 0
            bits -= math.log2((count + 1) / (total + vocabulary))
    return {
        "bits_per_token": bits / test_tokens if test_tokens else None,
        "test_tokens": test_tokens,
        "unseen_token_share": unseen / test_tokens if test_tokens else None,
        "vocabulary": vocabulary,
        "smoothing": "add-one",
    }
