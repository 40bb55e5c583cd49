"""Evaluating jsonnet text or a file to a Python value, confined, limited, and with errors that name the file.

``import``/``importstr`` may only read files inside the directory of the file being evaluated (the task's
directory), so a config cannot read arbitrary files of the reviewer's machine. Evaluation runs under a memory and
a time limit, in the worker (:mod:`genbench.config._jsonnet.engine`). Every problem, from unreadable bytes (a NUL
byte, Latin-1 or UTF-16 text) to jsonnet's syntax and runtime errors, becomes a
:class:`~genbench._core.errors.ConfigError` that names the file and, where jsonnet reports one, the line and column.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from genbench._core.errors import ConfigError, ConfigProblem
from genbench.config._jsonnet.engine import evaluate_in_sandbox
from genbench.config._jsonnet.limits import SandboxLimitError
from genbench.config._jsonnet.messages import jsonnet_error
from genbench.config._jsonnet.source import check_no_nul, read_config_text


def evaluate_jsonnet(*, text: str | None = None, path: str | Path | None = None, root: Path | None = None) -> Any:
    """Evaluate jsonnet text or a file to a Python value, under the worker's memory and time limits.

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
    check_no_nul(text, file)
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
    """Evaluate a jsonnet file (the original framework's ``genbench._compat.file_helpers.load_jsonnet``)."""
    return evaluate_jsonnet(path=path)
