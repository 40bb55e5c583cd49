"""Atomic file writing: a reader never sees a half-written file, and a failed write leaves nothing behind."""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from genbench._core.errors import OutputError
from genbench._core.temporaries import ATOMIC_SUFFIX, lock_exclusive, sweep_once


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file next to ``path``; on success it replaces ``path``, on error it is removed.

    The temporary (``.<name>.<random>.genbench.tmp``) is locked while it is written; a process killed meanwhile
    leaves it unlocked, and the first ``atomic_open`` in that folder of a later process removes it once it is a
    minute old (:func:`genbench._core.temporaries.sweep_once`).

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_open(target) as f:
    ...     _ = f.write("done")
    >>> target.read_text()
    'done'
    """
    path = Path(path)
    prepare_output_dir(path.parent)
    sweep_once(path.parent)  # leftovers of writers killed earlier in this folder (unlocked, a minute old)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=ATOMIC_SUFFIX, dir=path.parent)
    except OSError as exc:
        raise _output_error(path, exc) from None
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as handle:
            lock_exclusive(handle.fileno())  # held until closed or killed: the sweep tells live writers by it
            follow_umask(handle.fileno())  # mkstemp makes it 0600: give it the mode open(path, "w") would
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.replace(tmp, path)
        except OSError as exc:
            raise _output_error(path, exc) from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process's umask, read without changing it where the system allows.

    Read on every call rather than once at import, so that a umask set later (by a server at start, by a test) is
    followed. On Linux (4.7 and later) ``/proc/self/status`` shows it (``Umask:\t0022``): reading it there is
    race-free and costs microseconds, nothing next to the fsync of an atomic write. Elsewhere the only way is
    ``os.umask(0)`` then restoring it, which is not thread-safe: it is done under a lock, so two genbench threads
    never see each other's 0; a thread outside genbench that creates a file in the microseconds between the two
    calls would create it with the umask 0, a risk only on systems without ``/proc``.

    >>> old = os.umask(0o027)
    >>> oct(current_umask())
    '0o27'
    >>> _ = os.umask(old)
    """
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8) & 0o777
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0)
        os.umask(mask)
    return mask


def follow_umask(target: int | str | os.PathLike[str], *, directory: bool = False) -> None:
    """Give a file (an open descriptor or a path) or a folder made private by ``tempfile`` (``mkstemp``: 0600,
    ``mkdtemp``: 0700) the mode a plain ``open(path, "w")`` or ``mkdir`` gives: 0666 (folders 0777) less the umask.

    Every file genbench leaves for a user (results, logs, site pages, reports, indexes, the data cache) is created
    this way; only scratch space that is removed again stays private.

    >>> import tempfile, stat
    >>> old = os.umask(0o022)
    >>> fd, name = tempfile.mkstemp()
    >>> follow_umask(fd)
    >>> oct(stat.S_IMODE(os.stat(name).st_mode))
    '0o644'
    >>> _ = os.umask(old); os.close(fd); os.unlink(name)
    """
    mode = (0o777 if directory else 0o666) & ~current_umask()
    if isinstance(target, int):
        if hasattr(os, "fchmod"):
            os.fchmod(target, mode)
    else:
        os.chmod(target, mode)


def prepare_output_dir(path: str | os.PathLike[str]) -> Path:
    """Create the output folder ``path`` (and its parents) if needed and check that it can be written to.

    Raises:
        OutputError: it cannot be created (a part of the path is a file, a read-only or missing location) or is
            not writable; the message names the folder and the reason.

    >>> import tempfile, pathlib
    >>> base = pathlib.Path(tempfile.mkdtemp())
    >>> prepare_output_dir(base / "results" / "run1").is_dir()
    True
    >>> _ = (base / "file.txt").write_text("")
    >>> prepare_output_dir(base / "file.txt" / "out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genbench._core.errors.OutputError: Cannot write to the output folder .../file.txt/out: ... Choose another folder.
    """
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _output_error(folder, exc, "output folder") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _output_error(folder, PermissionError(13, "Permission denied"), "output folder")
    return folder


def _output_error(path: Path, exc: OSError, what: str = "output file") -> Exception:
    reason = exc.strerror or str(exc)
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        reason += " (a part of the path is a file, not a folder)"
    elif isinstance(exc, FileNotFoundError):
        reason += " (a parent folder cannot be created there)"
    # No `.filename`: on an OSError subclass it would replace the message with "[Errno None] None: ...".
    return OutputError(f"Cannot write to the {what} {path}: {reason}. Choose another folder.")


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_open(path) as handle:
        handle.write(text)


def write_json_atomic(path: str | Path, document: object, *, indent: int = 2) -> None:
    """Write ``document`` as strict JSON (no NaN/Infinity) to ``path`` atomically, with a final newline."""
    with atomic_open(path) as handle:
        json.dump(document, handle, indent=indent, ensure_ascii=False, allow_nan=False)
        handle.write("\n")


def to_jsonable(value: object) -> Any:
    """Metric values as plain strict JSON: mappings and tuples converted, numpy scalars and arrays unwrapped,
    non-finite floats as ``None``, anything else as its string.

    >>> import numpy as np
    >>> to_jsonable({"a": np.float64(0.5), "b": [np.int64(2), float("nan")], "c": np.array([1, 2])})
    {'a': 0.5, 'b': [2, None], 'c': [1, 2]}
    """
    if isinstance(value, Mapping):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    if hasattr(value, "tolist") and callable(value.tolist):  # numpy scalars and arrays
        return to_jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
