"""Evaluating many config files in one go, for a cold ``list-tasks``.

The worker (:mod:`genbench.config._jsonnet.engine`) is asked for all the files in one request and answers them in
order, under the same memory limit, with the same time limit per config and each config's imports confined to its
own directory as a single config. A config the batch did not evaluate (an error, a limit, a dead worker) is left out
of the answer: the caller evaluates it alone, which reports its error with the messages genbench documents.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from genbench._core.errors import ConfigError
from genbench.config._jsonnet.engine import Worker, give_back, take_worker
from genbench.config._jsonnet.limits import SandboxLimitError, memory_limit_mb, sandbox_available, time_limit_s
from genbench.config._jsonnet.worker import evaluate_files

MAX_WORKERS = 4
"""Workers one batch may use: a config that kills its worker is skipped and a new worker takes the rest."""


class ConfigEvaluation:
    """Config files being evaluated by the worker, asked at construction.

    Asking early lets the worker evaluate while the caller does other work (importing the validation code); call
    :meth:`result` for the values. The worker answers config by config, in order; when it dies on one (a memory
    bomb) or runs out of time, that config is skipped and a new worker takes the rest (at most
    :data:`MAX_WORKERS` workers in all).
    """

    def __init__(self, paths: list[Path]) -> None:
        self._resolved = {str(Path(p).resolve()): Path(p) for p in paths}
        self._pending = sorted(self._resolved)
        self._values: dict[Path, Any] | None = None
        self._worker: Worker | None = None
        try:
            self._memory_mb, self._timeout = memory_limit_mb(), time_limit_s()
        except ConfigError:  # a bad limit setting: every config is loaded alone, which reports it
            self._pending = []
        if self._pending and sandbox_available():
            self._worker = self._ask(self._pending)

    def result(self) -> dict[Path, Any]:
        """Each path that evaluated, with its value; a path that failed or was skipped is missing, for the caller
        to load alone."""
        if self._values is None:
            self._values = self._collect() if sandbox_available() else self._evaluate_here()
        return self._values

    def _ask(self, paths: list[str]) -> Worker | None:
        """A worker asked to evaluate ``paths``; None if none could start."""
        try:
            worker = take_worker(self._memory_mb)
            worker.send({"paths": paths})
        except (OSError, SandboxLimitError):
            return None
        return worker

    def _collect(self) -> dict[Path, Any]:
        values: dict[Path, Any] = {}
        worker, pending, workers_left = self._worker, self._pending, MAX_WORKERS - 1
        self._worker = None
        while worker is not None:
            answered = 0
            try:
                for path in pending:
                    answer = worker.receive(self._timeout)
                    answered += 1
                    if "ok" in answer:
                        values[self._resolved[path]] = json.loads(answer["ok"])
            except SandboxLimitError:  # the worker died on, or ran out of time with, pending[answered]; it stopped
                pending = pending[answered + 1 :]
                worker = self._ask(pending) if pending and workers_left > 0 else None
                workers_left -= 1
                continue
            except BaseException:
                worker.stop()
                raise
            give_back(worker)
            worker = None
        return values

    def _evaluate_here(self) -> dict[Path, Any]:
        """Without the worker (not POSIX): in this process, without limits, as single configs are there."""
        import _gojsonnet

        answers = zip(self._pending, evaluate_files(_gojsonnet, self._pending), strict=True)
        return {self._resolved[path]: json.loads(answer["ok"]) for path, answer in answers if "ok" in answer}


def evaluate_config_files(paths: list[Path]) -> dict[Path, Any]:
    """Evaluate config files in a batch (see :class:`ConfigEvaluation`)."""
    return ConfigEvaluation(paths).result()
