"""Time opening a large request cache: the whole-file check on every open (before) against the recorded state.

Usage::

    python benchmarks/request_cache_open.py [--megabytes 700] [--runs 5]

Fills ``requests.sqlite`` in a temporary directory with answers (through ``RequestCache.put_many``) until it holds
about ``--megabytes``, closes it, then times opening and closing it, alternating in the same run:

- ``check every open``: ``RequestCache(directory, verify=True)``, ``PRAGMA quick_check`` on every open (how every
  open was before the sidecar);
- ``unchanged file``: ``RequestCache(directory)`` as shipped: the file is in the state the sidecar records, so it is
  not read.

The file is in the page cache (it was just written and is read on every checked open): a file read from disk makes
the check slower still. Each open must return the same answers. Reports the minimum and median of each and the ratio
of the medians; ``benchmarks/results/request_cache_open.json`` records them. The temporary directory is removed.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import row, summary, time_calls, versions, write_results  # noqa: E402

from genbench.runs._request_cache import CACHE_FILE, RequestCache  # noqa: E402

VALUE_CHARS = 1500
CHUNK = 2000


def fill(directory: Path, megabytes: int) -> int:
    """Write answers until the cache file holds ``megabytes``; returns how many."""
    cache = RequestCache(directory)
    written = 0
    try:
        while True:
            numbers = range(written, written + CHUNK)
            cache.put_many(
                {hashlib.sha256(str(n).encode()).hexdigest(): (f"{n} " * 300)[:VALUE_CHARS] for n in numbers}
            )
            written += CHUNK
            if (directory / CACHE_FILE).stat().st_size >= megabytes << 20:  # the log is moved in every 16 MiB
                return written
    finally:
        cache.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=700)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="genbench-cache-bench-") as folder:
        directory = Path(folder)
        entries = fill(directory, args.megabytes)
        size = (directory / CACHE_FILE).stat().st_size
        probe = [hashlib.sha256(str(k).encode()).hexdigest() for k in (0, entries // 2, entries - 1)]

        def open_read_close(verify: bool) -> dict:
            cache = RequestCache(directory, verify=verify)
            try:
                return cache.get_many(probe)
            finally:
                cache.close()

        expected = open_read_close(True)
        assert len(expected) == len(probe)
        checked, unchanged = [], []
        for _ in range(args.runs):  # alternated, so both see the same machine
            seconds, answers = time_calls(lambda: open_read_close(True), 1)
            assert answers == expected
            checked += seconds
            seconds, answers = time_calls(lambda: open_read_close(False), 1)
            assert answers == expected
            unchanged += seconds
    figures = {"check every open": summary(checked), "unchanged file": summary(unchanged)}
    speedup = figures["check every open"]["median"] / figures["unchanged file"]["median"]
    print(f"request cache of {size / 2**20:.0f} MiB ({entries} answers), {args.runs} runs each:")
    for label, figure in figures.items():
        print(row(label, figure))
    print(f"  ratio of the medians (check every open / unchanged file): {speedup:.1f}x")
    path = write_results(
        "request_cache_open",
        {
            "cache_bytes": size,
            "entries": entries,
            "runs": args.runs,
            "figures": figures,
            "ratio": speedup,
            "versions": versions("genbench"),
            "sqlite": __import__("sqlite3").sqlite_version,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
