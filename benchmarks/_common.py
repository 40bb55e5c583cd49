"""Shared helpers of the benchmark scripts: timing statistics, the machine description and the results files.

Every script measures genbench and its anchor in the same run, N times each (N >= 5), and reports the minimum and
the median of each figure; ratios are medians over medians of the same run, never extrapolated.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"
LOADAVG_AT_START = list(os.getloadavg())
REPO_ROOT = Path(__file__).resolve().parent.parent


def summary(seconds: list[float]) -> dict[str, Any]:
    """Minimum, median and every run of a list of timings."""
    return {"min": min(seconds), "median": statistics.median(seconds), "runs": list(seconds)}


def time_calls(function: Callable[[], Any], runs: int) -> tuple[list[float], Any]:
    """Wall seconds of ``runs`` calls of ``function``, and the last call's value."""
    seconds, value = [], None
    for _ in range(runs):
        start = time.perf_counter()
        value = function()
        seconds.append(time.perf_counter() - start)
    return seconds, value


def run_process(command: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> float:
    """Wall seconds of a child process (interpreter start and imports included); raises if it fails."""
    start = time.perf_counter()
    completed = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:3])} ... failed:\n{completed.stdout}\n{completed.stderr}")
    return seconds


def versions(*packages: str) -> dict[str, str]:
    found = {}
    for package in packages:
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def machine() -> dict[str, Any]:
    """What the figures were measured on; the load average says how busy the machine was."""
    cpu_model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu_model or platform.processor(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "loadavg_at_start": LOADAVG_AT_START,
        "loadavg": list(os.getloadavg()),
    }


def write_results(name: str, payload: dict[str, Any]) -> Path:
    """Write ``benchmarks/results/<name>.json`` (atomically) with the date, machine and ``payload``."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    document = {
        "benchmark": name,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine(),
        **payload,
    }
    path = RESULTS_DIR / f"{name}.json"
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path


def ratio(anchor: dict[str, Any], ours: dict[str, Any]) -> float:
    """Median of the anchor over median of ours (both from this run)."""
    return anchor["median"] / ours["median"]


def row(label: str, figure: dict[str, Any], unit: str = "s") -> str:
    return f"  {label:<58} min {figure['min']:8.3f} {unit}   median {figure['median']:8.3f} {unit}"
