"""The jsonnet evaluation worker: a child process with a memory limit, started by :mod:`genbench.config.sandbox`.

Run as a script by its path (``python -I -S jsonnet_worker.py MEMORY_MB JSONNET_DIR``), so it imports nothing of
genbench: only the standard library and the ``_jsonnet`` extension. It reads one JSON request per line on stdin
(``{"filename", "text", "root"}``) and answers one JSON line on stdout: ``{"ok": "<the evaluated JSON>"}`` or
``{"error": "<jsonnet's message>"}``. The jsonnet C++ library aborts the whole process when an allocation fails,
so it runs here, under ``RLIMIT_AS``, where such an abort only ends this worker; the parent enforces the time
limit by killing it.
"""

from __future__ import annotations

import json
import os
import sys


def confined_import_callback(root: str):
    """An import callback that reads only files inside ``root`` (the task directory)."""
    real_root = os.path.realpath(root)

    def callback(importing_dir: str, rel: str) -> tuple[str, bytes]:
        target = os.path.realpath(os.path.join(importing_dir, rel))
        if os.path.commonpath([real_root, target]) != real_root:
            raise RuntimeError(f"imports are confined to the task directory {real_root}; {rel!r} is outside it")
        if not os.path.isfile(target):
            raise RuntimeError(f"no such file {target}")
        with open(target, "rb") as handle:
            content = handle.read()
        if b"\x00" in content:
            raise RuntimeError(f"{target} contains a NUL byte: not a text file")
        return target, content

    return callback


def _limit_memory(megabytes: int) -> None:
    try:
        import resource
    except ImportError:  # not POSIX: the parent evaluates in-process instead
        return
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main() -> None:
    _limit_memory(int(sys.argv[1]))
    if len(sys.argv) > 2 and sys.argv[2]:
        sys.path.append(sys.argv[2])  # started with -I -S: the _jsonnet extension's directory, from the parent
    import _jsonnet

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    for line in stdin:
        request = json.loads(line)
        try:
            result = _jsonnet.evaluate_snippet(
                request["filename"], request["text"], import_callback=confined_import_callback(request["root"])
            )
            answer = {"ok": result}
        except RuntimeError as exc:
            answer = {"error": str(exc)}
        except MemoryError:
            answer = {"memory": True}
        stdout.write(json.dumps(answer).encode("utf-8") + b"\n")
        stdout.flush()


if __name__ == "__main__":
    main()
