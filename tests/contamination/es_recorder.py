"""A loopback Elasticsearch stand-in that records every request and answers just enough of the API.

It listens on 127.0.0.1 only, on a free port, with a socket timeout, and is shut down by its fixture: the tests check
the exact request bodies the backend sends (settings and mappings, bulk lines, point-in-time, msearch, knn) and how
it reads answers (paging, ``(1 + cos) / 2`` scores, refused documents, error statuses).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tests.loopback import LoopbackServer, QuietHandler


@dataclass
class Recorder:
    """What the stand-in knows and what it was sent."""

    version: str = "9.1.0"
    status: int | None = None  # answer every request with this status (e.g. 401)
    product: str = "Elasticsearch"
    mappings: dict[str, dict[str, Any]] = field(default_factory=dict)
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)  # _id -> source
    fail_ids: set[str] = field(default_factory=set)
    busy_once_ids: set[str] = field(default_factory=set)  # answered 429 the first time, accepted when retried
    knn_hits: list[tuple[float, int]] = field(default_factory=list)  # (_score, unit) answered to every knn search
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    url: str = ""

    def bodies(self, method: str, path_end: str) -> list[Any]:
        return [body for m, path, body in self.requests if m == method and path.endswith(path_end)]

    def _units(self) -> list[dict[str, Any]]:
        return sorted(self.documents.values(), key=lambda source: source["unit_id"])


def _parse(raw: bytes) -> Any:
    if not raw:
        return None
    text = raw.decode("utf-8")
    try:
        return json.loads(text)
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def _handler(recorder: Recorder) -> type[QuietHandler]:
    class Handler(QuietHandler):
        timeout = 10

        def _answer(self, status: int, body: Any) -> None:
            self.send_json(status, body, {"x-elastic-product": recorder.product})

        def _handle(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = _parse(self.rfile.read(length))
            path = urlsplit(self.path).path
            recorder.requests.append((self.command, path, body))
            if recorder.status is not None:
                self._answer(recorder.status, {"error": {"type": "test_error", "reason": "as told"}, "status": 0})
                return
            parts = [p for p in path.split("/") if p]
            method = self.command
            if not parts:
                self._answer(200, {"version": {"number": recorder.version}, "tagline": "You Know, for Search"})
            elif parts[-1] == "_mapping" and method == "GET":
                if parts[0] == "*":
                    self._answer(200, {n: {"mappings": m} for n, m in recorder.mappings.items()})
                elif parts[0] in recorder.mappings:
                    self._answer(200, {parts[0]: {"mappings": recorder.mappings[parts[0]]}})
                else:
                    self._answer(404, {"error": {"type": "index_not_found_exception", "reason": "no such index"}})
            elif parts[-1] == "_mapping" and method == "PUT":
                recorder.mappings[parts[0]]["_meta"] = body["_meta"]
                self._answer(200, {"acknowledged": True})
            elif len(parts) == 1 and method == "PUT" and parts[0] != "_bulk":
                recorder.mappings[parts[0]] = body["mappings"]
                self._answer(200, {"acknowledged": True, "index": parts[0]})
            elif len(parts) == 1 and method == "DELETE" and parts[0] != "_pit":
                found = recorder.mappings.pop(parts[0], None)
                self._answer(200 if found else 404, {"acknowledged": True})
            elif parts[-1] == "_bulk":
                items = []
                for action, source in zip(body[0::2], body[1::2], strict=True):
                    meta = action["index"]
                    if meta["_id"] in recorder.busy_once_ids:
                        recorder.busy_once_ids.discard(meta["_id"])
                        error = {"type": "es_rejected_execution_exception", "reason": "busy"}
                        items.append({"index": {"_id": meta["_id"], "status": 429, "error": error}})
                    elif meta["_id"] in recorder.fail_ids:
                        error = {"type": "document_parsing_exception", "reason": "refused by the test"}
                        items.append({"index": {"_id": meta["_id"], "status": 400, "error": error}})
                    else:
                        recorder.documents[meta["_id"]] = source
                        items.append({"index": {"_id": meta["_id"], "status": 201}})
                errors = any("error" in item["index"] for item in items)
                self._answer(200, {"took": 1, "errors": errors, "items": items})
            elif parts[-1] == "_refresh":
                self._answer(200, {"_shards": {"total": 1, "successful": 1, "failed": 0}})
            elif parts[-1] == "_pit":
                self._answer(200, {"id": "pit-1"} if method == "POST" else {"succeeded": True, "num_freed": 1})
            elif parts[-1] == "_msearch":
                self._answer(200, {"responses": [self._search(b) for b in body[1::2]]})
            elif parts[-1] == "_search":
                keys = set(body["query"]["terms"]["unit_id"])
                hits = [{"_source": s} for s in recorder._units() if s["unit_id"] in keys]
                self._answer(200, {"hits": {"hits": hits}})
            else:
                self._answer(400, {"error": {"type": "unexpected_request", "reason": f"{method} {path}"}})

        def _search(self, body: dict[str, Any]) -> dict[str, Any]:
            if "knn" in body:
                hits = [
                    {"_score": score, "_source": {"unit_id": f"{unit:012d}", "original_id": str(unit), "turn": "-1"}}
                    for score, unit in recorder.knn_hits[: body["knn"]["k"]]
                ]
                return {"hits": {"hits": hits}}
            # Every document matches every text query: enough to check the paging.
            after = (body.get("search_after") or [""])[0]
            units = [s["unit_id"] for s in recorder._units() if s["unit_id"] > after][: body["size"]]
            return {"pit_id": "pit-1", "hits": {"hits": [{"sort": [unit, 7]} for unit in units]}}

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

    return Handler


class RecorderServer:
    """``with RecorderServer() as recorder:`` serves a :class:`Recorder` at ``recorder.url``."""

    def __init__(self) -> None:
        self.recorder = Recorder()
        self.loopback = LoopbackServer(_handler(self.recorder))
        self.recorder.url = self.loopback.url

    def __enter__(self) -> Recorder:
        self.loopback.start()
        return self.recorder

    def __exit__(self, *exc: object) -> None:
        self.loopback.stop()
