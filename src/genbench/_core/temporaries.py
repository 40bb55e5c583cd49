"""Temporaries that a killed writer left behind, told apart from a live writer's by a lock, and removed.

Every temporary genbench writes is locked by its writer (``filelock``'s native lock on the open descriptor) until it
is renamed or removed; the kernel drops the lock however the writer dies, so an unlocked temporary older than
:data:`STALE_AFTER_S` is a leftover, and a locked one is never touched. Without a native lock, a temporary counts as
stale once a day old. See docs/data.md#the-download-cache.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import sys
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

logger = logging.getLogger(__name__)

TMP_SUFFIX = ".tmp"
STALE_AFTER_S = 60.0
"""A temporary untouched this long, and not locked, is a leftover of a killed run (younger ones may be between
their creation and their lock)."""
NO_LOCKS_STALE_AFTER_S = 24 * 3600.0


def lock_exclusive(fd: int) -> None:
    """Hold an exclusive lock on an open temporary (file or folder) until ``fd`` is closed or its process dies."""
    if native_locks():
        from filelock import lock_descriptor  # filelock: ~50 ms to import, needed only once something is written

        lock_descriptor(fd)


def is_unlocked(path: Path) -> bool:
    """Whether no process holds the lock of ``path`` (always True where the platform has no native lock)."""
    if not native_locks():
        return True
    from filelock import lock_descriptor

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        return lock_descriptor(fd, blocking=False)
    finally:
        os.close(fd)  # releases the lock


@cache
def native_locks() -> bool:
    """Whether this platform has the native lock that tells a live writer's temporary from a leftover."""
    import filelock

    return sys.platform == "win32" or filelock.unix_has_fcntl


def remove_stale_temporaries(
    directory: Path,
    *,
    stale_after_s: float = STALE_AFTER_S,
    recursive: bool = True,
    is_temporary: Callable[[str], bool] | None = None,
) -> list[Path]:
    """Remove the temporaries in ``directory`` (and below when ``recursive``) left by writers that were killed.

    Args:
        directory: Where to look (nothing happens if it is missing).
        stale_after_s: The least age (since the last change) of a temporary that is removed.
        recursive: Also look in subfolders (never inside a temporary folder, nor through links).
        is_temporary: Which names are temporaries (default: hidden names ending in ``.tmp``; cached files never
            start with a dot, even when their URL ends in ``.tmp``).

    Returns:
        The removed files and folders.

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
    matches = is_temporary or _hidden_tmp
    removed = []
    now = time.time()
    if not native_locks():
        stale_after_s = max(stale_after_s, NO_LOCKS_STALE_AFTER_S)  # no locks to tell a live writer: wait a day
    for path in _temporaries(directory, matches, recursive):
        try:
            if path.is_symlink() or now - path.lstat().st_mtime < stale_after_s:
                continue
            if path.is_dir() and is_unlocked(path):
                shutil.rmtree(path)
            elif path.is_file() and is_unlocked(path):
                path.unlink()
            else:
                continue
        except OSError:  # vanished meanwhile, or not ours to remove: leave it
            continue
        removed.append(path)
        logger.info("Removed %s, left over by a genbench process that was killed while writing it.", path)
    return removed


def _hidden_tmp(name: str) -> bool:
    return name.startswith(".") and name.endswith(TMP_SUFFIX)


def _temporaries(directory: Path, matches: Callable[[str], bool], recursive: bool) -> list[Path]:
    """The temporaries in ``directory``, not descending into them (a live staging folder's content is its writer's
    business) nor following links."""
    found = []
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return []
    for entry in entries:
        if matches(entry.name):
            found.append(entry)
        elif recursive and entry.is_dir() and not entry.is_symlink():
            found += _temporaries(entry, matches, recursive)
    return found


ATOMIC_SUFFIX = ".genbench.tmp"
"""The suffix of :func:`genbench._core.files.atomic_open`'s temporaries: distinct enough that a sweep of a user's
folder removes only genbench's own leftovers."""
_ATOMIC_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}" + re.escape(ATOMIC_SUFFIX) + "$", re.DOTALL)


def is_atomic_temporary(name: str) -> bool:
    """Whether ``name`` is a temporary of :func:`~genbench._core.files.atomic_open`
    (``.<name>.<8 random>.genbench.tmp``).

    >>> is_atomic_temporary(".results.json.k3j_9x0a.genbench.tmp"), is_atomic_temporary(".notes.tmp")
    (True, False)
    """
    return bool(_ATOMIC_NAME.match(name))


_swept_folders: set[str] = set()


def sweep_once(directory: Path) -> list[Path]:
    """Remove :func:`atomic_open`'s stale temporaries in ``directory`` (not below), once per process and folder."""
    key = os.path.abspath(directory)
    if key in _swept_folders:
        return []
    _swept_folders.add(key)
    return remove_stale_temporaries(directory, recursive=False, is_temporary=is_atomic_temporary)
