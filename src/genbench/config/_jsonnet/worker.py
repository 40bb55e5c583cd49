"""The jsonnet worker: a child process that evaluates configs with ``_gojsonnet`` under a memory limit.

Started by :mod:`genbench.config._jsonnet.engine` as a script (``python -I -S worker.py MEMORY_MB EXTENSION_DIR...``),
it imports only the standard library and the jsonnet library. It reads one JSON request per line and answers one
JSON line per config: ``{"ok": json_text}``, ``{"error": message}`` or ``{"memory": true}``.
See docs/config.md#jsonnet-evaluation-confined-and-limited.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator

TYPE_CHECKING = False  # the typing module costs the worker's start a few milliseconds: imported for the checker only
if TYPE_CHECKING:
    from typing import Any

ImportCallback = Callable[[str, str], tuple[str, bytes]]


def confined_import_callback(root: str) -> ImportCallback:
    """An import callback that reads only files inside ``root`` (the task directory), symlinks resolved first.

    It raises RuntimeError for a file outside ``root``, missing, or holding a NUL byte.
    """
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


class ConfinedImports:
    """The import callback of one evaluation: :func:`confined_import_callback`, but raising nothing into the library.

    The Go library's C binding reads the message of an error raised in a callback as a NUL-terminated string, which
    the Python binding does not write, so the message comes back garbled (often not even UTF-8). A refused import is
    therefore recorded and answered with stand-in code that stops the evaluation (an ``importstr`` gets the stand-in
    as its text); :meth:`refusal` then gives the library's own message shape for it.
    """

    STAND_IN = b"error 'import refused'"

    def __init__(self, root: str, filename: str, text: str) -> None:
        self._confined = confined_import_callback(root)
        self._sources = {filename: text}  # the files evaluated so far, to find where a refused import is
        self._refused: tuple[str, str, str] | None = None

    def __call__(self, importing_dir: str, rel: str) -> tuple[str, bytes]:
        try:
            found, content = self._confined(importing_dir, rel)
        except Exception as exc:  # noqa: BLE001 - refused, missing or unreadable: recorded, never raised
            if self._refused is None:
                self._refused = (importing_dir, rel, str(exc))
            return os.path.join(importing_dir, rel), self.STAND_IN
        self._sources[found] = content.decode("utf-8", errors="replace")
        return found, content

    def refusal(self) -> str | None:
        """The first refused import as the library reports a failed import, with where it is; None if none was."""
        if self._refused is None:
            return None
        importing_dir, rel, reason = self._refused
        message = f"RUNTIME ERROR: couldn't open import {json.dumps(rel)}: {reason}"
        # The position the library would give is lost with its message: the import is found in the importing
        # file's text (a quoted path right after import, importstr or importbin).
        pattern = re.compile(r"\bimport(?:str|bin)?\s*@?(['\"])" + re.escape(rel) + r"\1")
        for path, text in self._sources.items():
            found = pattern.search(text) if os.path.dirname(path) == importing_dir.rstrip("/") else None
            if found is not None:
                line = text.count("\n", 0, found.start()) + 1
                column = found.start() - text.rfind("\n", 0, found.start())
                return f"{message}\n\t{path}:{line}:{column}\t"
        return message


def evaluate_text(binding: Any, filename: str, text: str, root: str) -> dict[str, Any]:
    """One config's answer: ``{"ok": json_text}``, ``{"error": message}`` or ``{"memory": True}``; its imports are
    confined to ``root``."""
    imports = ConfinedImports(root, filename, text)
    try:
        answer = {"ok": binding.evaluate_snippet(filename, text, import_callback=imports)}
    except RuntimeError as exc:
        answer = {"error": str(exc)}
    except MemoryError:
        return {"memory": True}
    refusal = imports.refusal()
    return answer if refusal is None else {"error": refusal}


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
            yield evaluate_text(binding, path, data.decode("utf-8"), os.path.dirname(path))
        except Exception as exc:  # noqa: BLE001 - any failure is this file's, for the parent to report
            yield {"error": f"{type(exc).__name__}: {exc}"}


def load_library(memory_mb: int) -> Any:
    """The Go jsonnet library, loaded and started, with this process limited to ``memory_mb`` MiB beyond that.

    The Go runtime reserves about 1.5 GiB of address space when it starts (on the first evaluation), far more than
    it uses, so ``RLIMIT_AS`` is set after a first evaluation, above what the process then holds: an evaluation
    that maps ``memory_mb`` MiB more makes the runtime fail to allocate and abort this process (the parent reports
    the memory limit). Where ``/proc`` cannot tell the address space in use, no ``RLIMIT_AS`` is set (a limit in all
    would sit below the runtime's reservation): the runtime's own soft limit (``GOMEMLIMIT``, set by the parent)
    and the parent's time limit remain.
    """
    import _gojsonnet

    _gojsonnet.evaluate_snippet("start", "{}")
    in_use = _address_space_in_use()
    try:
        import resource
    except ImportError:  # not POSIX: the parent evaluates in-process instead
        return _gojsonnet
    if in_use is not None:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = in_use + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
    return _gojsonnet


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
    library = load_library(int(sys.argv[1]))
    stdout = sys.stdout.buffer
    stdout.write(b'{"ready": true}\n')  # started: the parent's deadline for the first answer begins now
    stdout.flush()
    for line in sys.stdin.buffer:
        request = json.loads(line)
        if "paths" in request:
            answers = evaluate_files(library, request["paths"])
        else:
            answers = iter([evaluate_text(library, request["filename"], request["text"], request["root"])])
        for answer in answers:
            stdout.write(json.dumps(answer).encode("utf-8") + b"\n")
            stdout.flush()


if __name__ == "__main__":
    main()
