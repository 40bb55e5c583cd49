"""Elasticsearch index names, settings and mappings: the analyzer of :mod:`~genbench.contamination._analysis`.

The ``text`` field is analysed exactly like :func:`~genbench.contamination._analysis.tokenize`, and an index name
carries a digest of the exact dataset name. See docs/contamination.md#how-it-works.
"""

from __future__ import annotations

import hashlib
from typing import Any

from genbench.contamination._errors import ContaminationError
from genbench.contamination._training_data import index_name as local_name
from genbench.contamination._training_data import is_local

ANALYZER = "genbench_words"
TOKEN_PATTERN = r"[\p{L}\p{N}_]+"
CHAR_MAPPINGS = ["\u0130 => i\u0307", "\u03c2 => \u03c3"]
ANALYSIS: dict[str, Any] = {
    "char_filter": {"genbench_case": {"type": "mapping", "mappings": CHAR_MAPPINGS}},
    "tokenizer": {"genbench_tokens": {"type": "pattern", "pattern": TOKEN_PATTERN, "group": 0}},
    "analyzer": {
        ANALYZER: {
            "type": "custom",
            "char_filter": ["genbench_case"],
            "tokenizer": "genbench_tokens",
            "filter": ["lowercase"],
        }
    },
}
"""The ``analysis`` settings of a text index."""

UNIT_ID_WIDTH = 12
"""Unit ids are zero-padded keywords, so their keyword order is their numeric order."""

_INVALID = set('\\/*?"<>| ,#:')
INDEX_SUFFIXES = {"text": "_text", "vector": "_vector"}


def index_name(dataset: str, index_type: str) -> str:
    """The Elasticsearch index of a dataset: its name as in the seed's scripts, then a digest of the exact name.

    >>> index_name("allenai/tulu-2-sft-mixture", "text"), index_name("Org/WildChat-1M", "vector")
    ('allenai_tulu-2-sft-mixture-959ca313_text', 'org_wildchat-1m-74853574_vector')
    >>> index_name("probe/x_y", "text") != index_name("probe_x/y", "text")
    True
    """
    if index_type not in INDEX_SUFFIXES:
        raise ContaminationError(f"Unknown index type {index_type!r}: use one of {', '.join(INDEX_SUFFIXES)}.")
    from pathlib import Path

    base = local_name(dataset) if is_local(Path(dataset).expanduser()) else dataset.replace("/", "_")
    base = "".join("_" if c in _INVALID or not c.isprintable() else c for c in base.lower()).lstrip("_-+.")
    base = (base or "dataset").encode("utf-8")[:200].decode("utf-8", "ignore")  # Elasticsearch's limit: 255 bytes
    digest = hashlib.sha256(dataset.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{base}-{digest}{INDEX_SUFFIXES[index_type]}"


def is_index_name(name: str) -> bool:
    """Whether ``name`` can be an Elasticsearch index name (so it may be looked up as one, never as a pattern).

    >>> is_index_name("allenai_tulu-2-sft-mixture_text"), is_index_name("allenai/tulu"), is_index_name("*")
    (True, False, False)
    """
    return (
        0 < len(name.encode("utf-8")) <= 255
        and name == name.lower()
        and name not in (".", "..")
        and not name.startswith(("_", "-", "+"))
        and not any(c in _INVALID or not c.isprintable() for c in name)
    )


def unit_id_key(unit: int) -> str:
    """The ``unit_id`` keyword of a unit number.

    >>> unit_id_key(42)
    '000000000042'
    """
    return f"{unit:0{UNIT_ID_WIDTH}d}"


def document_id(original_id: int, turn: int) -> str:
    """The deterministic ``_id`` of a unit: indexing it again overwrites it (idempotent, resumable).

    >>> document_id(17, 2), document_id(3, -1)
    ('17:2', '3:-1')
    """
    return f"{original_id}:{turn}"


def index_body(
    index_type: str, meta: dict[str, Any], *, shards: int, replicas: int | None, dimension: int | None = None
) -> dict[str, Any]:
    """``settings`` and ``mappings`` of a new index (nothing left to dynamic mapping or defaults that matter).

    ``meta`` (the manifest) is kept in the mapping's ``_meta``.
    """
    settings: dict[str, Any] = {"number_of_shards": shards}
    if replicas is not None:
        settings["number_of_replicas"] = replicas
    properties: dict[str, Any] = {
        "unit_id": {"type": "keyword"},
        "original_id": {"type": "keyword"},
        "turn": {"type": "keyword"},
        "source": {"type": "keyword"},
    }
    if index_type == "text":
        settings["analysis"] = ANALYSIS
        properties["text"] = {"type": "text", "analyzer": ANALYZER, "index_options": "positions", "norms": False}
    else:
        if dimension is None:
            raise ValueError("A vector index needs the embedding dimension.")
        properties["vector"] = {
            "type": "dense_vector",
            "dims": dimension,
            "index": True,
            "similarity": "cosine",
            # Unquantised HNSW: Elasticsearch 9 would otherwise quantise (bbq_hnsw), changing the scores.
            "index_options": {"type": "hnsw"},
        }
    return {"settings": settings, "mappings": {"dynamic": "strict", "_meta": meta, "properties": properties}}
