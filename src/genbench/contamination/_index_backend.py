"""The index backend interface, search settings and search results, shared by every backend.

A backend builds indexes of training datasets and opens them for search: ``embedded`` (files, the default) or
``elasticsearch`` (a server), chosen by name (:mod:`~genbench.contamination._backend_registry`). Every backend scores
with :mod:`~genbench.contamination._match_scores`, so the results are the same. See docs/contamination.md.
"""

from __future__ import annotations

import math
import numbers
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench.contamination._analysis import apply_threshold, test_set_score, tokenize
from genbench.contamination._errors import ContaminationError

if TYPE_CHECKING:
    import numpy as np

    from genbench.contamination._match_scores import PairScores
    from genbench.contamination._testsets import TestSet
    from genbench.contamination._training_data import LoadedDataset, UnitSpec

HOME_ENV = "GENBENCH_HOME"
INDEX_TYPES = ("text", "vector")


def default_index_dir() -> Path:
    """Where indexes live by default: ``$GENBENCH_HOME/contamination``, else the user data directory's.

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"GENBENCH_HOME": "/data/genbench"}):
    ...     default_index_dir()
    PosixPath('/data/genbench/contamination')
    """
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home).expanduser() / "contamination"
    import platformdirs

    return Path(platformdirs.user_data_dir("genbench")) / "contamination"


