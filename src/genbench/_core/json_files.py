"""The one strict JSON reader for every file genbench reads back (results, per-sample logs, manifests, records).

What Python's ``json`` lets through (``NaN``, a key given twice, nesting deep enough for ``RecursionError``, a FIFO,
an oversized file) is a :class:`~genbench._core.errors.DamagedFileError` naming the file and line. Written around the
standard parser because no library offers these limits (orjson fixes its depth at 1024 and reads no files). The
full list: docs/running_models.md#results-files.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from genbench._core.errors import DamagedFileError
from genbench._core.json_depth import nests_deeper_than

MAX_DEPTH = 200
"""Nesting deeper than this is refused (genbench's own files nest fewer than 10 levels)."""
MAX_FILE_BYTES = 1 << 30
"""A JSON file larger than this (1 GiB) is refused before it is read."""
MAX_LINE_BYTES = 64 << 20
"""A JSON Lines line longer than this (64 MiB) is refused before it is parsed."""


class Digest(Protocol):
    """What :func:`iter_json_lines` needs of a ``hashlib`` object: it is updated with every byte read."""

    def update(self, data: bytes, /) -> None: ...


_FLOAT_DIGITS = 309
"""An integer with this many digits or more may lie beyond the largest float (about 1.8e308)."""
_LONG_DIGIT_RUN = re.compile(rf"\d{{{_FLOAT_DIGITS}}}")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (the file holds a non-finite value)")


class DuplicateKeyError(ValueError):
    """A JSON object gives one key twice (Python's ``json`` would keep the last value, silently)."""

    def __init__(self, key: str):
        super().__init__(f"the key {key!r} appears twice in one object (which of its values is meant?)")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads`` that refuses a key given twice in one object.

    Raises:
        DuplicateKeyError: naming the key.

    >>> json.loads('{"a": 1, "a": 2}', object_pairs_hook=unique_keys)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genbench._core.json_files.DuplicateKeyError: the key 'a' appears twice in one object ...
    """
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return document


def _float_sized_int(text: str) -> int:
    value = int(text)
    if len(text) >= _FLOAT_DIGITS:
        try:
            float(value)
        except OverflowError:
            raise ValueError(
                f"the integer {text[:10]}... ({len(text.lstrip('-'))} digits) is beyond the range of a float"
            ) from None
    return value


def loads_strict(
    data: str | bytes, *, source: str, max_depth: int = MAX_DEPTH, hint: str = "", error: type[Exception] | None = None
) -> Any:
    """Parse one JSON document strictly.

    Args:
        data: The text (bytes are decoded as UTF-8).
        source: What the text is (a file name, ``file:line``), named in the error.
        max_depth: The deepest nesting of arrays and objects allowed.
        hint: What to do about a damaged file, appended to the message.
        error: The :class:`DamagedFileError` subclass (or other genbench error class) to raise.

    Raises:
        DamagedFileError: invalid UTF-8 or JSON, ``NaN``/``Infinity``, nesting deeper than ``max_depth``, a key
            given twice in one object, an integer beyond the range of a float.

    >>> loads_strict('{"a": [1, 2.5]}', source="x.json")
    {'a': [1, 2.5]}
    >>> loads_strict('{"a": NaN}', source="x.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genbench._core.errors.DamagedFileError: x.json: not valid JSON: NaN is not a JSON number ...
    >>> loads_strict('{"value": 0.1, "value": 0.99}', source="x.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genbench._core.errors.DamagedFileError: x.json: not valid JSON: the key 'value' appears twice in one object ...
    """
    raise_as = error or DamagedFileError
    suffix = f" {hint}" if hint else ""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise raise_as(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start}).{suffix}") from None
    if nests_deeper_than(data, max_depth):
        raise raise_as(f"{source}: nested deeper than the {max_depth} levels allowed.{suffix}")
    try:
        # the integer check only where a long run of digits (in a number or a string) makes one possible
        parse_int = _float_sized_int if _LONG_DIGIT_RUN.search(data) else None
        return json.loads(data, parse_constant=_refuse_constant, object_pairs_hook=unique_keys, parse_int=parse_int)
    except RecursionError:  # only when max_depth is set above the interpreter's recursion limit
        raise raise_as(f"{source}: nested too deeply to read.{suffix}") from None
    except ValueError as exc:
        raise raise_as(f"{source}: not valid JSON: {exc}.{suffix}") from None


def open_regular(path: str | os.PathLike[str], *, what: str = "file", error: type[Exception] | None = None) -> int:
    """Open ``path`` for reading and check that it is a regular file, without blocking on a FIFO or device.

    Returns:
        The open file descriptor (the caller closes it).

    Raises:
        DamagedFileError: it is a folder, FIFO, socket or device (a ``FileNotFoundError`` passes through).
    """
    raise_as = error or DamagedFileError
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise raise_as(f"{path}: is a folder, not a {what}.") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise raise_as(f"{path}: is a folder, not a {what}.")
        if not stat.S_ISREG(mode):
            raise raise_as(f"{path}: is not a regular file (a FIFO, socket or device); it is not read as a {what}.")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_json_file(
    path: str | os.PathLike[str],
    *,
    what: str = "JSON file",
    hint: str = "",
    max_bytes: int = MAX_FILE_BYTES,
    max_depth: int = MAX_DEPTH,
    error: type[Exception] | None = None,
) -> Any:
    """Read and strictly parse the JSON file ``path`` (see the module's docstring for what is refused).

    Args:
        path: The file.
        what: What the file is (``results file``), for messages.
        hint: What to do when it is damaged (``Run ... again to rewrite it.``), appended to messages.
        max_bytes: The largest file read.
        max_depth: The deepest nesting allowed.
        error: The genbench error class to raise (default :class:`DamagedFileError`).

    Raises:
        FileNotFoundError: ``path`` does not exist (the caller knows best what that means).
        DamagedFileError: not a regular file, too large, unreadable, not strict JSON.

    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "r.json"
    >>> _ = file.write_text('{"score": Infinity}')
    >>> read_json_file(file)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genbench._core.errors.DamagedFileError: .../r.json: not valid JSON: Infinity is not a JSON number ...
    """
    raise_as = error or DamagedFileError
    suffix = f" {hint}" if hint else ""
    fd = open_regular(path, what=what, error=raise_as)
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise raise_as(f"{path}: {size} bytes, larger than the {max_bytes} a {what} may have.{suffix}")
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise raise_as(f"{path}: cannot be read ({exc.strerror or exc}).{suffix}") from None
    if len(data) > max_bytes:  # it grew while being read
        raise raise_as(f"{path}: larger than the {max_bytes} bytes a {what} may have.{suffix}")
    return loads_strict(data, source=str(path), max_depth=max_depth, hint=hint, error=raise_as)


def iter_json_lines(
    path: str | os.PathLike[str],
    *,
    what: str = "JSON Lines file",
    hint: str = "",
    max_line_bytes: int = MAX_LINE_BYTES,
    max_depth: int = MAX_DEPTH,
    error: type[Exception] | None = None,
    digest: Digest | None = None,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, value)`` for each non-blank line of the JSON Lines file ``path``, parsed strictly.

    Args:
        digest: A ``hashlib`` object updated with every byte read (to check the file against a recorded checksum
            in the same pass).

    Raises:
        DamagedFileError: as :func:`read_json_file`, naming ``file:line``.
    """
    raise_as = error or DamagedFileError
    suffix = f" {hint}" if hint else ""
    fd = open_regular(path, what=what, error=raise_as)
    with os.fdopen(fd, "rb") as handle:
        number = 0
        while True:
            try:
                line = handle.readline(max_line_bytes + 1)
            except OSError as exc:
                raise raise_as(f"{path}: cannot be read ({exc.strerror or exc}).{suffix}") from None
            if not line:
                return
            number += 1
            if len(line) > max_line_bytes:
                raise raise_as(f"{path}:{number}: a line longer than {max_line_bytes} bytes.{suffix}")
            if digest is not None:
                digest.update(line)
            if not line.strip():
                continue
            yield number, loads_strict(line, source=f"{path}:{number}", max_depth=max_depth, hint=hint, error=raise_as)


def is_regular_file(path: Path) -> bool:
    """Whether ``path`` is a regular file (following links), without opening it."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False
