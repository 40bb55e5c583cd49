"""Contamination checks: how much of a test set occurs in training data, and training data without it.

Index training data once (chat data by message, or a text field), then search test sets against the index by exact,
n-gram or embedding match; or :func:`scan` it once, keeping no index. Every training unit is considered, so results
are complete. The rules are defined once
in :mod:`~genbench.contamination.analysis`. Indexes are folders of files (the embedded backend, the default) or
Elasticsearch indexes (``backend="elasticsearch"``); :mod:`~genbench.contamination.backends` names the backends.

>>> import tempfile, pathlib, json
>>> with tempfile.TemporaryDirectory() as tmp:
...     train = pathlib.Path(tmp, "train.jsonl")
...     _ = train.write_text(json.dumps({"text": "The capital of France is Paris."}) + "\\n")
...     _ = build_index(str(train), text_field="text", index_dir=tmp)
...     report = search(str(train), test_sets=[TestSet.from_texts("geo", ["capital of France"])], index_dir=tmp)
>>> report.table()[str(train)]
{'geo': 1.0}
"""

from genbench.contamination.analysis import ANALYZER_VERSION, tokenize
from genbench.contamination.backend import (
    Index,
    IndexBackend,
    InstanceResult,
    Match,
    SearchMode,
    SearchResult,
    default_index_dir,
)
from genbench.contamination.errors import ContaminationError
from genbench.contamination.oneshot import scan
from genbench.contamination.testsets import TestSet, dataset_test_set, task_test_sets
from genbench.contamination.workflow import (
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
