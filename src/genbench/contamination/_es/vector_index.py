"""Embedding search of an Elasticsearch vector index: top-level ``knn`` on an unquantised cosine ``dense_vector``.

Queries are embedded by the embedded backend's model (:func:`~genbench.contamination._embedded.vector_index.embed`);
Elasticsearch's ``(1 + cos) / 2`` scores are turned back into the cosine, so a threshold means the same on both
backends. ``knn`` is approximate: see docs/contamination.md#how-it-works for ``num_candidates`` and truncation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from genbench.contamination._analysis import apply_threshold
from genbench.contamination._embedded.vector_index import embed_test_set
from genbench.contamination._errors import ContaminationError
from genbench.contamination._es.connection import translate_errors
from genbench.contamination._es.retrieval import QUERIES_PER_MSEARCH
from genbench.contamination._index_backend import Index, InstanceResult, Match, SearchMode, SearchResult
from genbench.contamination._testsets import TestSet

if TYPE_CHECKING:
    from genbench.contamination._es import ElasticsearchBackend

NUM_CANDIDATES = 1000
"""Candidates per shard of a ``knn`` search (Elasticsearch allows up to 10,000)."""


def cosine_from_score(score: float) -> float:
    """The cosine similarity of an Elasticsearch cosine ``_score`` (``(1 + cos) / 2``).

    >>> cosine_from_score(1.0), cosine_from_score(0.5), cosine_from_score(0.75)
    (1.0, 0.0, 0.5)
    """
    return 2.0 * score - 1.0


def knn_search(vector: np.ndarray, *, k: int, num_candidates: int, similarity: float | None = None) -> dict[str, Any]:
    """The body of one ``knn`` search (top-level ``knn``, no ``query``).

    ``similarity`` is the cosine a unit must reach (Elasticsearch compares it with the raw similarity, not the score).
    """
    knn: dict[str, Any] = {
        "field": "vector",
        "query_vector": [float(x) for x in vector],
        "k": k,
        "num_candidates": max(num_candidates, k),
    }
    if similarity is not None:
        knn["similarity"] = similarity
    return {"knn": knn, "size": k, "_source": ["unit_id", "original_id", "turn"], "track_total_hits": False}


class ElasticsearchVectorIndex(Index):
    """An Elasticsearch vector index, opened for search."""

    def __init__(self, backend: ElasticsearchBackend, name: str, manifest: dict[str, Any]):
        self.backend = backend
        self.name = name
        self.manifest = manifest

    def _knn(self, bodies: list[dict[str, Any]]) -> list[list[tuple[float, int, int, int]]]:
        """``(cosine, unit, original_id, turn)`` hits of each search, best first (lower unit id on a tie)."""
        results = []
        for start in range(0, len(bodies), QUERIES_PER_MSEARCH):
            searches: list[dict[str, Any]] = []
            for body in bodies[start : start + QUERIES_PER_MSEARCH]:
                searches.extend([{"index": self.name}, body])
            with translate_errors(f"search {self.name}", self.backend.url):
                responses = self.backend.client.msearch(searches=searches)["responses"]
            for response in responses:
                if "error" in response:
                    raise ContaminationError(
                        f"Elasticsearch at {self.backend.url} failed a knn search of {self.name}: {response['error']}"
                    )
                hits = [
                    (
                        cosine_from_score(float(hit["_score"])),
                        int(hit["_source"]["unit_id"]),
                        int(hit["_source"]["original_id"]),
                        int(hit["_source"]["turn"]),
                    )
                    for hit in response["hits"]["hits"]
                ]
                results.append(sorted(hits, key=lambda h: (-h[0], h[1])))
        return results

    def search(self, test_set: TestSet, mode: SearchMode, *, top_k: int = 1, progress: bool = False) -> SearchResult:
        queries = embed_test_set(self, test_set, mode, progress=progress)
        candidates = self.backend.num_candidates
        k = max(1, min(top_k, candidates))
        best = self._knn([knn_search(q, k=k, num_candidates=candidates) for q in queries])
        matched_units = matched_rows = None
        truncated = [False] * len(queries)
        if mode.threshold is not None:
            limit = min(self.backend.search_size or candidates, candidates)
            above = self._knn(
                [knn_search(q, k=limit, num_candidates=candidates, similarity=mode.threshold) for q in queries]
            )
            units: dict[int, int] = {}
            for number, hits in enumerate(above):
                truncated[number] = len(hits) >= limit
                units.update((unit, row) for cosine, unit, row, _ in hits if cosine > mode.threshold)
            matched_units = np.array(sorted(units), dtype=np.int64)
            matched_rows = np.unique(np.array(list(units.values()), dtype=np.int64))
        instances = []
        for number, hits in enumerate(best):
            matches = [Match(unit, self.source, row, turn, cosine) for cosine, unit, row, turn in hits[:top_k]]
            raw = matches[0].score if matches else 0.0
            instances.append(
                InstanceResult(
                    number,
                    test_set.query(number),
                    apply_threshold(raw, mode.threshold),
                    raw,
                    matches,
                    truncated[number],
                )
            )
        return SearchResult(self.name, self.source, test_set.name, mode, instances, matched_units, matched_rows)
