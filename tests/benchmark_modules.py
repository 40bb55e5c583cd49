"""The helper modules of ``benchmarks/`` that tests share, imported by path.

``benchmarks/`` is not a package and is copied alone (without ``tests/``) to the machine of the GPU check
(``benchmarks/gpu_device_run.sh``), so what both need lives there and the tests import it from its file: the tiny
GPT-2 (``_run_models.py``) and the results document (``_results_document.py``). A module is loaded once per process
and kept in ``sys.modules`` under ``benchmarks_<name>``, so every test sees the same objects.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def benchmark_module(name: str) -> ModuleType:
    """The module ``benchmarks/<name>.py`` (e.g. ``_run_models``), imported on first use."""
    key = f"benchmarks_{name.lstrip('_')}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, BENCHMARKS / f"{name}.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"{BENCHMARKS / f'{name}.py'} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[key]
        raise
    return module
