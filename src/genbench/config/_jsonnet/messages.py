"""Jsonnet's error messages as :class:`~genbench._core.errors.ConfigError`: the first line, at its line and column.

The Go library's messages are translated: ``file:3:5-16 Message`` followed by the source line for a syntax error,
and ``RUNTIME ERROR: message`` followed by a traceback of ``file:line:column`` frames for the rest.
"""

from __future__ import annotations

import re
from pathlib import Path

from genbench._core.errors import ConfigError, ConfigProblem

_RUNTIME = re.compile(r"^RUNTIME ERROR:\s*")
# A location jsonnet prints after a file name: `:3:5`, `:3:5-16` (a range on one line) or `:(3:5)-(4:2)`.
_POSITION = r":(?:\((?P<pline>\d+):(?P<pcol>\d+)\)-\(\d+:\d+\)|(?P<line>\d+):(?P<col>\d+)(?:-\d+)?)"
_LOCATED = re.compile(r"(?P<file>\S.*?)" + _POSITION + r":?\s+")  # a message that starts with its location
_FRAME = re.compile(r"(?P<file>.*?)" + _POSITION + r"(?=\s|$)")  # a traceback line: "file:2:6-18\tobject ..."
_STANDARD_LIBRARY = "<std>"  # the file name of frames inside jsonnet's standard library
_GO_TYPE = re.compile(r"\*jsonnet\.value(?P<name>[A-Z]\w*)")  # "Value non indexable: *jsonnet.valueNull"


def jsonnet_error(file: str | None, jsonnet_name: str, text: str) -> ConfigError:
    """A ConfigError from jsonnet's message: its first line, at the line and column jsonnet gives for the file.

    ``jsonnet_name`` is the name the file was evaluated under; locations in other (imported) files are named in
    the message. Ranges (``14:3-16``, ``(3:5)-(4:6)``) are reduced to where they start.

    >>> err = jsonnet_error("config.jsonnet", "/t/config.jsonnet",
    ...                     "/t/config.jsonnet:14:3-7 Expected a comma before next field\\n\\n  b: 2\\n\\n")
    >>> print(err)
    config.jsonnet:14:3: syntax error: Expected a comma before next field
    >>> print(jsonnet_error("c.jsonnet", "/t/c.jsonnet",
    ...                     'RUNTIME ERROR: boom\\n\\t/t/c.jsonnet:2:6-18\\tobject <anonymous>\\n\\tField "a"\\t'))
    c.jsonnet:2:6: boom
    """
    text = text.strip() or "jsonnet evaluation failed"
    runtime = _RUNTIME.match(text)
    lines = (text[runtime.end() :] if runtime else text).splitlines()
    message = _GO_TYPE.sub(lambda go_type: go_type["name"].lower(), lines[0])
    line = column = None
    located = _LOCATED.match(message)
    if located is not None:  # "file:3:5-16 Message" (a syntax error, in this file or an imported one)
        message = message[located.end() :].strip() or "error"
        if located["file"] == jsonnet_name:
            line, column = _start(located)
        else:
            message += f" (in {Path(located['file']).name}:{':'.join(map(str, _start(located)))})"
    frames = [frame for frame in (_FRAME.match(entry.strip()) for entry in lines[1:]) if frame is not None]
    frames = [frame for frame in frames if frame["file"] != _STANDARD_LIBRARY]
    if frames and frames[0]["file"] != jsonnet_name and located is None:
        message += f" (in {Path(frames[0]['file']).name}:{':'.join(map(str, _start(frames[0])))})"
    if line is None:
        own = next((frame for frame in frames if frame["file"] == jsonnet_name), None)
        if own is not None:
            line, column = _start(own)
    if located is not None:  # only a syntax error's message starts with its location
        message = f"syntax error: {message}"
    return ConfigError(file, [ConfigProblem("", message, line, column)])


def _start(match: re.Match[str]) -> tuple[int, int]:
    return int(match["line"] or match["pline"]), int(match["col"] or match["pcol"])
