"""A task's shift in a few numbers: means with bootstrap intervals, and the examples over a threshold.

Intervals are the percentile bootstrap of :func:`genbench._core.bootstrap.bootstrap_mean_interval` (the procedure of
results files), over the examples for which a statistic is defined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genbench._core.bootstrap import CONFIDENCE, DEFAULT_RESAMPLES, bootstrap_mean_interval
from genbench.contamination.shift._statistics import ExampleShift

BOOTSTRAP_SEED = 42


def _mean_interval(values: Sequence[float]) -> dict[str, Any]:
    if not values:
        return {"mean": None, "interval": None, "examples": 0}
    low, high = bootstrap_mean_interval(values, resamples=DEFAULT_RESAMPLES, seed=BOOTSTRAP_SEED)
    return {"mean": sum(values) / len(values), "interval": [low, high], "examples": len(values)}


def flag_examples(examples: Sequence[ExampleShift], threshold: float, ngram: int) -> None:
    """Mark the examples whose ``ngram`` hit share is at least ``threshold`` (the corpus contains them)."""
    for example in examples:
        share = None if example.ngram_hit_share is None else example.ngram_hit_share.get(ngram)
        example.flagged = share is not None and share >= threshold


def summarize(examples: Sequence[ExampleShift], ngram_sizes: Sequence[int], threshold: float, ngram: int) -> dict:
    """The summary block of a shift report (see ``shift.schema.json``)."""
    summary: dict[str, Any] = {"examples": len(examples)}
    if examples and examples[0].ngram_hit_share is not None:
        summary["ngram_hit_share"] = {
            str(n): _mean_interval(
                [s for e in examples if e.ngram_hit_share is not None and (s := e.ngram_hit_share[n]) is not None]
            )
            for n in ngram_sizes
        }
        flagged = [e.index for e in examples if e.flagged]
        summary["flagged"] = {
            "threshold": threshold,
            "ngram": ngram,
            "count": len(flagged),
            "share": len(flagged) / len(examples),
            "indices": flagged,
        }
    if examples and examples[0].longest_span is not None:
        spans = [e.longest_span for e in examples if e.longest_span is not None]
        summary["longest_span_tokens"] = _mean_interval([float(s.tokens) for s in spans])
        summary["longest_span_characters"] = _mean_interval([float(s.characters) for s in spans])
    summary["bootstrap"] = {"resamples": DEFAULT_RESAMPLES, "seed": BOOTSTRAP_SEED, "confidence": CONFIDENCE}
    return summary
