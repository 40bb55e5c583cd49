"""Contamination checks: how much of a test set occurs in training data, and training data without it.

Index training data once, then search test sets against the index by exact, n-gram or embedding match; or
:func:`scan` it once, keeping no index. The rules are defined once in :mod:`~genbench.contamination._analysis`.
See docs/contamination.md#python-api.
"""

from genbench.contamination._analysis import ANALYZER_VERSION, tokenize
from genbench.contamination._errors import ContaminationError
from genbench.contamination._index_backend import (
    Index,
    IndexBackend,
    InstanceResult,
    Match,
    SearchMode,
    SearchResult,
    default_index_dir,
)
from genbench.contamination._oneshot import scan
from genbench.contamination._testsets import TestSet, dataset_test_set, task_test_sets
from genbench.contamination._workflow import (
    ContaminationReport,
    DecontaminationSummary,
    build_index,
    decontaminate,
    search,
)

__all__ = [
    "ANALYZER_VERSION",
    "ContaminationError",
    "ContaminationReport",
    "DecontaminationSummary",
    "Index",
    "IndexBackend",
    "InstanceResult",
    "Match",
    "SearchMode",
    "SearchResult",
    "TestSet",
    "build_index",
    "dataset_test_set",
    "decontaminate",
    "default_index_dir",
    "scan",
    "search",
    "task_test_sets",
    "tokenize",
]
