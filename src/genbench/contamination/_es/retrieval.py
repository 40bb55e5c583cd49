"""Every hit of many queries: ``msearch`` batches over a point-in-time, paged by ``search_after`` on ``unit_id``.

Elasticsearch refuses ``from + size`` past 10,000, so each query is paged inside one point-in-time (a consistent view
of the index) and every matching unit is retrieved, unless the user sets a cap (``search_size``); a query whose hits
reach the cap is reported as truncated. See docs/contamination.md#no-result-cap-and-truncated.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from genbench._core.urls import redact_url
from genbench.contamination._errors import ContaminationError
from genbench.contamination._es.connection import translate_errors
from genbench.contamination._es.mappings import unit_id_key

PAGE_SIZE = 10_000
"""Hits per page (Elasticsearch's default ``index.max_result_window``)."""
QUERIES_PER_MSEARCH = 100
KEEP_ALIVE = "5m"


@dataclass
class QueryHits:
    """The units a query matched (ascending ids) and whether a cap cut them short."""

    units: np.ndarray
    truncated: bool = False


class Retriever:
    """Runs queries against one index inside a point-in-time (``with Retriever(...) as r:``).

    Args:
        client: The Elasticsearch client.
        index: The index name.
        url: For messages.
        search_size: At most this many hits per query (``None``: all).
        page_size: Hits per request.
        batch: Searches per ``msearch``.
    """

    def __init__(
        self,
        client: Any,
        index: str,
        *,
        url: str,
        search_size: int | None = None,
        page_size: int = PAGE_SIZE,
        batch: int = QUERIES_PER_MSEARCH,
    ):
        self.client = client
        self.index = index
        self.url = redact_url(url)
        self.search_size = search_size
        self.page_size = page_size
        self.batch = batch
        self.pit_id: str | None = None

    def __enter__(self) -> Retriever:
        with translate_errors(f"open a point in time on {self.index}", self.url):
            self.pit_id = self.client.open_point_in_time(index=self.index, keep_alive=KEEP_ALIVE)["id"]
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pit_id is not None:
            # Closing is best effort: the server expires a point in time after KEEP_ALIVE anyway.
            with contextlib.suppress(Exception):
                self.client.close_point_in_time(id=self.pit_id)
            self.pit_id = None

    def all_units(self, queries: Sequence[dict[str, Any]], progress: Any = None) -> list[QueryHits]:
        """The matching units of each query (every one, or up to ``search_size``)."""
        found: list[list[int]] = [[] for _ in queries]
        truncated = [False] * len(queries)
        pending: list[tuple[int, list[Any] | None]] = [(number, None) for number in range(len(queries))]
        while pending:
            batch, pending = pending[: self.batch], pending[self.batch :]
            searches: list[dict[str, Any]] = []
            limits = []
            for number, after in batch:
                limit = self.page_size
                if self.search_size is not None:
                    limit = min(limit, self.search_size - len(found[number]))
                limits.append(limit)
                body: dict[str, Any] = {
                    "query": queries[number],
                    "size": limit,
                    "sort": [{"unit_id": "asc"}],
                    "_source": False,
                    "track_total_hits": False,
                    "pit": {"id": self.pit_id, "keep_alive": KEEP_ALIVE},
                }
                if after is not None:
                    body["search_after"] = after
                searches.extend([{}, body])
            with translate_errors(f"search {self.index}", self.url):
                responses = self.client.msearch(searches=searches)["responses"]
            for (number, _), limit, response in zip(batch, limits, responses, strict=True):
                if "error" in response:
                    error = response["error"]
                    reason = error.get("reason", error) if isinstance(error, dict) else error
                    raise ContaminationError(f"Elasticsearch at {self.url} failed a search of {self.index}: {reason}")
                if response.get("pit_id"):
                    self.pit_id = response["pit_id"]
                hits = response["hits"]["hits"]
                found[number].extend(int(hit["sort"][0]) for hit in hits)
                if len(hits) == limit and hits:
                    if self.search_size is not None and len(found[number]) >= self.search_size:
                        truncated[number] = True
                    else:
                        pending.append((number, hits[-1]["sort"]))
            if progress is not None:
                progress.update(len(batch))
        return [QueryHits(np.asarray(units, dtype=np.int64), cut) for units, cut in zip(found, truncated, strict=True)]


def lookup_units(
    client: Any, index: str, units: np.ndarray, fields: Sequence[str], *, url: str
) -> dict[int, dict[str, Any]]:
    """The stored ``fields`` of the given units, by unit id (``terms`` queries on ``unit_id``, 10,000 at a time)."""
    result: dict[int, dict[str, Any]] = {}
    wanted = np.unique(np.asarray(units, dtype=np.int64)).tolist()
    for start in range(0, len(wanted), PAGE_SIZE):
        keys = [unit_id_key(unit) for unit in wanted[start : start + PAGE_SIZE]]
        with translate_errors(f"read units of {index}", url):
            response = client.search(
                index=index,
                query={"terms": {"unit_id": keys}},
                size=len(keys),
                source=["unit_id", *fields],
                track_total_hits=False,
            )
        for hit in response["hits"]["hits"]:
            source = hit["_source"]
            result[int(source["unit_id"])] = source
    missing = [unit for unit in wanted if unit not in result]
    if missing:
        raise ContaminationError(
            f"The Elasticsearch index {index} lacks units {missing[:5]} it just matched: it changed during the "
            "search; search again."
        )
    return result
