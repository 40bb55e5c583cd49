"""The measured shift an evaluation card states under its shift-locus axis: a task's shift report
(``genbench-cli shift measure``), the shift between a named pretraining corpus and the test set, in one sentence,
and how it relates to the shift locus the task declares (see docs/shift.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from genbench._core.taxonomy import AXES


@dataclass(frozen=True)
class MeasuredShift:
    """A shift report's corpus, its size, the n-gram hit share (mean and interval) and the share flagged."""

    corpus: str
    tokens: int
    ngram: int
    hit_share: float | None
    interval: tuple[float, float] | None
    flagged: int
    examples: int

    @classmethod
    def of(cls, report: Mapping[str, Any]) -> MeasuredShift:
        """From a shift report read by :func:`genbench.contamination.shift._report.read_shift_report`."""
        summary = report["summary"]
        ngram = report["settings"]["threshold_ngram"]
        hits = (summary.get("ngram_hit_share") or {}).get(str(ngram)) or {}
        flagged = summary.get("flagged") or {}
        interval = hits.get("interval")
        return cls(
            corpus=report["corpus"]["name"],
            tokens=report["corpus"]["tokens"],
            ngram=ngram,
            hit_share=hits.get("mean"),
            interval=(interval[0], interval[1]) if interval else None,
            flagged=flagged.get("count", 0),
            examples=summary["examples"],
        )

    def sentence(self) -> str:
        """``Measured shift between the pretraining corpus NAME (1,234 tokens) and the test set: 8-gram hit share
        0.120 [0.080, 0.160]; 3 of 50 examples (6.0%) flagged as contained.``"""
        hits = (
            "no hit share measured" if self.hit_share is None else f"{self.ngram}-gram hit share {self.hit_share:.3f}"
        )
        if self.hit_share is not None and self.interval is not None:
            hits += f" [{self.interval[0]:.3f}, {self.interval[1]:.3f}]"
        share = f" ({100 * self.flagged / self.examples:.1f}%)" if self.examples else ""
        return (
            f"Measured shift between the pretraining corpus {self.corpus} ({self.tokens:,} tokens) and the test set: "
            f"{hits}; {self.flagged} of {self.examples} examples{share} flagged as contained."
        )


def locus_note(declared: Sequence[str]) -> str:
    """How a measured pretraining-corpus shift relates to the shift loci a task declares (its taxonomy's
    ``shift_locus`` values): the measurement is a pretrain-test shift whatever the task declares.

    >>> locus_note(["pretrain-test"])
    'This is the shift locus the task declares (Pretrain–test).'
    >>> locus_note(["train-test"])[:60]
    'The task declares the shift locus Train–test, not Pretrain–t'
    """
    pretrain_test = AXES["shift_locus"].label("pretrain-test")
    if "pretrain-test" in declared:
        return f"This is the shift locus the task declares ({pretrain_test})."
    if not declared:
        return f"The task declares no shift locus; this measurement is of the {pretrain_test} locus."
    loci = ", ".join(AXES["shift_locus"].label(value) for value in declared)
    return (
        f"The task declares the shift locus {loci}, not {pretrain_test}: this measures how far its test set is "
        "from a pretraining corpus, beside the shift the task was built to test."
    )
