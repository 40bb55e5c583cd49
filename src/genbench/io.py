"""Atomic file writing: a reader never sees a half-written file, and a failed write leaves nothing behind."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file next to ``path``; on success it replaces ``path``, on error it is removed.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_open(target) as f:
    ...     _ = f.write("done")
    >>> target.read_text()
    'done'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_open(path) as handle:
        handle.write(text)


def write_json_atomic(path: str | Path, document: Any, *, indent: int = 2) -> None:
    """Write ``document`` as strict JSON (no NaN/Infinity) to ``path`` atomically, with a final newline."""
    with atomic_open(path) as handle:
        json.dump(document, handle, indent=indent, ensure_ascii=False, allow_nan=False)
        handle.write("\n")
