"""Time the two JSON depth guards on ordinary and adversarial inputs, in any checkout (before/after comparisons).

Usage::

    PYTHONPATH=<checkout>/src python benchmarks/json_depth_guards.py [label ...]

The strict reader's guard (``genbench._core.json_files``: whole documents, 200 levels) and pyarrow's
(``genbench.data._json_nesting``: each line, 4096 levels) are timed through the names every checkout has: before
``genbench._core.json_depth`` existed the reader's guard was ``json_files._too_deep`` (regular-expression passes,
one per level). Run it with two checkouts' ``src`` one after the other on a quiet machine and compare the medians;
labels given on the command line select the cases whose name contains one of them. Prints min and median of 5 runs
(3 for the slowest case); writes no results file (there is no anchor to run in the same process).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from genbench._core.errors import DamagedFileError
from genbench._core.json_files import loads_strict
from genbench.data._json_nesting import a_line_nests_deeper_than, max_nesting

try:
    from genbench._core.json_depth import nests_deeper_than as reader_guard
except ImportError:  # a checkout from before the one counter
    from genbench._core.json_files import _too_deep  # type: ignore[attr-defined]

    def reader_guard(text: str, limit: int) -> bool:
        return text.count("[") + text.count("{") > limit and _too_deep(text, limit)


def timed(function: Callable[[], Any], runs: int) -> tuple[float, float, Any]:
    seconds, value = [], None
    for _ in range(runs):
        start = time.perf_counter()
        value = function()
        seconds.append(time.perf_counter() - start)
    return min(seconds), statistics.median(seconds), value


def refused(text: str) -> bool:
    try:
        loads_strict(text, source="bench")
    except DamagedFileError:
        return True
    return False


def main() -> None:
    metrics = {f"m{i}": {"value": 0.5, "ci": [0.4, 0.6], "ci_method": "bootstrap_mean"} for i in range(300)}
    results = json.dumps({"evaluations": [{"shots": s, "metrics": metrics} for s in range(3)]}, indent=2)
    objects = json.dumps([{"a": [1, 2], "b": {"c": [3]}} for _ in range(500_000)])
    deep = "[" * 100_000 + "]" * 100_000
    chains = "[" + ",".join(["[" * 150 + "]" * 150] * 30_000) + "]"
    row = {"messages": [{"role": "user", "content": "what is 2 plus 2? " * 20}, {"role": "assistant", "content": "4"}]}
    chat = (json.dumps(row) + "\n").encode() * 150_000
    lists = (json.dumps({"a": [[i] for i in range(5000)]}) + "\n").encode() * 200
    line_chains = b"[" + b",".join([b"[" * 4000 + b"]" * 4000] * 2000) + b"]\n"
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("reader guard: results file, 3 x 300 metrics", lambda: reader_guard(results, 200)),
        ("reader guard: 500,000 objects 4 deep, 15 MB", lambda: reader_guard(objects, 200)),
        ("reader guard: nested 100,000 deep", lambda: reader_guard(deep, 200)),
        ("reader guard: 30,000 chains 151 deep, 8 MB", lambda: reader_guard(chains, 200)),
        ("loads_strict: results file", lambda: refused(results)),
        ("loads_strict: nested 100,000 deep", lambda: refused(deep)),
        ("arrow guard: 63 MB of chat rows", lambda: a_line_nests_deeper_than(chat)),
        ("arrow guard: 200 lines of 5,000 [[i]], 7 MB", lambda: a_line_nests_deeper_than(lists)),
        ("arrow guard: a 15 MB line of 2,000 chains 4,001 deep", lambda: a_line_nests_deeper_than(line_chains)),
        ("max_nesting: the same line", lambda: max_nesting(line_chains)),
    ]
    wanted = sys.argv[1:]
    for label, function in cases:
        if wanted and not any(word in label for word in wanted):
            continue
        low, median, value = timed(function, 3 if "chains 151" in label else 5)
        print(f"{label:<55} min {low:8.4f} s   median {median:8.4f} s   -> {value}", flush=True)


if __name__ == "__main__":
    main()
