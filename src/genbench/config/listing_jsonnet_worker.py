"""The child of :mod:`genbench.config.listing_jsonnet`: evaluates config files and answers one JSON line per file.

Run as a script by its path (``python listing_jsonnet_worker.py MEMORY_MB``), with a list of absolute config paths
as JSON on stdin. It imports only ``json``, ``os``, ``sys`` and the import callback of
:mod:`genbench.config.jsonnet_worker` besides the jsonnet extension, so it starts fast.
Each answer is ``[path, ok, value]``, in the order asked, so the parent knows where a child that died stopped.
"""

import json
import os
import sys

# The one confined import callback, shared with the config loader's worker (a sibling script that imports only the
# standard library); this script runs by its path, so its package is not importable and the folder is added.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jsonnet_worker import confined_import_callback  # noqa: E402

DEFAULT_MEMORY_MB = 512


def _limit_memory(megabytes: int) -> None:
    """Cap the address space at what the process uses now plus ``megabytes`` (the Go runtime reserves its own
    address space when it starts, so the cap is set after a first evaluation)."""
    try:
        import resource

        with open("/proc/self/status", encoding="ascii") as status:
            in_use = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
        limit = in_use + megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, StopIteration, ValueError):
        pass  # no /proc or no rlimits (not Linux): the time limit still holds


def _main() -> None:
    try:
        import _gojsonnet as jsonnet
    except ImportError:
        import _jsonnet as jsonnet  # type: ignore[no-redef]
    jsonnet.evaluate_snippet("warm-up", "{}")
    _limit_memory(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else DEFAULT_MEMORY_MB)
    for path in json.loads(sys.stdin.buffer.read()):
        if not isinstance(path, str):
            continue
        value, ok = None, False
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8")
            if "\x00" not in text:
                root = os.path.dirname(path)
                callback = confined_import_callback(root)
                value = json.loads(jsonnet.evaluate_snippet(path, text, import_callback=callback))
                ok = True
        except (OSError, UnicodeDecodeError, RuntimeError, ValueError):
            pass  # the parent loads this one alone and reports its error
        # One answer per config, in order (a failure too), so the parent knows where a dead child stopped.
        sys.stdout.write(json.dumps([path, ok, value]) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _main()
