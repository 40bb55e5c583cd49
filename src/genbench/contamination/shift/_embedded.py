"""genbench's embedded text index (``genbench-cli contamination index``) as a shift engine, for corpora that fit here.

Its n-gram tables answer ``contains`` for any n (a table is built on first use) and its token array
``unigram_counts`` and ``total_tokens``; the tables keep one entry per unit, not per occurrence, so ``count`` is not
available and a report says so. The index is checked when opened, as for every contamination search. See
docs/shift.md#engines-one-number-per-statistic.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genbench.contamination._embedded import EmbeddedBackend
from genbench.contamination.shift._engine import UNKNOWN, CorpusEngine, CorpusIdentity
from genbench.contamination.shift._tokenizers import SplitText, WordTokenizer

ENGINE = "embedded"


def is_embedded_text_index(folder: Path) -> bool:
    """Whether ``folder`` is an embedded contamination index of text (by its manifest)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(manifest, dict) and manifest.get("backend") == "embedded" and manifest.get("index_type") == "text"
    )


class EmbeddedCorpus(CorpusEngine):
    """An embedded text index, opened (and checked) through the embedded backend."""

    engine_name = ENGINE
    primitives = frozenset({"contains", "unigram_counts", "total_tokens"})

    def __init__(self, folder: str | os.PathLike[str], *, verify: bool = False):
        folder = Path(folder)
        index: Any = EmbeddedBackend(folder.parent, verify=verify).open(folder.name)
        self.index = index
        manifest = index.manifest
        # The manifest is rewritten when an n-gram table is added; the checksum covers the index's own files.
        files = json.dumps(manifest["files"], sort_keys=True).encode("utf-8")
        identity = CorpusIdentity(
            name=manifest["source"]["name"],
            tokens=int(manifest["counts"]["tokens"]),
            documents=int(manifest["counts"]["units"]),
            tokenizer="words",
            engine=ENGINE,
            index_sha256=hashlib.sha256(files).hexdigest(),
        )
        super().__init__(identity, WordTokenizer())
        self._ids: dict[str, int] | None = None
        self._unigrams: dict[int, int] | None = None

    def token_ids(self, split: SplitText) -> list[int]:
        if self._ids is None:
            self._ids = {word: i for i, word in enumerate(self.index.vocabulary.words)}
        return [self._ids.get(str(unit), UNKNOWN) for unit in split.units]

    def contains(self, ids: Sequence[int]) -> bool:
        if not ids or UNKNOWN in ids:
            return False
        table = self.index.table(len(ids))
        query = np.asarray(ids, dtype=np.int64)
        starts = np.zeros(1, dtype=np.int64)
        lo, hi, impure = table.find(query, starts)
        if hi[0] <= lo[0]:
            return False
        if not impure[0]:
            return True
        window, _ = table.expand(lo, hi, impure, query, starts)
        return len(window) > 0

    def unigram_counts(self) -> Mapping[int, int]:
        if self._unigrams is None:
            tokens = np.asarray(self.index.tokens.array)
            counts = np.bincount(tokens[tokens >= 0].astype(np.int64))
            self._unigrams = {int(i): int(c) for i, c in enumerate(counts) if c}
        return self._unigrams

    def total_tokens(self) -> int:
        return self.identity.tokens
