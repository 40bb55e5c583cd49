"""Helpers of the reranking tests: random samples, model wrappers, and key-by-key comparison with
sentence-transformers' evaluators (results, log lines, CSV files)."""

from __future__ import annotations

import csv
import logging
import random
from pathlib import Path
from typing import Any

import numpy as np

WORD_TEXT = (
    "cat cats dog dogs sleep play food eat run walk garden tomato star planet moon sun water soil light night "
    "red blue green big small fast slow river sea city music book read write code bug fix test model data"
)
WORDS = WORD_TEXT.split()


def random_text(rng: random.Random, low: int = 3, high: int = 8) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def random_samples(seed: int, mode: str, num_samples: int = 14) -> list[dict[str, Any]]:
    """Samples with ``negative`` or ``documents`` ("mixed": both kinds), duplicate documents (tied scores),
    some samples without positives, some positives missing from ``documents``."""
    rng = random.Random(seed)
    samples = []
    for index in range(num_samples):
        positives = [random_text(rng) for _ in range(rng.randint(0 if index % 5 == 0 else 1, 3))]
        negatives = [random_text(rng) for _ in range(rng.randint(1, 8))]
        if rng.random() < 0.4:
            negatives.append(negatives[0])  # a duplicate document: tied scores
        kind = mode if mode != "mixed" else ("negative" if index % 2 else "documents")
        query = f"{random_text(rng, 2, 4)} {index}"
        if kind == "negative":
            samples.append({"query": query, "positive": positives, "negative": negatives})
        else:
            kept = [p for p in positives if rng.random() < 0.6]
            documents = negatives + kept
            rng.shuffle(documents)
            if index == 3 and positives:
                samples.append({"query": query, "positive": positives[0], "documents": documents + [positives[0]]})
            else:
                samples.append({"query": query, "positive": positives, "documents": documents})
    return samples


class RoundedScores:
    """A model whose scores are the wrapped model's rounded to ``decimals`` (many exact ties)."""

    def __init__(self, model: Any, decimals: int = 1):
        self._model = model
        self._decimals = decimals

    def predict(self, pairs, **kwargs):
        scores = self._model.predict(pairs, **kwargs)
        return np.round(scores, self._decimals).astype(scores.dtype)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)


class RecordingCard:
    """Stands in for a model's ``model_card_data``: keeps what evaluators store."""

    def __init__(self):
        self.stored: list[dict[str, Any]] = []

    def set_evaluation_metrics(self, evaluator, metrics, epoch=0, step=0):
        self.stored.append(dict(metrics))


class LookupModel:
    """A model that scores a pair from a dict (``score_of[(query, document)]``), as float32."""

    num_labels = 1

    def __init__(self, score_of: dict[tuple[str, str], float]):
        self.score_of = score_of
        self.calls: list[dict[str, Any]] = []
        self.model_card_data = RecordingCard()

    def predict(self, pairs, **kwargs):
        self.calls.append({"num_pairs": len(pairs), **kwargs})
        return np.array([self.score_of[(query, document)] for query, document in pairs], dtype=np.float32)


def messages(records: list[logging.LogRecord], logger_prefix: str) -> list[str]:
    return [r.getMessage() for r in records if r.name.startswith(logger_prefix) and r.levelno >= logging.INFO]


def read_csv(path: Path) -> tuple[list[str], list[list[float]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], [[float(value) for value in row] for row in rows[1:]]


def assert_same_results(ours: dict[str, float], theirs: dict[str, float], tolerance: float = 1e-12) -> None:
    assert list(ours) == list(theirs), (list(ours), list(theirs))
    for key in theirs:
        assert isinstance(ours[key], float), key
        assert abs(ours[key] - theirs[key]) <= tolerance, (key, ours[key], theirs[key])


def assert_same_csv_files(ours_dir: Path, theirs_dir: Path, tolerance: float = 1e-12) -> None:
    ours_files = sorted(p.name for p in ours_dir.iterdir())
    theirs_files = sorted(p.name for p in theirs_dir.iterdir())
    assert ours_files == theirs_files
    for name in theirs_files:
        ours_header, ours_rows = read_csv(ours_dir / name)
        theirs_header, theirs_rows = read_csv(theirs_dir / name)
        assert ours_header == theirs_header, name
        assert len(ours_rows) == len(theirs_rows), name
        for ours_row, theirs_row in zip(ours_rows, theirs_rows, strict=True):
            assert np.allclose(ours_row, theirs_row, rtol=0, atol=tolerance), (name, ours_row, theirs_row)
        # Same line endings as sentence-transformers.
        assert (ours_dir / name).read_bytes().count(b"\r\n") == (theirs_dir / name).read_bytes().count(b"\r\n")


def run_both(ours: Any, theirs: Any, model: Any, tmp_path: Path, caplog, *, epoch: int = -1, steps: int = -1):
    """Call both evaluators on ``model`` (twice, so that CSV rows are appended) and compare everything."""
    ours_dir, theirs_dir = tmp_path / "ours", tmp_path / "theirs"
    caplog.clear()
    with caplog.at_level(logging.INFO):
        theirs_results = theirs(model, output_path=str(theirs_dir), epoch=epoch, steps=steps)
        theirs_log = messages(caplog.records, "sentence_transformers.cross_encoder.evaluation")
        caplog.clear()
        ours_results = ours(model, output_path=str(ours_dir), epoch=epoch, steps=steps)
        ours_log = messages(caplog.records, "genbench.reranking")
        caplog.clear()
        theirs(model, output_path=str(theirs_dir), epoch=epoch + 1, steps=steps)
        ours(model, output_path=str(ours_dir), epoch=epoch + 1, steps=steps)
    assert_same_results(ours_results, theirs_results)
    assert ours_log == theirs_log
    assert ours.primary_metric == theirs.primary_metric
    assert_same_csv_files(ours_dir, theirs_dir)
    return ours_results, theirs_results
