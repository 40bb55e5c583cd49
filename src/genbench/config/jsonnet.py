"""Jsonnet evaluation confined to one directory.

``import``/``importstr`` may only read files inside the directory of the file being evaluated (the task's
directory), so a config cannot read arbitrary files of the reviewer's machine. Syntax and runtime errors
become a :class:`~genbench.errors.ConfigError` that keeps the file, line and column jsonnet reported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from genbench.errors import ConfigError, ConfigProblem

_LOCATION = re.compile(r"(?P<file>[^\s:]+):(?P<line>\d+):(?P<column>\d+)")


def _confined_import_callback(root: Path):
    root = root.resolve()

    def callback(importing_dir: str, rel: str) -> tuple[str, bytes]:
        target = (Path(importing_dir) / rel).resolve()
        if not target.is_relative_to(root):
            raise RuntimeError(f"imports are confined to the task directory {root}; {rel!r} is outside it")
        if not target.is_file():
            raise RuntimeError(f"no such file {target}")
        return str(target), target.read_bytes()

    return callback


def _jsonnet_error(file: str, exc: RuntimeError) -> ConfigError:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else "jsonnet evaluation failed"
    match = _LOCATION.search(text)
    line = int(match["line"]) if match else None
    column = int(match["column"]) if match else None
    message = _LOCATION.sub("", first).replace("STATIC ERROR: ", "syntax error").replace("RUNTIME ERROR: ", "")
    message = re.sub(r"^syntax error\s*:?\s*", "syntax error: ", message).strip()
    return ConfigError(file, [ConfigProblem("", message, line, column)])


def evaluate_jsonnet(*, text: str | None = None, path: str | Path | None = None, root: Path | None = None) -> Any:
    """Evaluate jsonnet text or a file to a Python value.

    Args:
        text: Jsonnet source (its imports resolve against ``root``, default the current directory).
        path: A jsonnet file (its imports are confined to its own directory unless ``root`` is given).
        root: The directory imports must stay inside.

    Returns:
        The evaluated value (dicts, lists, strings, numbers, booleans, None).

    Raises:
        ConfigError: syntax or runtime error (with line and column), import outside ``root``, missing file.

    >>> evaluate_jsonnet(text="{a: 1 + 1, b: [x * 2 for x in [1, 2]]}")
    {'a': 2, 'b': [2, 4]}
    """
    import _jsonnet  # local: the C extension is cheap, but keep `import genbench` minimal

    if (text is None) == (path is None):
        raise ValueError("Give exactly one of `text` and `path`.")
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ConfigError(str(path), [ConfigProblem("", "file not found")])
        text = path.read_text(encoding="utf-8")
        filename = str(path)
        base = path.parent
    else:
        filename = "<config>"
        base = Path.cwd()
    root = Path(root) if root is not None else base
    try:
        result = _jsonnet.evaluate_snippet(
            str(base.resolve() / Path(filename).name) if path is not None else str(root.resolve() / "snippet"),
            text,
            import_callback=_confined_import_callback(root),
        )
    except RuntimeError as exc:
        raise _jsonnet_error(filename, exc) from None
    return json.loads(result)


def load_jsonnet(path: str | Path) -> Any:
    """Evaluate a jsonnet file (the original framework's ``genbench.utils.file.load_jsonnet``)."""
    return evaluate_jsonnet(path=path)
