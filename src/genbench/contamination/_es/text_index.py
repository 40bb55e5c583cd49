"""N-gram and exact search of an Elasticsearch text index, scored by the shared rules.

N-gram mode sends one ``match_phrase`` per distinct n-gram of the test instances, retrieves every unit containing it
(:mod:`.retrieval`) and scores the matches with the embedded backend's function
(:func:`~genbench.contamination._match_scores.ngram_pair_scores`); exact mode filters with one ``match_phrase`` per
field, as the seed's scripts do. See docs/contamination.md#how-it-works.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench._core.progress import progress_bar
from genbench.contamination._analysis import tokenize
from genbench.contamination._es.retrieval import Retriever, lookup_units
from genbench.contamination._index_backend import (
    Index,
    InstanceResult,
    SearchMode,
    SearchResult,
    text_instance_results,
    unit_preview,
)
from genbench.contamination._match_scores import PairScores, ngram_pair_scores, top_per_instance
from genbench.contamination._testsets import TestSet

if TYPE_CHECKING:
    from genbench.contamination._es import ElasticsearchBackend

INSTANCES_PER_BATCH = 1024


def phrase(tokens: Sequence[str]) -> dict[str, Any]:
    """The ``match_phrase`` query of a token sequence (the tokens joined by spaces analyse back to themselves).

    >>> phrase(["new", "york"])
    {'match_phrase': {'text': {'query': 'new york', 'slop': 0}}}
    """
    return {"match_phrase": {"text": {"query": " ".join(tokens), "slop": 0}}}


class ElasticsearchTextIndex(Index):
    """An Elasticsearch text index, opened for search."""

    def __init__(self, backend: ElasticsearchBackend, name: str, manifest: dict[str, Any]):
        self.backend = backend
        self.name = name
        self.manifest = manifest

    def search(self, test_set: TestSet, mode: SearchMode, *, top_k: int = 1, progress: bool = False) -> SearchResult:
        if mode.kind not in ("exact", "ngram"):
            raise ValueError(f"A text index cannot do an {mode.describe()}.")
        matched: set[int] | None = set() if mode.can_decontaminate else None
        instances: list[InstanceResult] = []
        bar = progress_bar(desc=f"{test_set.name} in {self.name}", unit="query", enabled=progress)
        try:
            with self.backend.retriever(self.name) as retriever:
                for first in range(0, len(test_set), INSTANCES_PER_BATCH):
                    rows = test_set.rows[first : first + INSTANCES_PER_BATCH]
                    fields = [tokenize(text) for row in rows for text in row]
                    best, truncated = self._search_batch(
                        retriever, fields, len(test_set.fields), mode, top_k, matched, bar
                    )
                    instances.extend(self._results(test_set, first, len(rows), fields, best, truncated, mode))
        finally:
            bar.close()
        units = rows_ = None
        if matched is not None:
            units = np.array(sorted(matched), dtype=np.int64)
            found = lookup_units(self.backend.client, self.name, units, ["original_id"], url=self.backend.url)
            rows_ = np.unique(np.array([int(found[u]["original_id"]) for u in units.tolist()], dtype=np.int64))
        return SearchResult(self.name, self.source, test_set.name, mode, instances, units, rows_)

    def _search_batch(
        self,
        retriever: Retriever,
        fields: list[list[str]],
        n_fields: int,
        mode: SearchMode,
        top_k: int,
        matched: set[int] | None,
        bar: Any,
    ) -> tuple[PairScores, np.ndarray]:
        """The top pairs of each instance of a batch, and which instances hit the result cap."""
        lengths = np.array([len(tokens) for tokens in fields], dtype=np.int64)
        instances = len(fields) // n_fields
        truncated = np.zeros(instances, dtype=bool)
        if mode.kind == "ngram":
            assert mode.ngram_size is not None
            n = mode.ngram_size
            where: dict[tuple[str, ...], list[tuple[int, int]]] = {}
            for query_field, tokens in enumerate(fields):
                for start in range(len(tokens) - n + 1):
                    where.setdefault(tuple(tokens[start : start + n]), []).append((query_field, start))
            grams = list(where)
            if bar is not None:
                bar.total = (bar.total or 0) + len(grams)
            hits = retriever.all_units([phrase(gram) for gram in grams], bar)
            qf_parts, unit_parts, start_parts = [], [], []
            for gram, found in zip(grams, hits, strict=True):
                positions = np.array(where[gram], dtype=np.int64)
                if found.truncated:
                    truncated[np.unique(positions[:, 0] // n_fields)] = True
                if not len(found.units):
                    continue
                qf_parts.append(np.repeat(positions[:, 0], len(found.units)))
                start_parts.append(np.repeat(positions[:, 1], len(found.units)))
                unit_parts.append(np.tile(found.units, len(positions)))
            if qf_parts:
                pairs = ngram_pair_scores(
                    np.concatenate(qf_parts),
                    np.concatenate(unit_parts),
                    np.concatenate(start_parts),
                    n=n,
                    field_lengths=lengths,
                    n_fields=n_fields,
                )
            else:
                pairs = PairScores.empty(n_fields)
        else:
            searched = [i for i in range(instances) if all(lengths[i * n_fields : (i + 1) * n_fields])]
            queries = [
                {"bool": {"filter": [phrase(fields[i * n_fields + f]) for f in range(n_fields)]}} for i in searched
            ]
            if bar is not None:
                bar.total = (bar.total or 0) + len(queries)
            hits = retriever.all_units(queries, bar)
            instance_parts, unit_parts = [], []
            for number, found in zip(searched, hits, strict=True):
                truncated[number] = found.truncated
                instance_parts.append(np.full(len(found.units), number, dtype=np.int64))
                unit_parts.append(found.units)
            instance = np.concatenate(instance_parts) if instance_parts else np.zeros(0, dtype=np.int64)
            unit = np.concatenate(unit_parts) if unit_parts else np.zeros(0, dtype=np.int64)
            grid = lengths.reshape(-1, n_fields)[instance] if len(instance) else np.zeros((0, n_fields), np.int64)
            pairs = PairScores(instance, unit, np.ones(len(unit)), grid, np.zeros_like(grid), grid.copy())
        if matched is not None and len(pairs):
            hit = pairs.score > mode.threshold if mode.threshold is not None else pairs.score > 0
            matched.update(pairs.unit[hit].tolist())
        return top_per_instance(pairs, top_k), truncated

    def _results(
        self,
        test_set: TestSet,
        first: int,
        count: int,
        fields: list[list[str]],
        best: PairScores,
        truncated: np.ndarray,
        mode: SearchMode,
    ) -> list[InstanceResult]:
        by_instance: dict[int, list[int]] = {}
        for row, instance in enumerate(best.instance.tolist()):
            by_instance.setdefault(instance, []).append(row)
        top_units = best.unit[[rows[0] for rows in by_instance.values()]] if by_instance else best.unit[:0]
        stored = lookup_units(self.backend.client, self.name, best.unit, ["original_id", "turn"], url=self.backend.url)
        texts = lookup_units(self.backend.client, self.name, top_units, ["text"], url=self.backend.url)
        return text_instance_results(
            test_set,
            first,
            count,
            fields,
            best,
            mode,
            self.source,
            origin=lambda row, unit: (int(stored[unit]["original_id"]), int(stored[unit]["turn"])),
            preview=lambda row, unit, longest: unit_preview(tokenize(texts[unit]["text"]), longest),
            truncated=truncated,
        )
