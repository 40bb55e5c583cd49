"""Model runs: run a model over tasks, score it with confidence intervals, and write results files.

``genbench-cli run`` and :func:`run` are the entry points; :mod:`genbench.runs.execute` explains how each task type
is answered, :mod:`genbench.runs.results` the results files, :mod:`genbench.runs.compare` the paired comparison.
The modules are imported lazily: ``import genbench.runs`` loads no model library.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "run": "genbench.runs.execute",
    "run_model_on_task": "genbench.runs.execute",
    "TaskRun": "genbench.runs.execute",
    "compare_results": "genbench.runs.compare",
    "read_results": "genbench.runs.results",
    "results_schema_text": "genbench.runs.results",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'genbench.runs' has no attribute {name!r}")
