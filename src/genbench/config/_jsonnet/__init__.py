"""genbench's one jsonnet engine: configs evaluated in a worker process, confined, under limits, one or many at once.

A config is code. It is evaluated in a worker process (:mod:`~genbench.config._jsonnet.worker`, driven by
:mod:`~genbench.config._jsonnet.engine`) under a memory limit (``GENBENCH_JSONNET_MEMORY_MB``, default 512) and a
time limit per config (``GENBENCH_JSONNET_TIMEOUT`` seconds, default 5) (:mod:`~genbench.config._jsonnet.limits`),
and its ``import``/``importstr`` may read only files inside its own directory
(:func:`~genbench.config._jsonnet.worker.confined_import_callback`). The same worker serves

- one config at a time (:func:`evaluate_jsonnet`, :func:`evaluate_jsonnet_source`; the config loader and split
  files), whose errors become a :class:`~genbench._core.errors.ConfigError` with the file, line and column
  (:mod:`~genbench.config._jsonnet.source`, :mod:`~genbench.config._jsonnet.messages`);
- many config files at once (:class:`ConfigEvaluation`; a cold ``list-tasks``); a config that fails there is left
  to the caller to evaluate alone (:mod:`~genbench.config._jsonnet.batch`).

One library evaluates them all: ``jsonnet`` (C++), the original framework's.

On platforms without POSIX pipes and resource limits (Windows), configs are evaluated in-process without limits.

>>> evaluate_jsonnet(text="local n = 2; {n: n, squares: [i * i for i in std.range(1, n)]}")
{'n': 2, 'squares': [1, 4]}
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