def check_threshold(value: object) -> float:
    """A match threshold as a float, checked: a finite number in ``[0, 1]`` (scores are fractions or cosines).

    Raises:
        ContaminationError: ``value`` is not a number, is NaN or infinite, or lies outside ``[0, 1]``.

    >>> check_threshold(0.5)
    0.5
    >>> check_threshold(float("nan"))
    Traceback (most recent call last):
    ...
    genbench.contamination._errors.ContaminationError: --match-threshold must be a number in [0, 1], got nan.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ContaminationError(f"--match-threshold must be a number in [0, 1], got {value!r}.")
    threshold = float(value)
    if not (math.isfinite(threshold) and 0.0 <= threshold <= 1.0):
        raise ContaminationError(f"--match-threshold must be a number in [0, 1], got {threshold!r}.")
    return threshold


@dataclass(frozen=True)
class SearchMode:
    """How test instances are matched.

    Attributes:
        kind: ``exact``, ``ngram`` or ``vector``.
        ngram_size: The n of an n-gram match.
        threshold: With a threshold, instance scores are 1 above it (strictly) and 0 otherwise.
        model: The embedding model of a vector match (``None``: the index's).
    """

    kind: str
    ngram_size: int | None = None
    threshold: float | None = None
    model: str | None = None

    @classmethod
    def create(
        cls,
        *,
        index_type: str = "text",
        ngram_size: int | None = None,
        match_threshold: float | None = None,
        model: str | None = None,
    ) -> SearchMode:
        """The mode for these options, checked.

        >>> mode = SearchMode.create(ngram_size=8, match_threshold=0.5)
        >>> mode.kind, mode.describe()
        ('ngram', '8-gram match, threshold 0.5')

        Raises:
            ContaminationError: an unknown index type, a threshold that is not a number in ``[0, 1]`` (NaN, inf),
                an n-gram size below 1, or an n-gram size with a vector index.
        """
        if index_type not in INDEX_TYPES:
            raise ContaminationError(f"Unknown index type {index_type!r}: use one of {', '.join(INDEX_TYPES)}.")
        if match_threshold is not None:
            match_threshold = check_threshold(match_threshold)
        if index_type == "vector":
            if ngram_size is not None:
                raise ContaminationError("--ngram-size applies to text indexes, not to vector (embedding) indexes.")
            return cls("vector", None, match_threshold, model)
        if ngram_size is not None and ngram_size < 1:
            raise ContaminationError(f"--ngram-size must be at least 1, got {ngram_size}.")
        return cls("exact" if ngram_size is None else "ngram", ngram_size, match_threshold, None)

    @property
    def index_type(self) -> str:
        return "vector" if self.kind == "vector" else "text"

    @property
    def can_decontaminate(self) -> bool:
        """Exact matches are yes/no; n-gram and embedding scores need a threshold to say what to remove."""
        return self.kind == "exact" or self.threshold is not None

    def describe(self) -> str:
        text = {"exact": "exact match", "ngram": f"{self.ngram_size}-gram match", "vector": "embedding match"}[
            self.kind
        ]
        return text + (f", threshold {self.threshold:g}" if self.threshold is not None else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "ngram_size": self.ngram_size,
            "match_threshold": self.threshold,
            "model": self.model,
        }


@dataclass
class Match:
    """One training unit matching a test instance.

    Attributes:
        unit_id: The unit's number in its index.
        source: The training dataset's name.
        original_id: The unit's row in the training dataset.
        turn: The message's position in the row's messages (``-1`` for a text field).
        score: The instance's score against this unit.
        fields: Per test field (text matches): ``field``, ``matched`` tokens, ``tokens`` of the field, the longest
            matched ``span`` ``[start, end)`` in field tokens and its ``span_text``.
        unit_text: The unit's tokens (lower-cased, space-separated, cut to a window around the match).
    """

    unit_id: int
    source: str
    original_id: int
    turn: int
    score: float
    fields: list[dict[str, Any]] = field(default_factory=list)
    unit_text: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "unit_id": self.unit_id,
            "source": self.source,
            "original_id": self.original_id,
            "turn": self.turn,
            "score": self.score,
        }
        if self.fields:
            data["fields"] = self.fields
        if self.unit_text is not None:
            data["unit_text"] = self.unit_text
        return data


@dataclass
class InstanceResult:
    """A test instance and its matches (best first).

    Attributes:
        number: The instance's position in its test set.
        query: Its fields.
        score: The reported score (0/1 with a threshold).
        raw_score: The largest match's score before the threshold.
        matches: The best matching units, best first (the first is the largest match).
        truncated: A query of this instance reached the backend's result cap (``--search-size``): units past the
            cap were not seen, so the score may be too low. Never set without a cap.
        unmatchable: No training data could match this instance: with an n-gram match every field has fewer
            tokens than the n-gram size, with an exact match some field has no token. Its score is 0 by
            construction, not because the training data is clean.
    """

    number: int
    query: dict[str, str]
    score: float
    raw_score: float
    matches: list[Match] = field(default_factory=list)
    truncated: bool = False
    unmatchable: bool = False

    def to_json(self) -> dict[str, Any]:
        data = {
            "instance": self.number,
            "query": self.query,
            "score": self.score,
            "raw_score": self.raw_score,
            "matches": [m.to_json() for m in self.matches],
        }
        if self.truncated:
            data["truncated"] = True
        if self.unmatchable:
            data["unmatchable"] = True
        return data


@dataclass
class SearchResult:
    """The result of one test set against one index.

    Attributes:
        index: The index's name.
        source: The training dataset's name.
        test_set: The test set's name.
        mode: How it was matched.
        instances: One result per test instance, in order.
        matched_units: Sorted ids of the units that match some instance (above the threshold, if any); ``None``
            when the mode cannot say (a score without a threshold).
        matched_rows: Sorted training rows (``original_id``) of those units; ``None`` likewise.
    """

    index: str
    source: str
    test_set: str
    mode: SearchMode
    instances: list[InstanceResult]
    matched_units: np.ndarray | None = None
    matched_rows: np.ndarray | None = None

    @property
    def score(self) -> float:
        """The test set's contamination score: the mean instance score."""
        return test_set_score(result.score for result in self.instances)

    @property
    def truncated(self) -> int:
        """Instances whose hits reached the result cap (0 without a cap)."""
        return sum(result.truncated for result in self.instances)

    @property
    def unmatchable(self) -> int:
        """Instances that no training data could match (too few tokens for the mode): scored 0 by construction."""
        return sum(result.unmatchable for result in self.instances)


def cannot_match(field_lengths: Sequence[int], mode: SearchMode) -> bool:
    """Whether an instance whose fields have these token counts scores 0 whatever the training data.

    >>> cannot_match([2], SearchMode.create(ngram_size=3)), cannot_match([2, 3], SearchMode.create(ngram_size=3))
    (True, False)
    >>> cannot_match([4, 0], SearchMode.create()), cannot_match([1], SearchMode.create())
    (True, False)
    """
    if mode.ngram_size is not None:
        return all(length < mode.ngram_size for length in field_lengths)
    return any(length == 0 for length in field_lengths)


def why_unmatchable(mode: SearchMode) -> str:
    """What :func:`cannot_match` finds in this mode, as the predicate of a message about such instances.

    >>> why_unmatchable(SearchMode.create(ngram_size=3)), why_unmatchable(SearchMode.create())
    ('have fewer than 3 tokens in every field', 'have a field without tokens')
    """
    if mode.ngram_size is not None:
        return f"have fewer than {mode.ngram_size} tokens in every field"
    return "have a field without tokens"


def unmatchable_example(instances: Sequence[InstanceResult], width: int = 40) -> str | None:
    """The first unmatchable instance's longest field and its number of tokens, as a message quotes it; None when
    no instance is unmatchable.

    >>> unmatchable_example([InstanceResult(0, {"q": "612 + 6"}, 0.0, 0.0, unmatchable=True)])
    "'612 + 6' is 2 tokens"
    """
    for instance in instances:
        if instance.unmatchable:
            text = max(instance.query.values(), key=lambda value: len(tokenize(value)), default="")
            count = len(tokenize(text))
            shown = text if len(text) <= width else text[: width - 3] + "..."
            return f"{shown!r} is {count} token{'' if count == 1 else 's'}"
    return None


PREVIEW_WIDTH = 64
"""Tokens of a unit shown around its largest match (``Match.unit_text``)."""


def unit_preview(unit: Sequence[str], span: Sequence[str], width: int = PREVIEW_WIDTH) -> str:
    """The unit's tokens around the first occurrence of ``span`` (all of them when short), as reports show them.

    >>> unit_preview(["a", "b"], ["b"]), unit_preview(list("abcdefgh"), ["f"], width=4)
    ('a b', '… e f g h')
    """
    begin = 0
    if len(unit) > width and span:
        size = len(span)
        at = next((i for i in range(len(unit) - size + 1) if list(unit[i : i + size]) == list(span)), 0)
        begin = max(0, min(at - width // 4, len(unit) - width))
    text = " ".join(unit[begin : begin + width])
    return ("… " if begin else "") + text + (" …" if begin + width < len(unit) else "")


def text_instance_results(
    test_set: TestSet,
    first: int,
    count: int,
    fields: Sequence[Sequence[str]],
    best: PairScores,
    mode: SearchMode,
    source: str,
    origin: Callable[[int, int], tuple[int, int]],
    preview: Callable[[int, int, list[str]], str | None],
    truncated: np.ndarray | None = None,
) -> list[InstanceResult]:
    """The results of instances ``first .. first + count`` of a test set from their kept pairs (text matches).

    Args:
        test_set: The test set.
        first: Number of the first instance; ``best.instance`` counts from it.
        count: Instances.
        fields: Tokens of each query field (``instance * n_fields + field``, counted from ``first``).
        best: The kept pairs, grouped by instance, best first.
        mode: The search mode (for the threshold).
        source: The training dataset's name.
        origin: ``(pair row, unit) -> (original_id, turn)``.
        preview: ``(pair row, unit, longest matched span) -> unit_text`` for an instance's first match.
        truncated: Per instance, whether a result cap cut its hits.
    """
    n_fields = len(test_set.fields)
    by_instance: dict[int, list[int]] = {}
    for row, instance in enumerate(best.instance.tolist()):
        by_instance.setdefault(instance, []).append(row)
    results = []
    for local in range(count):
        matches = []
        for rank, row in enumerate(by_instance.get(local, [])):
            unit = int(best.unit[row])
            described = []
            longest: list[str] = []
            for f, name in enumerate(test_set.fields):
                tokens = list(fields[local * n_fields + f])
                start, end = int(best.span_start[row, f]), int(best.span_end[row, f])
                described.append(
                    {
                        "field": name,
                        "matched": int(best.matched[row, f]),
                        "tokens": len(tokens),
                        "span": [start, end],
                        "span_text": " ".join(tokens[start:end]),
                    }
                )
                if end - start > len(longest):
                    longest = tokens[start:end]
            original_id, turn = origin(row, unit)
            shown = preview(row, unit, longest) if rank == 0 else None
            matches.append(Match(unit, source, original_id, turn, float(best.score[row]), described, shown))
        raw = matches[0].score if matches else 0.0
        lengths = [len(fields[local * n_fields + f]) for f in range(n_fields)]
        results.append(
            InstanceResult(
                first + local,
                test_set.query(first + local),
                apply_threshold(raw, mode.threshold),
                raw,
                matches,
                bool(truncated[local]) if truncated is not None else False,
                cannot_match(lengths, mode),
            )
        )
    return results


def matched_from_mask(
    mask: np.ndarray | None, original_ids: np.ndarray
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(matched_units, matched_rows)`` of a :class:`SearchResult` from a per-unit mask (``None`` stays ``None``)."""
    if mask is None:
        return None, None
    import numpy as np

    units = np.flatnonzero(mask)
    return units, np.unique(np.asarray(original_ids)[units])


class Index(ABC):
    """An opened index of one training dataset."""

    name: str
    manifest: dict[str, Any]

    @property
    def source(self) -> str:
        """The training dataset's name."""
        return str(self.manifest["source"]["name"])

    @property
    def index_type(self) -> str:
        return str(self.manifest["index_type"])

    @abstractmethod
    def search(self, test_set: TestSet, mode: SearchMode, *, top_k: int = 1, progress: bool = False) -> SearchResult:
        """Score every instance of ``test_set`` against every unit of the index (complete, no cap on hits).

        ``matched_units`` is filled when ``mode.can_decontaminate``.
        """

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release files or connections (nothing by default)."""


class IndexBackend(ABC):
    """Builds, finds and opens indexes.

    Attributes:
        name: The backend's name in :mod:`~genbench.contamination._backend_registry` (``--backend``).
    """

    name: str = ""

    @classmethod
    def from_options(cls, **options: Any) -> IndexBackend:
        """The backend made from keyword options (what ``--backend`` and the Python API pass).

        Raises:
            ContaminationError: an option this backend does not take.
        """
        import inspect

        accepted = [
            name
            for name, parameter in inspect.signature(cls.__init__).parameters.items()
            if name != "self" and parameter.kind in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD)
        ]
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise ContaminationError(
                f"The {cls.name or cls.__name__} backend has no option {', '.join(unknown)}; its options are "
                f"{', '.join(accepted) or 'none'}."
            )
        return cls(**options)

    @abstractmethod
    def build(
        self,
        dataset: LoadedDataset,
        spec: UnitSpec,
        *,
        index_type: str = "text",
        model: str | None = None,
        max_batch_tokens: int = 65_536,
        rebuild: bool = False,
        progress: bool = False,
    ) -> dict[str, Any]:
        """Index ``dataset`` (or keep an up-to-date index of it); returns the index's manifest."""

    @abstractmethod
    def open(self, dataset: str, *, index_type: str = "text", model: str | None = None) -> Index:
        """Open the index of a dataset (by the name it was indexed under, or by index name).

        Raises:
            ContaminationError: no such index (the message lists those that exist).
        """

    @abstractmethod
    def list_indexes(self) -> list[dict[str, Any]]:
        """The manifests of the existing indexes."""

    def damaged_indexes(self) -> list[dict[str, str]]:
        """The indexes that cannot be used as they are: ``name``, ``index_type``, ``reason`` and ``rebuild`` (the
        sentence with the command that builds each again). None by default (a backend whose store checks itself)."""
        return []
