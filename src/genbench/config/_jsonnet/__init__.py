"""genbench's one jsonnet engine: configs evaluated by the Go library in a worker process, confined and limited.

Single configs (:func:`evaluate_jsonnet`) and batches (:class:`ConfigEvaluation`, a cold ``list-tasks``) share one
worker (:mod:`~genbench.config._jsonnet.engine`) under a memory and a time limit; imports stay inside the config's
directory; errors become a :class:`~genbench._core.errors.ConfigError` at file:line:column.
See docs/config.md#jsonnet-evaluation-confined-and-limited.
"""

from __future__ import annotations

from genbench.config._jsonnet.batch import ConfigEvaluation, evaluate_config_files
from genbench.config._jsonnet.confined_evaluation import evaluate_jsonnet, evaluate_jsonnet_source, load_jsonnet
from genbench.config._jsonnet.engine import evaluate_in_sandbox, stop_worker
from genbench.config._jsonnet.limits import (
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT_S,
    SandboxLimitError,
    memory_limit_mb,
    sandbox_available,
    time_limit_s,
)
from genbench.config._jsonnet.messages import jsonnet_error
from genbench.config._jsonnet.source import read_config_text

__all__ = [
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIMEOUT_S",
    "ConfigEvaluation",
    "SandboxLimitError",
    "evaluate_config_files",
    "evaluate_in_sandbox",
    "evaluate_jsonnet",
    "evaluate_jsonnet_source",
    "jsonnet_error",
    "load_jsonnet",
    "memory_limit_mb",
    "read_config_text",
    "sandbox_available",
    "stop_worker",
    "time_limit_s",
]
