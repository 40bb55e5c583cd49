"""One reranking-evaluator run in its own process, for ``reranking.py``.

Usage: ``python _reranking_child.py genbench|sentence-transformers SAMPLES_JSON``. Loads the samples,
imports the evaluator of one side, then constructs it and calls it with the stand-in model (timed here: the
in-process figure); prints the timing and the metrics as JSON. The parent times the whole process.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from operator import itemgetter

import numpy as np


class StandInModel:
    """A cross-encoder stand-in: a pair's score is its document's length / 100 (so rankings have ties).

    The same for both sides and as cheap as possible (all in C: no hashing, no Python-level loop), so that the
    figures measure the evaluators, not a model.
    """

    def __init__(self) -> None:
        self.model_card_data = self  # sentence-transformers records the metrics on the model card data

    def set_evaluation_metrics(self, *args, **kwargs) -> None:
        pass

    def predict(self, sentences, prompt_name=None, batch_size=32, convert_to_numpy=True, show_progress_bar=None, **_):
        lengths = np.fromiter(map(len, map(itemgetter(1), sentences)), dtype=np.float32, count=len(sentences))
        return lengths / np.float32(100)


def main() -> None:
    side, samples_path = sys.argv[1:3]
    logging.disable(logging.WARNING)
    with open(samples_path, encoding="utf-8") as handle:
        data = json.load(handle)
    samples = data["samples"]
    model = StandInModel()
    if side == "genbench":
        from genbench.reranking._evaluation import CrossEncoderRerankingEvaluator
    else:
        from sentence_transformers.cross_encoder.evaluation import CrossEncoderRerankingEvaluator
    start = time.perf_counter()
    evaluator = CrossEncoderRerankingEvaluator(samples, at_k=10, write_csv=False)
    metrics = evaluator(model)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "metrics": {k: float(v) for k, v in metrics.items()}}))


if __name__ == "__main__":
    main()
