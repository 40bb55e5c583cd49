"""The test side of the lm-evaluation-harness parity test: finding the reference venv, failing with lm-eval's output.

Writing genbench's prompts as lm-evaluation-harness tasks and running lm-eval in its own venv is
``benchmarks/_lmeval.py`` (:data:`lmeval_side`), which ``benchmarks/run_vs_lmeval.py`` runs too: imported from its
file, as ``benchmarks/`` travels without ``tests/`` to the GPU check. lm-evaluation-harness lives in its own virtual
environment (``make lmeval-venv``: ``.venvs/lmeval``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.benchmark_modules import benchmark_module

lmeval_side = benchmark_module("_lmeval")
LMEVAL_VERSION: str = lmeval_side.LMEVAL_VERSION
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_VENV = REPO_ROOT / ".venvs" / "lmeval"
PYTHON_VARIABLE = "GENBENCH_LMEVAL_PYTHON"
SETUP = f"make lmeval-venv (or set GENBENCH_LMEVAL_PYTHON to the python of a venv with lm-eval[hf]=={LMEVAL_VERSION})"


def reference_python() -> Path:
    """The python of the reference venv; fails the test where it is required, skips a bare local run without it.

    Required: ``GENBENCH_LMEVAL_PYTHON`` set (``make test`` sets it) or ``CI`` set. Otherwise the default
    ``.venvs/lmeval`` is used when it exists, and the test is skipped, saying how to make it, when it does not.
    """
    named = os.environ.get(PYTHON_VARIABLE)
    python = Path(named) if named else DEFAULT_VENV / "bin" / "python"
    if python.is_file() and os.access(python, os.X_OK):
        return python
    if named:
        pytest.fail(f"{PYTHON_VARIABLE}={named} is not an executable python: run {SETUP}", pytrace=False)
    if os.environ.get("CI"):
        pytest.fail(
            f"CI is set and the lm-evaluation-harness reference venv is missing ({python}): run {SETUP}",
            pytrace=False,
        )
    pytest.skip(f"no lm-evaluation-harness reference venv at {python}: run {SETUP}")


def lmeval_answers(python: Path, scratch: Path, models: dict[str, Path], **requests: Any) -> dict[str, Any]:
    """``_lmeval.lmeval_answers`` on one thread; a failure of the reference script fails the test with its output."""
    # one thread: the models are tiny, and under `make test` two workers share two cores: two threads a process
    # spin against each other (the whole parity module took 56 s instead of 22 s on a busy 2-core machine)
    env = lmeval_side.lmeval_environment(OMP_NUM_THREADS="1")
    try:
        return lmeval_side.lmeval_answers(python, scratch, models, env=env, **requests)  # type: ignore[no-any-return]
    except lmeval_side.LmevalFailed as failure:
        pytest.fail(str(failure), pytrace=False)
