"""Evaluating many task configs at once, for a cold ``list-tasks``.

Each call of the C++ jsonnet library (``_jsonnet``) sets up a fresh interpreter and parses its standard library,
20 ms or more per config, imports included: a hundred configs cost two seconds before anything is validated. The
Go implementation (``gojsonnet``, the same language, the reference test suite) evaluates a config in about half a
millisecond, so a listing evaluates the configs it must read with it, in one child process, and validates them in
the parent. Without ``gojsonnet`` the child uses ``_jsonnet`` (correct, only slower).

Configs are code, so the child runs under a memory limit (``RLIMIT_AS``, ``GENBENCH_JSONNET_MEMORY_MB``, default
512) and a time limit (``GENBENCH_JSONNET_TIMEOUT`` seconds, default 5, plus 0.1 s per config): a memory bomb ends
the child, not the listing. Each config's imports stay confined to its own directory, as when it is evaluated
alone. A config the child did not evaluate (an error, a limit, a crash) is left out of the answer: the caller
loads it alone with :mod:`genbench.config`, which reports its error the usual way.

No library evaluates a list of jsonnet files in a limited child, so this small protocol is written by hand. The
child runs :mod:`genbench.config.listing_jsonnet_worker` as a script by its path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

DEFAULT_MEMORY_MB = 512
DEFAULT_TIMEOUT_S = 5.0
PER_CONFIG_TIMEOUT_S = 0.1
MAX_CHILDREN = 4
WORKER_SCRIPT = Path(__file__).resolve().with_name("listing_jsonnet_worker.py")


def _positive(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, "") or default)
    except ValueError:
        return default
    return value if value > 0 else default


class ConfigEvaluation:
    """Config files being evaluated in a limited child process, started at construction.

    Starting the child early lets it run while the caller does other work (importing the validation code); call
    :meth:`result` for the values. The child answers config by config, in order; when it dies on one (a memory
    bomb) or runs out of time, that config is skipped and a new child takes the rest (at most
    :data:`MAX_CHILDREN` children in all).
    """

    def __init__(self, paths: list[Path]):
        self._resolved = {str(Path(p).resolve()): Path(p) for p in paths}
        self._pending = sorted(self._resolved)
        self._child = _start_child(self._pending) if self._pending else None

    def result(self) -> dict[Path, Any]:
        """Each path that evaluated, with its value; a path that failed or was skipped is missing, for the caller
        to load alone."""
        values: dict[Path, Any] = {}
        for attempt in range(MAX_CHILDREN):
            if not self._pending:
                break
            child = self._child if attempt == 0 else _start_child(self._pending)
            if child is None:
                break
            answered, finished = _collect(child, self._pending)
            for key, value in answered.items():
                values[self._resolved[key]] = value
            if finished:
                break
            done = [i for i, key in enumerate(self._pending) if key in answered]
            self._pending = self._pending[(done[-1] if done else -1) + 2 :]  # skip the config the child died on
        return values


def evaluate_config_files(paths: list[Path]) -> dict[Path, Any]:
    """Evaluate config files in a limited child process (see :class:`ConfigEvaluation`)."""
    return ConfigEvaluation(paths).result()


def _start_child(paths: list[str]) -> subprocess.Popen[bytes] | None:
    memory_mb = int(_positive("GENBENCH_JSONNET_MEMORY_MB", DEFAULT_MEMORY_MB))
    command = [sys.executable, "-s", str(WORKER_SCRIPT), str(memory_mb)]
    try:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return None
    stdin, child.stdin = child.stdin, None  # written and closed here; communicate() then only reads
    assert stdin is not None  # noqa: S101 - PIPE
    try:
        stdin.write(json.dumps(paths).encode())  # small; the child reads it all before answering
        stdin.close()
    except OSError:  # the child died at once: its answers are simply missing
        pass
    return child


def _collect(child: subprocess.Popen[bytes], paths: list[str]) -> tuple[dict[str, Any], bool]:
    """The child's answers, and whether it went through the whole list."""
    timeout = _positive("GENBENCH_JSONNET_TIMEOUT", DEFAULT_TIMEOUT_S) + PER_CONFIG_TIMEOUT_S * len(paths)
    try:
        output, _ = child.communicate(timeout=timeout)
        finished = child.returncode == 0
    except subprocess.TimeoutExpired:  # keep what was answered before the limit
        child.kill()
        output, _ = child.communicate()
        finished = False
    wanted = set(paths)
    answered: dict[str, Any] = {}
    for line in (output or b"").splitlines():
        try:
            answer = json.loads(line)
        except ValueError:  # a line cut by a kill
            continue
        if isinstance(answer, list) and len(answer) == 3 and answer[0] in wanted and answer[1]:
            answered[answer[0]] = answer[2]
    return answered, finished
