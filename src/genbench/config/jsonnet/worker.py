"""The jsonnet worker: a child process under a memory limit, started by :mod:`genbench.config.jsonnet.engine`.

Run as a script by its path (``python -I -S worker.py MEMORY_MB EXTENSION_DIR...``), so it imports nothing of
genbench: only the standard library and the jsonnet extensions, found in the directories the parent passes. It
writes ``{"ready": true}`` once started, then reads one JSON request per line on stdin and answers on stdout, one
JSON line per evaluation:

- ``{"text": ..., "filename": ..., "root": ...}`` (one config) is answered by one line;
- ``{"paths": [...]}`` (a batch of config files) is answered by one line per path, in order, so the parent knows
  where a worker that died stopped.

An answer is ``{"ok": "<the evaluated JSON>"}``, ``{"error": "<jsonnet's message>"}`` or ``{"memory": true}``.

One config is evaluated by the C++ library (``_jsonnet``), whose behaviour genbench documents: its error messages,
with their line and column, are the ones reported. A batch is evaluated by the Go library (``_gojsonnet``) when it
is installed: the same language, but about 100 times faster per config, as it sets its standard library up once
rather than per file. Where the two differ, the C++ library's answer counts: the parent reports none of the Go
library's messages (``Field does not exist`` for ``field does not exist``, another format for syntax errors) but
evaluates a config that failed in the batch again alone, and the batch answers no value for a config that names a
function only the Go library has (:data:`GO_ONLY`).

The C++ library aborts the whole process when an allocation fails, which here ends only this worker; the parent
enforces the time limit by killing it. Every import is confined to the evaluated file's root directory
(:func:`confined_import_callback`).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType

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


GO_ONLY = re.compile(rb"""(?:\.\s*|['"])(?:sha1|sha256|sha512|sha3|id|\$flatMapArray|\$objectFlatMerge)\b""")
"""Where a file names a standard-library field that only the Go library has (the C++ library's ``std.sha256`` is an
error, ``std.id`` is missing): ``.name`` or a quoted ``'name'``. A batch leaves such a config to the C++ library."""


class _BatchImports:
    """The import callback of one config in a batch: confined as :func:`confined_import_callback`, and recording.

    It raises nothing into the library (the Go binding garbles the message of an exception raised in a callback,
    reading past its end): a refused import is recorded and answered with a stand-in text, and the config's answer
    is then an error whatever the stand-in evaluated to.
    """

    def __init__(self, root: str) -> None:
        self._confined = confined_import_callback(root)
        self.refused: list[str] = []
        self.go_only = False

    def __call__(self, importing_dir: str, rel: str) -> tuple[str, bytes]:
        try:
            found, content = self._confined(importing_dir, rel)
        except Exception as exc:  # noqa: BLE001 - refused, missing or unreadable: recorded, never raised
            self.refused.append(str(exc))
            return os.path.join(importing_dir, rel), b"error 'import refused'"
        self.go_only = self.go_only or GO_ONLY.search(content) is not None
        return found, content


def evaluate_files(binding: Any, paths: Iterable[str]) -> Iterator[dict[str, Any]]:
    """One answer per config file, in order; each file's imports are confined to its own directory.

    A value is answered only where the C++ library would answer the same: a file that is not UTF-8, holds a NUL
    byte, imports what it may not or names a Go-only function (:data:`GO_ONLY`) answers an error, and the parent
    evaluates it alone, which says why.
    """
    for path in paths:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            if b"\x00" in data or GO_ONLY.search(data):
                raise ValueError("contains a NUL byte or names a function only the Go library has")
            imports = _BatchImports(os.path.dirname(path))
            answer = evaluate_text(binding, path, data.decode("utf-8"), imports)
            if "ok" in answer and (imports.refused or imports.go_only):
                answer = {"error": "; ".join(imports.refused) or "imports a file naming a Go-only function"}
            yield answer
        except Exception as exc:  # noqa: BLE001 - any failure is this file's, for the parent to report
            yield {"error": f"{type(exc).__name__}: {exc}"}


def batch_binding() -> ModuleType:
    """The library for batches: the Go one where installed, else the C++ one."""
    try:
        import _gojsonnet
    except ImportError:
        import _jsonnet

        return _jsonnet
    return _gojsonnet


class _Libraries:
    """The worker's jsonnet libraries, under a limit of ``memory_mb`` MiB beyond the address space they hold.

    The C++ library is loaded at start, the batch library on the first batch: the Go runtime reserves about 1.5 GiB
    of address space on its first evaluation, so the limit is lifted for that and set again above what the worker
    then holds (a process may raise its own soft limit; jsonnet code cannot). Where the address space cannot be
    measured (no ``/proc``) the limit is ``memory_mb`` in all and batches use the C++ library.
    """

    def __init__(self, memory_mb: int) -> None:
        import _jsonnet

        self.single: ModuleType = _jsonnet
        self._batch: ModuleType | None = None
        self._memory_mb = memory_mb
        self._limit()

    def batch(self) -> ModuleType:
        """The batch library, loaded on first use."""
        if self._batch is None:
            if _address_space_in_use() is None:
                self._batch = self.single
            else:
                self._limit(lift=True)
                self._batch = batch_binding()
                self._batch.evaluate_snippet("warm-up", "{}")
                self._limit()
        return self._batch

    def _limit(self, *, lift: bool = False) -> None:
        try:
            import resource
        except ImportError:  # not POSIX: the parent evaluates in-process instead
            return
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = hard if lift else (_address_space_in_use() or 0) + self._memory_mb * 1024 * 1024
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
    libraries = _Libraries(int(sys.argv[1]))
    stdout = sys.stdout.buffer
    stdout.write(b'{"ready": true}\n')  # started: the parent's deadline for the first answer begins now
    stdout.flush()
    for line in sys.stdin.buffer:
        request = json.loads(line)
        if "paths" in request:
            answers = evaluate_files(libraries.batch(), request["paths"])
        else:
            callback = confined_import_callback(request["root"])
            answers = iter([evaluate_text(libraries.single, request["filename"], request["text"], callback)])
        for answer in answers:
            stdout.write(json.dumps(answer).encode("utf-8") + b"\n")
            stdout.flush()


if __name__ == "__main__":
    main()
