"""The Elasticsearch backend (``--backend elasticsearch``): contamination indexes on a server or a cluster.

One index per training dataset and index type, with explicit mappings (:mod:`.mappings`) and the manifest in the
mapping's ``_meta``; builds resume at the first shard not recorded there, and search scores with
:mod:`~genbench.contamination._match_scores`, as the embedded backend does. Needs ``pip install 'genbench[es]'``
(imported only when used). See docs/contamination.md#elasticsearch-backend.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from genbench._core.progress import progress_iter
from genbench._core.urls import redact_url
from genbench.contamination._analysis import ANALYZER_VERSION, tokenize_joined
from genbench.contamination._embedded.vector_index import embed, load_model, resolve_model
from genbench.contamination._errors import ContaminationError
from genbench.contamination._es.connection import (
    DEFAULT_URL,
    URL_ENV,
    check_server,
    client_url,
    connect,
    reply_dict,
    translate_errors,
)
from genbench.contamination._es.mappings import document_id, index_body, index_name, is_index_name, unit_id_key
from genbench.contamination._es.retrieval import PAGE_SIZE, QUERIES_PER_MSEARCH, Retriever
from genbench.contamination._es.text_index import ElasticsearchTextIndex
from genbench.contamination._es.vector_index import NUM_CANDIDATES, ElasticsearchVectorIndex
from genbench.contamination._index_backend import INDEX_TYPES, Index, IndexBackend
from genbench.contamination._source_check import check_same_source
from genbench.contamination._training_data import (
    LoadedDataset,
    UnitBatch,
    UnitSpec,
    iter_unit_batches,
    no_units_error,
)

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch

FORMAT = "genbench-contamination-index"
FORMAT_VERSION = 1
SHARD_ROWS = 50_000
"""Rows per build shard: the unit of resuming (a stopped build re-sends at most one shard)."""


class ElasticsearchBackend(IndexBackend):
    """Contamination indexes on an Elasticsearch server.

    Args:
        url: The server (default ``$GENBENCH_ES_URL``, else ``http://localhost:9200``).
        api_key: An API key (default ``$ELASTIC_API_KEY``).
        password: The password of user ``elastic`` (default ``$ELASTIC_PASSWORD``).
        ca_certs: The CA certificate to verify the server's TLS certificate with.
        verify_certs: Verify TLS certificates (on by default).
        request_timeout: Seconds per request.
        search_size: At most this many hits per query (default: all; instances reaching it are flagged
            ``truncated``).
        num_candidates: ``knn`` candidates per shard of a vector search.
        shards: Primary shards of a new index.
        replicas: Replicas of a new index (default: the cluster's).
        chunk_size: Documents per ``bulk`` request.
        max_retries: Retries of documents refused with ``429`` (too many requests), with exponential back-off.
        initial_backoff: Seconds before the first retry (doubled each time, at most ``max_backoff``).
        max_backoff: Longest wait between retries.
        shard_rows: Rows per build checkpoint.
        msearch_batch: Searches per ``msearch`` request.
        page_size: Hits per page of a query.
        client: An ``elasticsearch.Elasticsearch`` client to use instead of connecting (it is checked all the same).
    """

    name = "elasticsearch"

    def __init__(
        self,
        url: str | None = None,
        *,
        api_key: str | None = None,
        password: str | None = None,
        ca_certs: str | None = None,
        verify_certs: bool = True,
        request_timeout: float = 120.0,
        search_size: int | None = None,
        num_candidates: int = NUM_CANDIDATES,
        shards: int = 1,
        replicas: int | None = None,
        chunk_size: int = 500,
        max_retries: int = 5,
        initial_backoff: float = 2.0,
        max_backoff: float = 60.0,
        shard_rows: int = SHARD_ROWS,
        msearch_batch: int = QUERIES_PER_MSEARCH,
        page_size: int = PAGE_SIZE,
        client: Elasticsearch | None = None,
    ):
        for option, value, least in [
            ("search_size", search_size, 1),
            ("num_candidates", num_candidates, 1),
            ("shards", shards, 1),
            ("replicas", replicas, 0),
            ("chunk_size", chunk_size, 1),
            ("max_retries", max_retries, 0),
            ("shard_rows", shard_rows, 1),
            ("msearch_batch", msearch_batch, 1),
            ("page_size", page_size, 1),
        ]:
            if value is not None and value < least:
                raise ContaminationError(f"{option} must be at least {least}, got {value}.")
        if num_candidates > 10_000:
            raise ContaminationError(f"num_candidates must be at most 10000, got {num_candidates}.")
        self._options: dict[str, Any] = {
            "api_key": api_key,
            "password": password,
            "ca_certs": ca_certs,
            "verify_certs": verify_certs,
            "request_timeout": request_timeout,
        }
        self._url = url
        self._client = client
        self._checked = False
        self.search_size = search_size
        self.num_candidates = num_candidates
        self.shards = shards
        self.replicas = replicas
        self.chunk_size = chunk_size
        self.max_retries = max_retries
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.shard_rows = shard_rows
        self.msearch_batch = msearch_batch
        self.page_size = page_size

    @property
    def url(self) -> str:
        """The server's URL for messages: its credentials (``https://elastic:PASSWORD@host``) redacted."""
        if self._client is not None and self._url is None:
            return client_url(self._client)
        import os

        return redact_url(self._url or os.environ.get(URL_ENV) or DEFAULT_URL)

    @property
    def client(self) -> Elasticsearch:
        """The client, connected and checked on first use."""
        if self._client is None:
            self._client = connect(self._url, **self._options)
            self._checked = True
        elif not self._checked:
            check_server(self._client, self.url)
            self._checked = True
        return self._client

    def retriever(self, index: str) -> Retriever:
        """Paged, complete retrieval of query hits from ``index`` (a context manager)."""
        return Retriever(
            self.client,
            index,
            url=self.url,
            search_size=self.search_size,
            page_size=self.page_size,
            batch=self.msearch_batch,
        )

    # -- reading manifests -------------------------------------------------------------------------------------

    def _manifest(self, index: str) -> dict[str, Any] | None:
        """The manifest in an index's ``_meta``; ``None`` when there is no such index.

        Raises:
            ContaminationError: the index exists but is not a genbench contamination index (it is never touched).
        """
        elasticsearch = __import__("elasticsearch")
        if not is_index_name(index):
            return None
        with translate_errors(f"read the mapping of {index}", self.url):
            try:
                mapping = self.client.indices.get_mapping(index=index)
            except elasticsearch.NotFoundError:
                return None
        for body in reply_dict(mapping, f"Elasticsearch at {self.url} answered the mapping of {index} with").values():
            meta = _meta(body)
            if meta is not None:
                return meta
        raise ContaminationError(
            f"The Elasticsearch index {index} at {self.url} exists but is not a genbench contamination index: "
            "genbench leaves it alone. Delete or rename it to index this dataset here."
        )

    def list_indexes(self) -> list[dict[str, Any]]:
        with translate_errors("list the indexes", self.url):
            reply = self.client.indices.get_mapping(index="*")
        mappings = reply_dict(reply, f"Elasticsearch at {self.url} answered the list of mappings with")
        found = []
        for name in sorted(mappings):
            meta = _meta(mappings[name])
            if meta is not None:
                found.append(meta)
        return found

    # -- building ----------------------------------------------------------------------------------------------

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
        if index_type not in INDEX_TYPES:
            raise ContaminationError(f"Unknown index type {index_type!r}: use one of {', '.join(INDEX_TYPES)}.")
        name = index_name(dataset.name, index_type)
        settings: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "index_type": index_type,
            "source_fingerprint": dataset.fingerprint,
            "split": dataset.split,
            "units_from": spec.to_dict(),
            "shard_rows": self.shard_rows,
        }
        fields: dict[str, Any] = {"index_type": index_type}
        embedder: Any = None
        dimension = None
        if index_type == "text":
            settings["analyzer_version"] = fields["analyzer_version"] = ANALYZER_VERSION
        else:
            recorded, location = resolve_model(model)
            settings["model"] = fields["model"] = recorded
            embedder = load_model(location)
            dimension = int(
                embedder.get_embedding_dimension()
                if hasattr(embedder, "get_embedding_dimension")
                else embedder.get_sentence_embedding_dimension()
            )
        existing = self._manifest(name)
        if existing is not None and not rebuild:
            check_same_source(existing, name, dataset.name)
            recorded = existing.get("build_settings", {}).get("units_from")
            if recorded != settings["units_from"]:
                raise ContaminationError(
                    f"The Elasticsearch index {name} holds units from {_describe_units(recorded)}; this build asks "
                    f"for units from {spec.describe()}. Replace it by running the same command with --rebuild."
                )
        if existing is not None and not rebuild and existing.get("build_settings") == settings:
            if existing.get("status") == "complete":
                return existing
            manifest = existing  # resume
        else:
            manifest = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "backend": self.name,
                "name": name,
                **fields,
                "source": dataset.source_info(),
                "units_from": spec.to_dict(),
                "build_settings": settings,
                "status": "building",
                "progress": {"shards": 0, "units": 0, "tokens": 0},
            }
            self._create(name, index_type, manifest, dimension)
        self._index_shards(dataset, spec, name, manifest, embedder, max_batch_tokens, progress)
        done = manifest["progress"]
        if done["units"] == 0:
            with translate_errors(f"delete the empty index {name}", self.url):
                self.client.indices.delete(index=name)
            raise no_units_error(dataset, spec)
        counts: dict[str, Any] = {"rows": dataset.num_rows, "units": done["units"]}
        if index_type == "text":
            counts["tokens"] = done["tokens"]
        else:
            counts["dimension"] = dimension
        manifest.update(
            status="complete", counts=counts, created=datetime.now(timezone.utc).isoformat(timespec="seconds")
        )
        with translate_errors(f"refresh {name}", self.url):
            self.client.indices.refresh(index=name)
            self.client.indices.put_mapping(index=name, meta=manifest)
        return manifest

    def _create(self, name: str, index_type: str, manifest: dict[str, Any], dimension: int | None) -> None:
        elasticsearch = __import__("elasticsearch")
        body = index_body(index_type, manifest, shards=self.shards, replicas=self.replicas, dimension=dimension)
        with translate_errors(f"create the index {name}", self.url):
            with contextlib.suppress(elasticsearch.NotFoundError):
                self.client.indices.delete(index=name)
            self.client.indices.create(index=name, settings=body["settings"], mappings=body["mappings"])

    def _index_shards(
        self,
        dataset: LoadedDataset,
        spec: UnitSpec,
        name: str,
        manifest: dict[str, Any],
        embedder: Any,
        max_batch_tokens: int,
        progress: bool,
    ) -> None:
        done = manifest["progress"]
        batches = progress_iter(
            iter_unit_batches(dataset, spec, shard_rows=self.shard_rows, first_shard=done["shards"]),
            desc=f"Indexing {dataset.name}",
            unit="shard",
            total=-(-dataset.num_rows // self.shard_rows),
            initial=done["shards"],
            enabled=progress,
        )
        for batch in batches:
            tokens = 0
            if embedder is None:  # tokenize_joined puts one separator between each two texts
                tokens = len(tokenize_joined(batch.texts)) - max(len(batch.texts) - 1, 0)
            self._bulk(name, self._documents(batch, manifest, done["units"], embedder, max_batch_tokens), batch)
            done.update(shards=batch.shard + 1, units=done["units"] + len(batch.texts), tokens=done["tokens"] + tokens)
            with translate_errors(f"record the progress of {name}", self.url):
                self.client.indices.put_mapping(index=name, meta=manifest)

    def _documents(
        self, batch: UnitBatch, manifest: dict[str, Any], first_unit: int, embedder: Any, max_batch_tokens: int
    ) -> Iterator[dict[str, Any]]:
        vectors = None
        if embedder is not None:
            vectors = embed(embedder, batch.texts, max_batch_tokens=max_batch_tokens)
        source = manifest["source"]["name"]
        for number, (text, row, turn) in enumerate(
            zip(batch.texts, batch.original_ids.tolist(), batch.turns.tolist(), strict=True)
        ):
            document: dict[str, Any] = {
                "unit_id": unit_id_key(first_unit + number),
                "original_id": str(row),
                "turn": str(turn),
                "source": source,
            }
            if vectors is None:
                document["text"] = text
            else:
                document["vector"] = [float(x) for x in vectors[number]]
            yield {"_op_type": "index", "_index": manifest["name"], "_id": document_id(row, turn), "_source": document}

    def _bulk(self, name: str, actions: Iterator[dict[str, Any]], batch: UnitBatch) -> None:
        """Send a shard's documents; raise listing every failed document (none is dropped silently)."""
        from elasticsearch.helpers import streaming_bulk

        failed = []
        with translate_errors(f"index documents into {name}", self.url):
            for ok, info in streaming_bulk(
                self.client,
                actions,
                chunk_size=self.chunk_size,
                max_retries=self.max_retries,
                initial_backoff=self.initial_backoff,
                max_backoff=self.max_backoff,
                raise_on_error=False,
                yield_ok=False,
            ):
                if not ok:
                    failed.append(next(iter(info.values())))
        if failed:
            shown = "; ".join(
                f"{item.get('_id')}: {item.get('status')} {(item.get('error') or {}).get('reason', item.get('error'))}"
                if isinstance(item.get("error"), dict | None)
                else f"{item.get('_id')}: {item.get('status')} {item.get('error')}"
                for item in failed[:5]
            )
            raise ContaminationError(
                f"Elasticsearch refused {len(failed)} documents of rows {batch.row_start}-{batch.row_stop - 1} into "
                f"{name} (first: {shown}). The index is kept incomplete: fix the cause and run the same command "
                "again to resume from these rows."
            )

    # -- opening -----------------------------------------------------------------------------------------------

    def open(self, dataset: str, *, index_type: str = "text", model: str | None = None) -> Index:
        """Open the index of a dataset (by the name it was indexed under, or by index name).

        Raises:
            ContaminationError: no such index (the message lists the existing ones), an unfinished build, another
                index type, an older analyzer, or another model.
        """
        manifest = self._manifest(dataset) if is_index_name(dataset) else None
        name = dataset
        if manifest is None:
            name = index_name(dataset, index_type)
            manifest = self._manifest(name)
        if manifest is None:
            existing = [f"{m['name']} ({m['source']['name']})" for m in self.list_indexes()]
            listing = "; existing indexes: " + ", ".join(existing) if existing else "; there are no indexes yet"
            raise ContaminationError(
                f"No {index_type} index of {dataset!r} in Elasticsearch at {self.url}{listing}. Build it with "
                f"`genbench-cli contamination index --backend elasticsearch --dataset {dataset}"
                + (" --index-type vector" if index_type == "vector" else "")
                + "`."
            )
        if name != dataset:  # opened by dataset name: it must be the dataset this index holds
            check_same_source(manifest, name, dataset)
        if manifest.get("status") != "complete":
            raise ContaminationError(
                f"The index {name} is incomplete (its build stopped): run `genbench-cli contamination index "
                f"--backend elasticsearch --dataset {manifest['source']['name']}` again to finish it."
            )
        if manifest.get("index_type") != index_type:
            raise ContaminationError(
                f"The index {name} is a {manifest.get('index_type')} index; this search needs a {index_type} "
                f"index (--index-type {manifest.get('index_type')})."
            )
        with translate_errors(f"refresh {name}", self.url):
            self.client.indices.refresh(index=name)
        if index_type == "text":
            if manifest.get("analyzer_version") != ANALYZER_VERSION:
                raise ContaminationError(
                    f"The index {name} was built with analyzer version {manifest.get('analyzer_version')}, this "
                    f"genbench uses {ANALYZER_VERSION}: index {manifest['source']['name']!r} again."
                )

            return ElasticsearchTextIndex(self, name, manifest)
        if model is not None and resolve_model(model)[0] != manifest.get("model"):
            raise ContaminationError(
                f"The index {name} was built with the model {manifest.get('model')!r}, not {model!r}."
            )

        return ElasticsearchVectorIndex(self, name, manifest)


def _meta(body: Any) -> dict[str, Any] | None:
    """The genbench manifest in one index's mapping reply (``None``: not a genbench index, or an odd mapping)."""
    mappings = body.get("mappings") if isinstance(body, dict) else None
    meta = mappings.get("_meta") if isinstance(mappings, dict) else None
    if isinstance(meta, dict) and meta.get("format") == FORMAT and isinstance(meta.get("source"), dict):
        return meta
    return None


def _describe_units(recorded: Any) -> str:
    spec = UnitSpec.from_dict(recorded)
    return spec.describe() if spec is not None else repr(recorded)
