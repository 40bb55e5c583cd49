"""The limits a jsonnet evaluation runs under, read from the environment, and the error that says one was exceeded.

``GENBENCH_JSONNET_MEMORY_MB`` (default :data:`DEFAULT_MEMORY_MB`): the address space the worker may map beyond
what it holds once its jsonnet libraries are loaded. ``GENBENCH_JSONNET_TIMEOUT`` (default
:data:`DEFAULT_TIMEOUT_S` seconds): how long one config may take, alone or in a batch (the worker's start is not
counted).
"""

from __future__ import annotations

import os

from genbench._core.settings import positive_env_number

DEFAULT_MEMORY_MB = 512
"""MiB of address space a worker may map for evaluating (a config needs a few)."""
DEFAULT_TIMEOUT_S = 5.0
"""Seconds one config may take to evaluate (a config takes milliseconds)."""
MEMORY_VARIABLE = "GENBENCH_JSONNET_MEMORY_MB"
TIMEOUT_VARIABLE = "GENBENCH_JSONNET_TIMEOUT"


class SandboxLimitError(RuntimeError):
    """The evaluation exceeded a limit or the worker died; the message says which and how to raise the limit."""


def memory_limit_mb() -> int:
    """The worker's memory limit in MiB (``GENBENCH_JSONNET_MEMORY_MB``, default 512).

    Raises:
        ConfigError: the variable is set but not a positive whole number.
    """
    return int(positive_env_number(MEMORY_VARIABLE, DEFAULT_MEMORY_MB, int))


def time_limit_s() -> float:
    """The time one evaluation may take, in seconds (``GENBENCH_JSONNET_TIMEOUT``, default 5).

    Raises:
        ConfigError: the variable is set but not a positive number.
    """
    return positive_env_number(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT_S, float)


def out_of_memory(memory_mb: int) -> SandboxLimitError:
    """The error of an evaluation that ran out of its ``memory_mb``."""
    return SandboxLimitError(
        f"jsonnet evaluation ran out of memory (limit {memory_mb} MiB) and was stopped; a config should need a few "
        f"MiB (raise {MEMORY_VARIABLE} if this one really needs more)"
    )


def out_of_time(timeout: float) -> SandboxLimitError:
    """The error of an evaluation stopped after ``timeout`` seconds."""
    return SandboxLimitError(
        f"jsonnet evaluation took longer than {timeout:g} s and was stopped (a config should evaluate in "
        f"milliseconds; raise {TIMEOUT_VARIABLE} if this one really needs longer)"
    )


def sandbox_available() -> bool:
    """Whether configs are evaluated in the limited worker (POSIX) or in-process without limits (elsewhere)."""
    return os.name == "posix"
