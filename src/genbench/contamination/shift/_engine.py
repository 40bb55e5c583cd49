"""The counting primitives that shift statistics are computed from, and what each engine can compute.

A :class:`CorpusEngine` answers the primitives it lists in ``primitives`` (``count``, ``contains``,
``unigram_counts``, ``total_tokens``) in the corpus's own tokens; asking for another raises
:class:`UnsupportedStatisticError`. The statistics (:mod:`~genbench.contamination.shift._statistics`) are defined once
on these primitives, so every engine gives the same number. See docs/shift.md#engines-one-number-per-statistic.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from genbench.contamination._errors import ContaminationError
from genbench.contamination.shift._tokenizers import CorpusTokenizer, SplitText

PRIMITIVES = ("count", "contains", "unigram_counts", "total_tokens")
"""Every counting primitive, by name."""

UNKNOWN = -1
"""The id of a token the corpus does not hold: sequences containing it occur nowhere."""


class UnsupportedStatisticError(ContaminationError):
    """An engine was asked for a primitive (or a statistic built on one) that it cannot compute."""

    def __init__(self, engine: str, primitive: str):
        self.engine = engine
        self.primitive = primitive
        super().__init__(f"The {engine} engine cannot compute {primitive!r}; use an engine that lists it.")


@dataclass(frozen=True)
class CorpusIdentity:
    """What a shift report says about the corpus: enough to tell it from any other.

    Attributes:
        name: The corpus's name (given when its index was built or registered).
        tokens: Its size in tokens.
        documents: Its number of documents.
        tokenizer: How its text is cut into tokens (:mod:`~genbench.contamination.shift._tokenizers`).
        engine: The engine that answered.
        index_sha256: The checksum of the index's manifest, which holds the checksum of each of its files.
    """

    name: str
    tokens: int
    documents: int
    tokenizer: str
    engine: str
    index_sha256: str

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "tokens": self.tokens,
            "documents": self.documents,
            "tokenizer": self.tokenizer,
            "engine": self.engine,
            "index_sha256": self.index_sha256,
        }


class CorpusEngine(ABC):
    """One corpus index, opened and verified, answering the counting primitives in its own token ids."""

    engine_name: ClassVar[str]
    primitives: ClassVar[frozenset[str]]

    def __init__(self, identity: CorpusIdentity, tokenizer: CorpusTokenizer):
        self.identity = identity
        self.tokenizer = tokenizer

    def require(self, primitive: str) -> None:
        """Raise :class:`UnsupportedStatisticError` unless this engine computes ``primitive``."""
        if primitive not in self.primitives:
            raise UnsupportedStatisticError(self.engine_name, primitive)

    @abstractmethod
    def token_ids(self, split: SplitText) -> list[int]:
        """The corpus ids of ``split``'s tokens; :data:`UNKNOWN` for a token the corpus does not hold."""

    def count(self, ids: Sequence[int]) -> int:
        """Occurrences of ``ids`` (non-empty) in the corpus, overlapping ones included, never across documents."""
        raise UnsupportedStatisticError(self.engine_name, "count")

    def contains(self, ids: Sequence[int]) -> bool:
        """Whether ``ids`` (non-empty) occurs in the corpus."""
        self.require("count")
        return self.count(ids) > 0

    def unigram_counts(self) -> Mapping[int, int]:
        """The corpus count of each token id that occurs in it."""
        raise UnsupportedStatisticError(self.engine_name, "unigram_counts")

    def total_tokens(self) -> int:
        """The number of tokens in the corpus."""
        raise UnsupportedStatisticError(self.engine_name, "total_tokens")

    def close(self) -> None:  # noqa: B027 (most engines hold nothing to release)
        """Release the index (files, connections)."""
