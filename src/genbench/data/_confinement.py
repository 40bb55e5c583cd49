"""Data paths confined to the task directory: what the review (``test-task``) enforces before it reads any data.

Loading is lenient (absolute paths and ``file://`` URIs, as the original allowed); inside
:func:`confined_data_paths` every data path of ``data_source`` must be relative and stay inside the task directory,
judged from its text before anything is opened. See
docs/review.md#what-a-pull-request-can-and-cannot-influence.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from genbench._core.errors import DataLoadError

_CONFINED: ContextVar[bool] = ContextVar("genbench_data_paths_confined", default=False)
# A Windows drive ("C:") or a home directory ("~") names a place outside the task just as "/" does.
_ROOTED = re.compile(r"^(?:[A-Za-z]:|~)")


@contextmanager
def confined_data_paths() -> Iterator[None]:
    """Within the block (this thread and context), data paths must lie inside the task directory.

    >>> with confined_data_paths():
    ...     data_paths_confined()
    True
    >>> data_paths_confined()
    False
    """
    token = _CONFINED.set(True)
    try:
        yield
    finally:
        _CONFINED.reset(token)


def data_paths_confined() -> bool:
    """Whether data paths are confined to the task directory here (see :func:`confined_data_paths`)."""
    return _CONFINED.get()


def leaves_task_dir(path: str) -> bool:
    """Whether ``path`` (a data path as a config writes it) names a place outside the task directory, from its text
    alone: absolute, rooted at a drive or a home directory, or leading out with ``..``.

    >>> [leaves_task_dir(p) for p in ("data/test.jsonl", "/etc/passwd", "../x.jsonl", "a/../../x", "~/x", "C:x")]
    [False, True, True, True, True, True]
    """
    text = path.replace("\\", "/")
    if text.startswith("/") or _ROOTED.match(text):
        return True
    normal = posixpath.normpath(text)
    return normal == ".." or normal.startswith("../")


def check_confined(path: str, *, uri: str, field: str | None) -> None:
    """Refuse ``path`` (the local path that ``uri`` names) when data paths are confined and it leaves the task
    directory. Reads nothing: the message names the config's text only.

    Raises:
        DataLoadError: Confined, and ``path`` is outside the task directory.
    """
    if not data_paths_confined() or not leaves_task_dir(path):
        return
    where = f"{field}: " if field else ""
    shown = uri if len(uri) <= 200 else uri[:200] + "..."
    raise DataLoadError(
        f"{where}data path {shown!r} lies outside the task directory. A task under review reads only files inside "
        "its own directory, so it was not read: copy the file into the task directory and give its relative path "
        "(e.g. 'test.jsonl'), or an https:// URI."
    )


__all__ = ["check_confined", "confined_data_paths", "data_paths_confined", "leaves_task_dir"]
