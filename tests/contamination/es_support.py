"""Test set-up for the Elasticsearch backend against osmem-server (in-memory, OpenSearch-compatible).

osmem speaks enough of the API for the backend's text indexes, with known differences that are bridged here, in a
test-only transport node class, never in the backend:

* elasticsearch-py 9 sends ``compatible-with=9`` media types, which osmem refuses with 406: rewritten to plain JSON;
* the client checks ``X-Elastic-Product: Elasticsearch`` on every response: added to osmem's responses;
* osmem reports OpenSearch's version (3.x), which the backend's version check refuses: reported as 9.0.0;
* Elasticsearch's point-in-time API (``POST /<index>/_pit``, ``DELETE /_pit``) is OpenSearch's
  ``/_search/point_in_time`` there: the paths and the id field are translated.

osmem has no ``dense_vector`` and no vector query: vector indexes are tested against the loopback recorder instead.
"""

from __future__ import annotations

import json
import re
from typing import Any

from elastic_transport import HttpHeaders, Urllib3HttpNode
from elastic_transport._node import NodeApiResponse

_COMPATIBLE = re.compile(r"application/vnd\.elasticsearch\+(json|x-ndjson);\s*compatible-with=\d+")
_OPEN_PIT = re.compile(r"^/([^/?]+)/_pit(\?.*)?$")


class OsmemNode(Urllib3HttpNode):
    """An HTTP node that lets elasticsearch-py talk to osmem-server (see the module docstring)."""

    def perform_request(self, method: str, target: str, body: bytes | None = None, headers: Any = None, **kwargs: Any):
        headers = HttpHeaders(headers or {})
        for name in ("accept", "content-type"):
            if name in headers:
                headers[name] = _COMPATIBLE.sub(r"application/\1", headers[name])
        opened = _OPEN_PIT.match(target)
        closing = method == "DELETE" and target.split("?")[0] == "/_pit"
        if opened:
            target = f"/{opened.group(1)}/_search/point_in_time{opened.group(2) or ''}"
        elif closing:
            pit = json.loads(body or b"{}").get("id")
            target, body = "/_search/point_in_time", json.dumps({"pit_id": [pit]}).encode()
            headers["content-type"] = "application/json"
        meta, data = super().perform_request(method, target, body=body, headers=headers, **kwargs)
        meta.headers["x-elastic-product"] = "Elasticsearch"
        if method == "GET" and target.split("?")[0] == "/" and meta.status == 200:
            decoded = json.loads(data)
            decoded["version"]["number"] = "9.0.0"
            data = json.dumps(decoded).encode()
        if opened and meta.status == 200:
            decoded = json.loads(data)
            data = json.dumps({"id": decoded["pit_id"], **decoded}).encode()
        return NodeApiResponse(meta, data)


def osmem_client(url: str) -> Any:
    """An Elasticsearch client for an osmem-server URL."""
    from elasticsearch import Elasticsearch

    return Elasticsearch(url, node_class=OsmemNode, request_timeout=30)
