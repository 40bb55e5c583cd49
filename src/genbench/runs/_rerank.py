"""``cross-encoder:PATH`` and ``sentence-transformers:PATH``: rerankers for reranking tasks.

A cross-encoder scores each (query, document) pair with ``CrossEncoder.predict``; a bi-encoder by the cosine of the
two embeddings (:class:`genbench.reranking._task_evaluation.BiEncoderScorer`). The scores are the task's predictions.
Model arguments: ``device`` (default: cuda when available, else cpu), ``batch_size`` (default 32).
"""

from __future__ import annotations

from collections.abc import Sequence

from genbench.runs._hf import check_local_path
from genbench.runs.model_runner import ModelRunner, directory_revision
from genbench.runs.specs import ModelSpec, check_known_args, int_arg


class PairScorerRunner(ModelRunner):
    """A sentence-transformers cross-encoder or bi-encoder behind ``score_pairs``."""

    def __init__(self, spec: ModelSpec):
        super().__init__(spec)
        check_known_args(spec, ("device", "batch_size"))
        import torch

        device = spec.args.get("device") or ("cuda" if torch.cuda.is_available() else "cpu")
        self.batch_size = int_arg(spec, "batch_size", 32)
        check_local_path(spec.target, spec.kind)
        if spec.kind == "cross-encoder":
            from sentence_transformers import CrossEncoder

            self.model = CrossEncoder(spec.target, device=device)
        else:
            from genbench.reranking._task_evaluation import BiEncoderScorer

            self.model = BiEncoderScorer(spec.target, device=device)
        self.revision = directory_revision(spec.target)

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        scores = self.model.predict([list(p) for p in pairs], batch_size=self.batch_size, show_progress_bar=False)
        return [float(s) for s in scores]
