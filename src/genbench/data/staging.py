"""Temporary files and folders in the cache: written under a lock, renamed into place, removed when a run died.

A download streams into ``.<name>.<random>.tmp`` next to its final name (a saved dataset into a folder named
the same way). While the writing process lives it holds an exclusive ``flock`` on that file or folder, so the
next run can tell a killed run's leftover (nobody holds the lock) from a concurrent run's work in progress (the
lock is held) and removes only the former. Where ``fcntl`` is missing (Windows), a temporary counts as stale
once it is a day old.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from genbench.core.files import follow_umask

logger = logging.getLogger(__name__)

TMP_SUFFIX = ".tmp"
STALE_AFTER_S = 60.0
"""A temporary file untouched this long, and not locked, is a leftover of a killed run."""

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


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
            if fcntl is not None:  # locked first: a cleaner may see the file from the moment mkstemp made it
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
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
        if fcntl is not None:  # locked first: a cleaner may see the folder from the moment mkdtemp made it
            fcntl.flock(fd, fcntl.LOCK_EX)
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
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
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


def remove_stale_temporaries(directory: Path, *, stale_after_s: float = STALE_AFTER_S) -> list[Path]:
    """Remove the hidden ``.*.tmp`` files and folders in ``directory`` (and below) left by runs that were killed.

    Only hidden names are considered: cached files never start with a dot, even when their URL ends in ``.tmp``.

    A file is removed only when it is older than ``stale_after_s`` and no process holds its lock (without
    ``fcntl``: older than ``stale_after_s``), so a concurrent run's download is never touched.

    Returns:
        The removed files.

    >>> import tempfile, pathlib, os
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> leftover = folder / ".test.jsonl.abc123.tmp"
    >>> _ = leftover.write_bytes(b"partial")
    >>> os.utime(leftover, (0, 0))
    >>> [path.name for path in remove_stale_temporaries(folder)]
    ['.test.jsonl.abc123.tmp']
    """
    if not directory.is_dir():
        return []
    removed = []
    now = time.time()
    if fcntl is None:
        stale_after_s = max(stale_after_s, 24 * 3600.0)  # no locks to tell a live run: wait a day
    for path in _temporaries(directory):
        try:
            if path.is_symlink() or now - path.stat().st_mtime < stale_after_s:
                continue
            if path.is_dir() and _unlocked(path):
                shutil.rmtree(path)
                removed.append(path)
            elif path.is_file() and _unlocked(path):
                path.unlink()
                removed.append(path)
                logger.info("Removed %s, left over by a download that was killed.", path)
        except OSError:  # vanished meanwhile, or not ours to remove: leave it
            continue
    return removed


def _temporaries(directory: Path) -> list[Path]:
    """The hidden ``.*.tmp`` entries below ``directory``, not descending into them (a live staging folder's
    content is its writer's business) nor following links."""
    found = []
    for entry in sorted(directory.iterdir()):
        if entry.name.startswith(".") and entry.name.endswith(TMP_SUFFIX):
            found.append(entry)
        elif entry.is_dir() and not entry.is_symlink():
            found += _temporaries(entry)
    return found


def _unlocked(path: Path) -> bool:
    if fcntl is None:
        return True
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # releases the lock
    return True
