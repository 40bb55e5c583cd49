"""Jsonnet evaluation confined to one directory, with limits, and errors that name the file.

``import``/``importstr`` may only read files inside the directory of the file being evaluated (the task's
directory), so a config cannot read arbitrary files of the reviewer's machine. Evaluation runs under a memory and
a time limit (:mod:`genbench.config.sandbox`). Every problem, from unreadable bytes (a NUL byte, Latin-1 or
UTF-16 text) to jsonnet's syntax and runtime errors, becomes a :class:`~genbench.core.errors.ConfigError` that names
the file and, where jsonnet reports one, the line and column.
"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path
from typing import Any

from genbench.core.errors import ConfigError, ConfigProblem

_KIND = re.compile(r"^(STATIC|RUNTIME) ERROR:\s*")
# A location jsonnet prints after a file name: `:3:5`, `:3:5-16` (a range on one line) or `:(3:5)-(4:2)`.
_POSITION = r":(?:\((?P<pline>\d+):(?P<pcol>\d+)\)-\(\d+:\d+\)|(?P<line>\d+):(?P<col>\d+)(?:-\d+)?)"
_LOCATED = re.compile(r"(?P<file>.*?)" + _POSITION + r":\s*")  # a message that starts with its location
_FRAME = re.compile(r"(?P<file>.*?)" + _POSITION + r"(?=\s|$)")  # a traceback line: "file:2:6-18\tobject ..."


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
        line, column = _position(data, nul)
        raise ConfigError(
            file, [ConfigProblem("", "contains a NUL byte: a config is a UTF-8 text file", line, column)]
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        message = (
            f"is not valid UTF-8 (byte 0x{data[exc.start]:02x}; Latin-1 or another legacy encoding?): save it as UTF-8"
        )
        raise ConfigError(file, [ConfigProblem("", message, line, column)]) from None


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def jsonnet_error(file: str | None, jsonnet_name: str, text: str) -> ConfigError:
    """A ConfigError from jsonnet's message: its first line, at the line and column jsonnet gives for the file.

    ``jsonnet_name`` is the name the file was evaluated under; locations in other (imported) files are named in
    the message. Ranges (``14:3-16``, ``(3:5)-(4:6)``) are reduced to where they start.

    >>> err = jsonnet_error("config.jsonnet", "/t/config.jsonnet",
    ...                     "STATIC ERROR: /t/config.jsonnet:14:3-16: expected a comma before next field.")
    >>> print(err)
    config.jsonnet:14:3: syntax error: expected a comma before next field.
    >>> print(jsonnet_error("c.jsonnet", "/t/c.jsonnet", "RUNTIME ERROR: boom\\n\\t/t/c.jsonnet:2:6-18\\tobject"))
    c.jsonnet:2:6: boom
    """
    text = text.strip() or "jsonnet evaluation failed"
    kind = _KIND.match(text)
    lines = (text[kind.end() :] if kind else text).splitlines()
    message = lines[0]
    line = column = None
    located = _LOCATED.match(message)
    if located is not None:  # "file:3:5-16: message" (a static error)
        message = message[located.end() :].strip() or "error"
        if located["file"] == jsonnet_name:
            line, column = _start(located)
        else:
            message += f" (in {Path(located['file']).name}:{':'.join(map(str, _start(located)))})"
    frames = [frame for frame in (_FRAME.match(entry.strip()) for entry in lines[1:]) if frame is not None]
    if frames and frames[0]["file"] != jsonnet_name and located is None:
        message += f" (in {Path(frames[0]['file']).name}:{':'.join(map(str, _start(frames[0])))})"
    if line is None:
        own = next((frame for frame in frames if frame["file"] == jsonnet_name), None)
        if own is not None:
            line, column = _start(own)
    if kind and kind.group(1) == "STATIC":
        message = f"syntax error: {message}"
    return ConfigError(file, [ConfigProblem("", message, line, column)])


def _start(match: re.Match[str]) -> tuple[int, int]:
    return int(match["line"] or match["pline"]), int(match["col"] or match["pcol"])


def evaluate_jsonnet(*, text: str | None = None, path: str | Path | None = None, root: Path | None = None) -> Any:
    """Evaluate jsonnet text or a file to a Python value, under the sandbox's memory and time limits.

    Args:
        text: Jsonnet source (its imports resolve against ``root``, default the current directory).
        path: A jsonnet file (its imports are confined to its own directory unless ``root`` is given).
        root: The directory imports must stay inside.

    Returns:
        The evaluated value (dicts, lists, strings, numbers, booleans, None).

    Raises:
        ConfigError: unreadable file (encoding, NUL byte), syntax or runtime error (with line and column), import
            outside ``root``, missing file, memory or time limit exceeded.

    >>> evaluate_jsonnet(text="{a: 1 + 1, b: [x * 2 for x in [1, 2]]}")
    {'a': 2, 'b': [2, 4]}
    """
    if (text is None) == (path is None):
        raise ValueError("Give exactly one of `text` and `path`.")
    if path is not None:
        path = Path(path)
        text = read_config_text(path)
        return evaluate_jsonnet_source(text, file=str(path), base=path.parent, root=root)
    assert text is not None  # noqa: S101 - narrowed by the check above
    return evaluate_jsonnet_source(text, file=None, base=Path.cwd(), root=root)


def evaluate_jsonnet_source(text: str, *, file: str | None, base: Path, root: Path | None = None) -> Any:
    """Evaluate already-read jsonnet ``text`` of ``file`` (None: a snippet) whose imports resolve against ``base``.

    Raises:
        ConfigError: as :func:`evaluate_jsonnet`.
    """
    from genbench.config.sandbox import SandboxLimitError, evaluate_in_sandbox

    nul = text.find("\x00")
    if nul >= 0:
        line, column = _position(text.encode("utf-8"), len(text[:nul].encode("utf-8")))
        raise ConfigError(file, [ConfigProblem("", "contains a NUL byte: a config is a text file", line, column)])
    root = Path(root) if root is not None else base
    jsonnet_name = str(base.resolve() / (Path(file).name if file is not None else "snippet"))
    try:
        result = evaluate_in_sandbox(jsonnet_name, text, str(root.resolve()))
    except SandboxLimitError as exc:
        raise ConfigError(file, [ConfigProblem("", str(exc))]) from None
    except RuntimeError as exc:
        raise jsonnet_error(file, jsonnet_name, str(exc)) from None
    return json.loads(result)


def load_jsonnet(path: str | Path) -> Any:
    """Evaluate a jsonnet file (the original framework's ``genbench.compat.file_helpers.load_jsonnet``)."""
    return evaluate_jsonnet(path=path)
