"""Build locks, and the removal of what killed builds left behind (:func:`sweep_index_dir`).

One OS file lock (``filelock``), taken before any temporary exists, covers a whole build and makes concurrent builds
take turns, so a free lock proves at once that its temporaries are stale (unlike :mod:`genbench._core.temporaries`,
where each temporary is locked by its own writer). See docs/contamination.md#how-the-embedded-index-works.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

logger = logging.getLogger(__name__)

# mkdtemp's random part: 8 characters of [a-z0-9_].
_RANDOM = r"[a-z0-9_]{8}"
_STAGING = re.compile(rf"^\.(?P<name>.+)\.{_RANDOM}\.staging$")
_OLD = re.compile(r"^\.(?P<name>.+)\.old$")
_TABLE_TMP = re.compile(rf"^\.ngram-(?P<n>[0-9]+)\.{_RANDOM}\.tmp$")


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
    """Whether no live process holds the build lock of ``name`` (taking and releasing it at once).

    A lock that cannot be taken at all (another user's folder, read-only) counts as held: nothing is removed.
    """
    from filelock import FileLock, Timeout

    lock = FileLock(lock_path(folder, name))
    try:
        lock.acquire(timeout=0)
    except (Timeout, OSError):
        return False
    lock.release()
    return True


def _remove(path: Path) -> None:
    logger.info("Removing %s, left by a build that was stopped.", path)
    shutil.rmtree(path, ignore_errors=True)


def remove_stale_index_leftovers(index_dir: Path, held: str | None) -> list[Path]:
    """Remove the staging and ``.old`` folders of stopped builds in ``index_dir``; returns what was removed.

    Those of ``held`` (whose lock the caller holds) are removed; those of another index only when its lock is free.
    Shard temporaries inside ``.<held>.partial`` are removed too (completed shards are kept: a build resumes from
    them).
    """
    removed: list[Path] = []
    for path in _listing(index_dir):
        match = _STAGING.match(path.name) or _OLD.match(path.name)
        if match is None or not path.is_dir():
            continue
        name = match.group("name")
        if name == held or _free(index_dir, name):
            _remove(path)
            removed.append(path)
    partial = index_dir / f".{held}.partial"
    if held is not None and partial.is_dir():
        for path in sorted(partial.glob(".shard-*")):
            if path.is_dir():
                _remove(path)
                removed.append(path)
    return removed


def sweep_index_dir(index_dir: Path, held: str | None = None) -> list[Path]:
    """Remove what stopped builds left in ``index_dir`` and in its indexes' ``tables/`` folders; returns what was
    removed (or put back).

    Args:
        index_dir: The folder of indexes.
        held: The index whose lock the caller holds (its leftovers need no lock), if any.

    A folder that cannot be listed (another user's) is left as it is: the open or build that follows says why it
    cannot read it.
    """
    if not _listing(index_dir):
        return []
    removed = _restore_replaced(index_dir, held)
    removed += remove_stale_index_leftovers(index_dir, held)
    for index in _listing(index_dir):  # again: an index put back above has its tables too
        tables = index / "tables"
        if index.name.startswith(".") or index.is_symlink() or not tables.is_dir():
            continue
        for path in sorted(tables.glob(".ngram-*.tmp")):
            match = _TABLE_TMP.match(path.name)
            if match is not None and path.is_dir() and _free(tables, f"ngram-{match.group('n')}"):
                _remove(path)
                removed.append(path)
    return removed


def _listing(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def _restore_replaced(index_dir: Path, held: str | None) -> list[Path]:
    """Put back ``.<name>.old`` where a build was killed after moving ``<name>`` aside and before renaming the new
    index into place: readers then find the index as it was before that build, not none."""
    restored = []
    for path in sorted(index_dir.glob(".*.old")):
        match = _OLD.match(path.name)
        if match is None or not path.is_dir() or path.is_symlink():
            continue
        name = match.group("name")
        final = index_dir / name
        if os.path.lexists(final) or not (name == held or _free(index_dir, name)):
            continue
        try:
            os.replace(path, final)
        except OSError:
            continue
        logger.info("Put %s back as %s: the build that was replacing it was stopped.", path, final)
        restored.append(path)
    return restored


def remove_stale_table_leftovers(tables_dir: Path, n: int) -> list[Path]:
    """Remove the temporaries of stopped builds of the ``n``-gram table (the caller holds its lock)."""
    removed = []
    for path in sorted(tables_dir.glob(f".ngram-{n}.*.tmp")):
        if re.fullmatch(rf"\.ngram-{n}\.{_RANDOM}\.tmp", path.name) and path.is_dir():
            _remove(path)
            removed.append(path)
    return removed
