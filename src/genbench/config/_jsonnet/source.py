"""Reading a config file's text: UTF-8 only, every other encoding and a NUL byte refused with where and why."""

from __future__ import annotations

import codecs
from pathlib import Path

from genbench._core.errors import ConfigError, ConfigProblem


def read_config_text(path: Path) -> str:
    """The text of a config file, as UTF-8.

    Raises:
        ConfigError: the file is missing, unreadable, UTF-16, not UTF-8 or contains a NUL byte; the message names
            the file, where the problem is and how to fix it.
    """
    file = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(file, [ConfigProblem("", "file not found")]) from None
    except OSError as exc:
        raise ConfigError(file, [ConfigProblem("", f"cannot be read ({exc.strerror or exc})")]) from None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or (len(data) > 1 and b"\x00" in data[:2]):
        raise ConfigError(file, [ConfigProblem("", "is UTF-16 encoded text: save it as UTF-8")])
    data = data.removeprefix(codecs.BOM_UTF8)
    nul = data.find(b"\x00")
    if nul >= 0:
        line, column = position(data, nul)
        raise ConfigError(
            file, [ConfigProblem("", "contains a NUL byte: a config is a UTF-8 text file", line, column)]
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = position(data, exc.start)
        message = (
            f"is not valid UTF-8 (byte 0x{data[exc.start]:02x}; Latin-1 or another legacy encoding?): save it as UTF-8"
        )
        raise ConfigError(file, [ConfigProblem("", message, line, column)]) from None


def check_no_nul(text: str, file: str | None) -> None:
    """Refuse already-read ``text`` that holds a NUL byte (jsonnet would stop reading there).

    Raises:
        ConfigError: at the NUL byte's line and column.

    >>> check_no_nul("{a: 1}", None)
    >>> check_no_nul("{a\\x00: 1}", None)
    Traceback (most recent call last):
    genbench._core.errors.ConfigError: <config>:1:3: contains a NUL byte: a config is a text file
    """
    nul = text.find("\x00")
    if nul >= 0:
        line, column = position(text.encode("utf-8"), len(text[:nul].encode("utf-8")))
        raise ConfigError(file, [ConfigProblem("", "contains a NUL byte: a config is a text file", line, column)])


def position(data: bytes, offset: int) -> tuple[int, int]:
    """The 1-based line and column (in bytes) of ``offset`` in ``data``.

    >>> position(b"ab\\ncd", 4)
    (2, 2)
    """
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1
