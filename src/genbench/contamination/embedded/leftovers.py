"""Build locks, and the removal of what killed builds left behind.

A build writes temporaries next to its result: ``<index dir>/.<name>.XXXXXXXX.staging/`` (the merged index before
its rename), ``<partial>/.shard-NNNNNN.XXXXXXXX/`` (a shard before its rename),
``<index>/tables/.ngram-N.XXXXXXXX.tmp/`` (an n-gram table before its rename) and ``<index dir>/.<name>.old/`` (the
index being replaced). A build that ends normally or with an exception removes its own; one that is killed
(SIGKILL, out of memory, power loss) cannot.

Every build of an index holds its lock, ``<index dir>/.<name>.lock`` (``.ngram-N.lock`` for a table), for as long
as it runs. The lock is an OS file lock (``filelock``: ``flock`` on POSIX, ``msvcrt`` on Windows) that the kernel
releases when its process dies, however it dies; so a temporary whose lock can be taken belongs to no live build
and is removed, while one of a live build (another process building that index now) is left alone. The lock also
makes two concurrent builds of one index take turns: the second waits, then finds the first one's result.

The lock files themselves stay (empty, hidden): deleting a lock file that another process may have opened to wait
on it would let two processes hold "the" lock, which is why ``filelock`` keeps them too.
"""

from __future__ import annotations

import contextlib
import logging
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

logger = logging.getLogger(__name__)

# mkdtemp's random part: 8 characters of [a-z0-9_].
_RANDOM = r"[a-z0-9_]{8}"
_STAGING = re.compile(rf"^\.(?P<name>.+)\.{_RANDOM}\.staging$")
_OLD = re.compile(r"^\.(?P<name>.+)\.old$")


def lock_path(folder: Path, name: str) -> Path:
    """The lock file of the build of ``name`` in ``folder``."""
    return folder / f".{name}.lock"


@contextlib.contextmanager
def build_lock(folder: Path, name: str) -> Iterator[None]:
    """Hold the build lock of ``name`` in ``folder`` (waiting for a concurrent build of it to finish first)."""
    from filelock import FileLock, Timeout

    lock = FileLock(lock_path(folder, name))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        logger.warning("Waiting for another process that is building %s in %s.", name, folder)
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


def _free(folder: Path, name: str) -> bool:
    """Whether no live process holds the build lock of ``name`` (taking and releasing it at once)."""
    from filelock import FileLock, Timeout

    lock = FileLock(lock_path(folder, name))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return False
    lock.release()
    return True


def _remove(path: Path) -> None:
    logger.info("Removing %s, left by a build that was stopped.", path)
    shutil.rmtree(path, ignore_errors=True)


def remove_stale_index_leftovers(index_dir: Path, held: str) -> list[Path]:
    """Remove the staging and ``.old`` folders of stopped builds in ``index_dir``; returns what was removed.

    Those of ``held`` (whose lock the caller holds) are removed; those of another index only when its lock is free.
    Shard temporaries inside ``.<held>.partial`` are removed too (completed shards are kept: a build resumes from
    them).
    """
    removed: list[Path] = []
    if not index_dir.is_dir():
        return removed
    for path in sorted(index_dir.iterdir()):
        match = _STAGING.match(path.name) or _OLD.match(path.name)
        if match is None or not path.is_dir():
            continue
        name = match.group("name")
        if name == held or _free(index_dir, name):
            _remove(path)
            removed.append(path)
    partial = index_dir / f".{held}.partial"
    if partial.is_dir():
        for path in sorted(partial.glob(".shard-*")):
            if path.is_dir():
                _remove(path)
                removed.append(path)
    return removed


def remove_stale_table_leftovers(tables_dir: Path, n: int) -> list[Path]:
    """Remove the temporaries of stopped builds of the ``n``-gram table (the caller holds its lock)."""
    removed = []
    for path in sorted(tables_dir.glob(f".ngram-{n}.*.tmp")):
        if re.fullmatch(rf"\.ngram-{n}\.{_RANDOM}\.tmp", path.name) and path.is_dir():
            _remove(path)
            removed.append(path)
    return removed
