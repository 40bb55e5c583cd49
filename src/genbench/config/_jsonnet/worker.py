"""The jsonnet worker: a child process under a memory limit, started by :mod:`genbench.config._jsonnet.engine`.

Run as a script by its path (``python -I -S worker.py MEMORY_MB EXTENSION_DIR...``), so it imports nothing of
genbench: only the standard library and the jsonnet extensions, found in the directories the parent passes. It
writes ``{"ready": true}`` once started, then reads one JSON request per line on stdin and answers on stdout, one
JSON line per evaluation:

- ``{"text": ..., "filename": ..., "root": ...}`` (one config) is answered by one line;
- ``{"paths": [...]}`` (a batch of config files) is answered by one line per path, in order, so the parent knows
  where a worker that died stopped.

An answer is ``{"ok": "<the evaluated JSON>"}``, ``{"error": "<jsonnet's message>"}`` or ``{"memory": true}``.

Every config is evaluated by the jsonnet library (the C++ one, ``_jsonnet``, the original framework's), whose error
messages, with their line and column, are the ones genbench reports. It aborts the whole process when an allocation
fails, which here ends only this worker; the parent enforces the time limit by killing it. Every import is confined
to the evaluated file's root directory (:func:`confined_import_callback`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator

TYPE_CHECKING = False  # the typing module costs the worker's start a few milliseconds: imported for the checker only
if TYPE_CHECKING:
    from typing import Any

ImportCallback = Callable[[str, str], tuple[str, bytes]]


def confined_import_callback(root: str) -> ImportCallback:
    """An import callback that reads only files inside ``root`` (the task directory), symlinks resolved first."""
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


def evaluate_text(binding: Any, filename: str, text: str, import_callback: ImportCallback) -> dict[str, Any]:
    """One config's answer: ``{"ok": json_text}``, ``{"error": message}`` or ``{"memory": True}``."""
    try:
        return {"ok": binding.evaluate_snippet(filename, text, import_callback=import_callback)}
    except RuntimeError as exc:
        return {"error": str(exc)}
    except MemoryError:
        return {"memory": True}


def evaluate_files(binding: Any, paths: Iterable[str]) -> Iterator[dict[str, Any]]:
    """One answer per config file, in order; each file's imports are confined to its own directory.

    A file that is not UTF-8 or holds a NUL byte answers an error; the parent evaluates a config that failed alone,
    which reports why.
    """
    for path in paths:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            if b"\x00" in data:
                raise ValueError("contains a NUL byte")
            yield evaluate_text(binding, path, data.decode("utf-8"), confined_import_callback(os.path.dirname(path)))
        except Exception as exc:  # noqa: BLE001 - any failure is this file's, for the parent to report
            yield {"error": f"{type(exc).__name__}: {exc}"}


def limit_memory(memory_mb: int) -> None:
    """Limit this process to ``memory_mb`` MiB of address space beyond what it holds now (the jsonnet library
    loaded); where ``/proc`` cannot tell what it holds, to ``memory_mb`` in all."""
    try:
        import resource
    except ImportError:  # not POSIX: the parent evaluates in-process instead
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = (_address_space_in_use() or 0) + memory_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space_in_use() -> int | None:
    """This process's address-space size in bytes (``VmSize``), or None where ``/proc`` cannot tell."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError, IndexError):
        return None


def main() -> None:
    """Answer requests until stdin closes (the parent stopped or exited)."""
    sys.path.extend(directory for directory in sys.argv[2:] if directory)  # started with -I -S
    import _jsonnet

    limit_memory(int(sys.argv[1]))
    stdout = sys.stdout.buffer
    stdout.write(b'{"ready": true}\n')  # started: the parent's deadline for the first answer begins now
    stdout.flush()
    for line in sys.stdin.buffer:
        request = json.loads(line)
        if "paths" in request:
            answers = evaluate_files(_jsonnet, request["paths"])
        else:
            callback = confined_import_callback(request["root"])
            answers = iter([evaluate_text(_jsonnet, request["filename"], request["text"], callback)])
        for answer in answers:
            stdout.write(json.dumps(answer).encode("utf-8") + b"\n")
            stdout.flush()


if __name__ == "__main__":
    main()
