"""Shift against a pretraining corpus: how far a test set is from what a model saw.

Per example: the share of its n-grams found in the corpus, its longest span found verbatim, its rarest n-grams'
counts; per test set: the unigram cross-entropy under the corpus. Computed once (:mod:`.statistics`) from counting
primitives (:mod:`.engine`) that each engine answers: infini-gram indexes (:mod:`.infinigram`), built locally or
downloaded. See ``docs/shift.md``.
"""

from __future__ import annotations

from genbench.contamination.shift._engine import CorpusEngine, CorpusIdentity, UnsupportedStatisticError
from genbench.contamination.shift._measure import ShiftResult, measure_shift, open_corpus
from genbench.contamination.shift._report import read_shift_report

__all__ = [
    "CorpusEngine",
    "CorpusIdentity",
    "ShiftResult",
    "UnsupportedStatisticError",
    "measure_shift",
    "open_corpus",
    "read_shift_report",
]
