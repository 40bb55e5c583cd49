"""An Elasticsearch text index as a shift engine (WIMBD-style counts of phrases), for corpora already indexed there.

A ``match_phrase`` query counts the documents holding a phrase, so the engine answers ``contains`` (and
``total_tokens`` from the index's manifest), not ``count`` nor ``unigram_counts``. Opening the index checks its
manifest (complete, same analyzer) and that the server holds the documents it records. See docs/shift.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from genbench.contamination._errors import DamagedIndexError
from genbench.contamination._es.connection import translate_errors
from genbench.contamination._es.text_index import phrase
from genbench.contamination.shift._engine import CorpusEngine, CorpusIdentity
from genbench.contamination.shift._tokenizers import SplitText, WordTokenizer

if TYPE_CHECKING:
    from genbench.contamination._es import ElasticsearchBackend

ENGINE = "elasticsearch"


class ElasticsearchCorpus(CorpusEngine):
    """A text index of the Elasticsearch backend, opened by dataset or index name."""

    engine_name = ENGINE
    primitives = frozenset({"contains", "total_tokens"})

    def __init__(self, backend: ElasticsearchBackend, dataset: str):
        self.backend = backend
        index = backend.open(dataset)
        self.index_name = index.name
        manifest = index.manifest
        with translate_errors(f"count the documents of {index.name}", backend.url):
            held = int(backend.client.count(index=index.name)["count"])
        if held != manifest["counts"]["units"]:
            raise DamagedIndexError(
                f"The Elasticsearch index {index.name} holds {held} documents, its manifest records "
                f"{manifest['counts']['units']}: it was changed since it was built. Index "
                f"{manifest['source']['name']!r} again."
            )
        identity = CorpusIdentity(
            name=manifest["source"]["name"],
            tokens=int(manifest["counts"]["tokens"]),
            documents=held,
            tokenizer="words",
            engine=ENGINE,
            index_sha256=hashlib.sha256(json.dumps(manifest, sort_keys=True).encode("utf-8")).hexdigest(),
        )
        super().__init__(identity, WordTokenizer())
        self._ids: dict[str, int] = {}
        self._words: list[str] = []

    def token_ids(self, split: SplitText) -> list[int]:
        # The server knows the words, not ids: number them as they come, and send the words back in queries.
        ids = []
        for unit in split.units:
            word = str(unit)
            if word not in self._ids:
                self._ids[word] = len(self._words)
                self._words.append(word)
            ids.append(self._ids[word])
        return ids

    def contains(self, ids: Sequence[int]) -> bool:
        with translate_errors(f"count a phrase in {self.index_name}", self.backend.url):
            found = self.backend.client.count(index=self.index_name, query=phrase([self._words[i] for i in ids]))
        return int(found["count"]) > 0

    def total_tokens(self) -> int:
        return self.identity.tokens
