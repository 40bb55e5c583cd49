"""The contract every model runner implements, and how a spec becomes a runner.

A runner answers three kinds of requests; each task type uses the ones it needs (see :mod:`genbench.runs.execute`):

- ``generate(prompts, max_new_tokens, stop)``: greedy continuations (free form, sequence labeling, and multiple
  choice where log-likelihoods are unavailable);
- ``loglikelihood(pairs)``: ``log P(continuation | context)`` for ``(context, continuation)`` pairs (multiple
  choice, and reranking with a language model);
- ``score_pairs(pairs)``: a relevance score per ``(query, document)`` pair (reranking with a cross-encoder).

A runner that cannot answer a kind raises :class:`RequestUnsupported`; the executor then falls back (multiple
choice by generation) or says which runner fits.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from genbench.runs.specs import ModelSpec


class RequestUnsupported(Exception):
    """The runner cannot answer this kind of request (the message says why)."""


class ModelRunner:
    """Base class of the runners.

    Attributes:
        spec: The parsed model spec.
        revision: What identifies the model's weights (a hub commit, a content hash of a local directory), or None
            when it cannot be told; part of the request cache key.
        cacheable: Whether answers may be cached (False for a user's Python predictor, whose code may change).
        chunk_size: Requests handed to the runner at once; each chunk's answers are cached before the next.
    """

    cacheable = True
    # Requests per model call between cache commits: what an interruption can lose at most.
    chunk_size = 32

    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.revision: str | None = None

    def cache_identity(self) -> dict[str, Any]:
        """What, besides the request itself, decides an answer: spec, revision and output-affecting arguments."""
        return {"spec": self.spec.text, "revision": self.revision, "args": self.output_args()}

    def output_args(self) -> dict[str, str]:
        """The model arguments that change answers (not batch size, concurrency or timeouts)."""
        return {}

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, stop: str | None) -> list[str]:
        raise RequestUnsupported(f"{self.spec.kind}: models do not generate text")

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        raise RequestUnsupported(f"{self.spec.kind}: models give no log-likelihoods")

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        raise RequestUnsupported(
            f"{self.spec.kind}: models do not score (query, document) pairs; use cross-encoder:PATH or "
            "sentence-transformers:PATH"
        )


def directory_revision(path: str | os.PathLike[str]) -> str | None:
    """``sha256:...`` of a local model directory's files (names and contents), or None for a non-directory.

    Reads every file once: weights retrained in place change the revision, so stale cached answers are never reused.
    """
    root = Path(path)
    if not root.is_dir():
        return None
    digest = hashlib.sha256()
    for file in sorted(p for p in root.rglob("*") if p.is_file() and ".cache" not in p.parts):
        digest.update(file.relative_to(root).as_posix().encode() + b"\0")
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return "sha256:" + digest.hexdigest()
