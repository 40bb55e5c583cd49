"""One reranking-evaluator run in its own process, for ``reranking.py``.

Usage: ``python _reranking_child.py genbench|sentence-transformers SAMPLES_JSON SCORES_NPY``. Loads the samples,
imports the evaluator of one side, then constructs it and calls it with the stand-in model (timed here: the
in-process figure); prints the timing and the metrics as JSON. The parent times the whole process.
"""

from __future__ import annotations

import json
import logging
import sys
import time

import numpy as np


class StandInModel:
    """A cross-encoder stand-in: each document's score is looked up (no network, no GPU, same for both sides).

    Scores have two decimals, so rankings have ties.
    """

    def __init__(self, document_scores: dict[str, float]):
        self.document_scores = document_scores
        self.model_card_data = self  # sentence-transformers records the metrics on the model card data

    def set_evaluation_metrics(self, *args, **kwargs) -> None:
        pass

    def predict(self, sentences, prompt_name=None, batch_size=32, convert_to_numpy=True, show_progress_bar=None, **_):
        table = self.document_scores
        return np.fromiter((table[pair[1]] for pair in sentences), dtype=np.float32, count=len(sentences))


def main() -> None:
    side, samples_path, scores_path = sys.argv[1:4]
    logging.disable(logging.WARNING)
    with open(samples_path, encoding="utf-8") as handle:
        data = json.load(handle)
    samples = data["samples"]
    model = StandInModel(dict(zip(data["documents"], np.load(scores_path).tolist(), strict=True)))
    if side == "genbench":
        from genbench.reranking.evaluation import CrossEncoderRerankingEvaluator
    else:
        from sentence_transformers.cross_encoder.evaluation import CrossEncoderRerankingEvaluator
    start = time.perf_counter()
    evaluator = CrossEncoderRerankingEvaluator(samples, at_k=10, write_csv=False)
    metrics = evaluator(model)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "metrics": {k: float(v) for k, v in metrics.items()}}))


if __name__ == "__main__":
    main()
