"""Temporary files and folders in the cache: written under a lock, renamed into place, removed when a run died.

A download streams into ``.<name>.<random>.tmp`` next to its final name (a saved dataset into a folder named
the same way). While the writing process lives it holds an exclusive lock on that file or folder, so the
next run can tell a killed run's leftover (nobody holds the lock) from a concurrent run's work in progress (the
lock is held) and removes only the former (:mod:`genbench._core.temporaries`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from genbench._core.files import follow_umask
from genbench._core.temporaries import STALE_AFTER_S, TMP_SUFFIX, lock_exclusive, remove_stale_temporaries

__all__ = [
    "STALE_AFTER_S",
    "TMP_SUFFIX",
    "remove_stale_temporaries",
    "replace_directory",
    "scratch_directory",
    "staged_directory",
    "staged_file",
]

logger = logging.getLogger(__name__)


@contextlib.contextmanager
def staged_file(target: Path) -> Iterator[tuple[IO[bytes], Path]]:
    """A locked temporary file next to ``target``: renamed onto it when the block succeeds, removed otherwise.

    Yields:
        The open binary file and its path (to read it back for validation before the rename).

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "data.jsonl"
    >>> with staged_file(target) as (out, _):
    ...     _ = out.write(b'{"a": 1}\\n')
    >>> target.read_bytes()
    b'{"a": 1}\\n'
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TMP_SUFFIX, dir=target.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "w+b") as handle:
            lock_exclusive(handle.fileno())  # locked first: a cleaner may see the file from the moment mkstemp made it
            follow_umask(handle.fileno())  # mkstemp makes it 0600: the cache is the user's, as open() would make it
            yield handle, tmp
            handle.flush()
            os.fsync(handle.fileno())
            os.replace(tmp, target)  # while still locked: a cleaner never sees an unlocked, fresh temporary
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


@contextlib.contextmanager
def staged_directory(target: Path) -> Iterator[Path]:
    """A locked temporary folder next to ``target``: it replaces ``target`` when the block succeeds, else is removed.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "saved"
    >>> with staged_directory(target) as stage:
    ...     _ = (stage / "part.arrow").write_bytes(b"...")
    >>> sorted(path.name for path in target.iterdir())
    ['part.arrow']
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=TMP_SUFFIX, dir=target.parent))
    fd = os.open(stage, os.O_RDONLY)
    try:
        lock_exclusive(fd)  # locked first: a cleaner may see the folder from the moment mkdtemp made it
        follow_umask(stage, directory=True)  # mkdtemp made it 0700; it becomes the cached folder
        yield stage
        replace_directory(stage, target)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def scratch_directory(parent: Path) -> Iterator[Path]:
    """A locked temporary folder in ``parent``, removed with its content when the block ends.

    >>> import tempfile, pathlib
    >>> parent = pathlib.Path(tempfile.mkdtemp())
    >>> with scratch_directory(parent) as scratch:
    ...     _ = (scratch / "x").write_text("x")
    >>> list(parent.iterdir())
    []
    """
    parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".scratch.", suffix=TMP_SUFFIX, dir=parent))
    fd = os.open(scratch, os.O_RDONLY)
    try:
        lock_exclusive(fd)
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        os.close(fd)


def replace_directory(source: Path, target: Path) -> None:
    """Put the folder ``source`` at ``target`` (same file system), replacing any folder there.

    A folder cannot be renamed over a non-empty one, so an existing ``target`` is first renamed aside to a
    ``*.tmp`` name (removed here, or by the next run's cleanup if this one is killed).
    """
    if target.exists():
        aside = target.with_name(f".{target.name}.old-{uuid.uuid4().hex[:8]}{TMP_SUFFIX}")
        os.replace(target, aside)
        os.replace(source, target)
        shutil.rmtree(aside, ignore_errors=True)
    else:
        os.replace(source, target)
