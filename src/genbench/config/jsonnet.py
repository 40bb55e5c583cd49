"""Jsonnet evaluation confined to one directory, with limits, and errors that name the file.

``import``/``importstr`` may only read files inside the directory of the file being evaluated (the task's
directory), so a config cannot read arbitrary files of the reviewer's machine. Evaluation runs under a memory and
a time limit (:mod:`genbench.config.sandbox`). Every problem, from unreadable bytes (a NUL byte, Latin-1 or
UTF-16 text) to jsonnet's syntax and runtime errors, becomes a :class:`~genbench.errors.ConfigError` that names
the file and, where jsonnet reports one, the line and column.
"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path
from typing import Any

from genbench.errors import ConfigError, ConfigProblem

_KIND = re.compile(r"^(STATIC|RUNTIME) ERROR:\s*")
# A location jsonnet prints after a file name: `:3:5`, `:3:5-16` (a range on one line) or `:(3:5)-(4:2)`.
_POSITION = r":(?:\((?P<pline>\d+):(?P<pcol>\d+)\)-\(\d+:\d+\)|(?P<line>\d+):(?P<col>\d+)(?:-\d+)?)"
_ANY_LOCATION = re.compile(r"(?P<file>[^\t\n]*?)" + _POSITION + r"(?::\s*|\t|$)", re.MULTILINE)


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

    >>> err = jsonnet_error("config.jsonnet", "/t/config.jsonnet",
    ...                     "STATIC ERROR: /t/config.jsonnet:14:3-16: expected a comma before next field.")
    >>> print(err)
    config.jsonnet:14:3: syntax error: expected a comma before next field.
    >>> print(jsonnet_error("c.jsonnet", "/t/c.jsonnet", "RUNTIME ERROR: boom\\n\\t/t/c.jsonnet:2:6-18\\tobject"))
    c.jsonnet:2:6: boom
    """
    text = text.strip() or "jsonnet evaluation failed"
    kind = _KIND.match(text)
    body = text[kind.end() :] if kind else text
    match = re.match(re.escape(jsonnet_name) + _POSITION + r":\s*", body)
    if match is None:  # a runtime error: the location is on a traceback line below the message
        match = re.search(re.escape(jsonnet_name) + _POSITION, body)
        first = body.splitlines()[0]
    else:
        first = body[match.end() :].splitlines()[0] if body[match.end() :] else "syntax error"
    if match is None:
        other = _ANY_LOCATION.search(body)
        if other is not None and other["file"].strip() and not first.startswith(other["file"]):
            first += f" (in {Path(other['file'].strip()).name}{_render(other)})"
        elif other is not None:  # the location belongs to the first line itself
            first = body[other.end() :].splitlines()[0] if body[other.end() :] else first
    if kind and kind.group(1) == "STATIC":
        first = f"syntax error: {first}"
    line = column = None
    if match is not None:
        line, column = int(match["line"] or match["pline"]), int(match["col"] or match["pcol"])
    return ConfigError(file, [ConfigProblem("", first.strip(), line, column)])


def _render(match: re.Match[str]) -> str:
    return f":{match['line'] or match['pline']}:{match['col'] or match['pcol']}"


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
    """Evaluate a jsonnet file (the original framework's ``genbench.utils.file.load_jsonnet``)."""
    return evaluate_jsonnet(path=path)
