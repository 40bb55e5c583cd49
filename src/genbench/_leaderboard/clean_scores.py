"""Clean scores on the leaderboard: a setting's primary metric on the examples its shift report does not flag as
contained in the report's corpus (``clean`` of a results file's evaluation, ``genbench-cli run --shift-report``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from genbench._core.metric_values import finite_number
from genbench._leaderboard.templating import fixed


@dataclass(frozen=True)
class CleanScore:
    """A setting's clean score: its value, the examples scored, the examples of the setting, the corpus measured."""

    value: float
    scored: int
    of: int
    corpus: str

    @property
    def text(self) -> str:
        """``clean 0.620 (162 of 180; corpus NAME)``."""
        return f"clean {fixed(self.value)} ({self.scored} of {self.of}; corpus {self.corpus})"

    @property
    def flagged(self) -> str:
        """The share of the setting's examples the report flags: ``18 of 180 examples (10.0%) flagged as ...``."""
        excluded = self.of - self.scored
        share = f" ({100 * excluded / self.of:.1f}%)" if self.of else ""
        return f"{excluded} of {self.of} examples{share} flagged as contained in corpus {self.corpus}"


def clean_score(evaluation: Mapping[str, Any], report: Mapping[str, Any] | None) -> CleanScore | None:
    """The clean score of ``evaluation`` measured against shift ``report`` (the results' ``shift_report``); None
    without either, or when the clean subset's primary metric has no value (no example left, say)."""
    clean = evaluation.get("clean")
    if not clean or not report or not clean.get("primary_metric"):
        return None
    metric = clean["metrics"].get(clean["primary_metric"]) or {}
    value = finite_number(metric.get("value"))
    if value is None:
        return None
    scored = clean["num_examples"]
    return CleanScore(value, scored, scored + clean["excluded"], report["corpus"])


def flagged_shares(scores: Iterable[CleanScore | None]) -> list[str]:
    """What a task page says of its shift reports: per corpus (and number of examples), the share flagged."""
    return sorted({score.flagged for score in scores if score is not None})
