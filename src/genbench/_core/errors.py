"""The exceptions genbench raises.

Every error is a :class:`GenBenchError`, and each subclass also inherits the built-in exception that fits
(``ValueError``, ``KeyError``, ``FileNotFoundError``), so ``except ValueError`` keeps working for callers
written against the original framework. Library code never exits the process: the CLI turns a
``GenBenchError`` into one ``Error: ...`` line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class GenBenchError(Exception):
    """Base class of every error raised by genbench."""


@dataclass(frozen=True)
class ConfigProblem:
    """One problem found in a configuration file.

    Attributes:
        field: Dotted path of the offending field (``preparation_strategies.prompt_based_testing``), or ``""``
            for the whole document.
        message: What is wrong and what is expected.
        line: 1-based line in the file, where known.
        column: 1-based column in the file, where known.
    """

    field: str
    message: str
    line: int | None = None
    column: int | None = None

    def render(self, file: str | None) -> str:
        where = file or "<config>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        field = f" {self.field}:" if self.field else ""
        return f"{where}:{field} {self.message}"


class ConfigError(GenBenchError, ValueError):
    """A configuration file (``config.jsonnet``, ``split.jsonnet``) is invalid.

    All problems of one file are reported together; ``problems`` holds them one by one.

    >>> err = ConfigError("config.jsonnet", [ConfigProblem("task_type", "expected one of 'free_form', ...")])
    >>> print(err)
    config.jsonnet: task_type: expected one of 'free_form', ...
    """

    def __init__(self, file: str | None, problems: Sequence[ConfigProblem], *, warnings: Sequence[ConfigProblem] = ()):
        self.file = file
        self.problems = list(problems)
        # The lenient problems of the same file (each a GenbenchConfigWarning had the file loaded), so that a report
        # of the errors can show them too: one run shows everything.
        self.warnings = list(warnings)
        super().__init__("\n".join(p.render(file) for p in self.problems))

    @property
    def fields(self) -> list[str]:
        """Dotted paths of the offending fields, in report order."""
        return [p.field for p in self.problems]


class TaskNotFoundError(GenBenchError, KeyError):
    """No task with the requested id exists in the registry."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class InvalidTaskIdError(TaskNotFoundError, ValueError):
    """A task id is malformed: ``"task"`` or ``"task:subtask"``, each part of ``[a-z0-9_]+`` (checked before any
    path is built from it)."""


class TaskDefinitionError(GenBenchError, ValueError):
    """A task directory is malformed (missing files, no or several Task classes, duplicate ids)."""


class DataLoadError(GenBenchError, ValueError):
    """A data source could not be read, downloaded, verified or re-split."""


class DataNotFoundError(DataLoadError, FileNotFoundError):
    """A data file does not exist.

    ``filename`` holds the missing path when known. The message is always the one given: ``OSError`` would
    otherwise render ``[Errno None] None: '<path>'`` once ``filename`` is set.

    >>> err = DataNotFoundError("data_source.test: data file not found: /t/test.jsonl", filename="/t/test.jsonl")
    >>> str(err), err.filename
    ('data_source.test: data file not found: /t/test.jsonl', '/t/test.jsonl')
    """

    def __init__(self, message: str, *, filename: str | None = None):
        super().__init__(message)
        self.filename = filename

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ChecksumMismatchError(DataLoadError):
    """A downloaded file does not match its declared ``sha256``."""


class PreparationError(GenBenchError, ValueError):
    """Datasets could not be prepared (unsupported strategy, not enough few-shot examples, bad examples)."""


class PredictionError(GenBenchError, ValueError):
    """Predictions do not match the gold set (length, keys, types)."""


class MetricError(GenBenchError, ValueError):
    """A metric could not be loaded or computed."""


class OutputError(GenBenchError, OSError):
    """An output file or folder cannot be written (a missing or read-only location, a file where a folder goes)."""


class DamagedFileError(GenBenchError, ValueError):
    """A file genbench wrote and reads back is damaged: not strict JSON (``NaN``, cut short, flipped bytes), nested
    or sized past the limits, not a regular file, or not matching the checksum recorded for it. The message names
    the file (and line) and the command that rewrites it."""


class UnknownPluginError(GenBenchError, ValueError):
    """No plugin of that name (a model runner, contamination backend, task feature...), or one that cannot load."""


class GenbenchConfigWarning(UserWarning):
    """A configuration that loads but would not pass review (lenient at the door, strict at the gate).

    Loading (``load_config``, ``load_task``, ``list-tasks``, ...) accepts everything the original GenBench
    framework accepted and reports what a new submission should write instead with this warning; its message
    names ``file:line``, the dotted field and the fix. ``genbench-cli test-task`` and the pull-request review
    turn every such warning into a failed check.

    Built from a :class:`ConfigProblem`, it keeps the parts: ``file``, ``field``, ``line``, ``column`` and
    ``problem`` (``genbench.config.collect_config_warnings`` returns such warnings for a task directory).

    >>> w = GenbenchConfigWarning.from_problem("config.jsonnet", ConfigProblem("x", "unknown field, ignored", 3))
    >>> str(w), w.field, w.line
    ('config.jsonnet:3: x: unknown field, ignored', 'x', 3)
    """

    file: str | None = None
    problem: ConfigProblem | None = None

    @classmethod
    def from_problem(cls, file: str | None, problem: ConfigProblem) -> GenbenchConfigWarning:
        """The warning for one lenient problem of ``file``; its message is ``problem.render(file)``."""
        warning = cls(problem.render(file))
        warning.file = file
        warning.problem = problem
        return warning

    @property
    def field(self) -> str | None:
        """The dotted field path (``""`` for the whole file), or None for a warning built from text alone."""
        return self.problem.field if self.problem is not None else None

    @property
    def line(self) -> int | None:
        """The 1-based line in the file, where known."""
        return self.problem.line if self.problem is not None else None

    def as_record(self) -> dict[str, Any]:
        """The warning as data: ``{file, line, field, message, fix}``, None where unknown.

        genbench's messages read ``what is wrong; the fix``: ``message`` is the part before the first ``"; "`` and
        ``fix`` the rest (None for a message without one). A warning built from text alone has ``message`` = its
        whole text and ``line``, ``field`` and ``fix`` None. :func:`warning_text` renders a record back to
        ``str(warning)``.

        >>> problem = ConfigProblem("x", "unknown field, ignored; drop it", 3)
        >>> GenbenchConfigWarning.from_problem("c.jsonnet", problem).as_record()
        {'file': 'c.jsonnet', 'line': 3, 'field': 'x', 'message': 'unknown field, ignored', 'fix': 'drop it'}
        """
        if self.problem is None:
            return {"file": self.file, "line": None, "field": None, "message": str(self), "fix": None}
        message, separator, fix = self.problem.message.partition("; ")
        return {
            "file": self.file,
            "line": self.problem.line,
            "field": self.problem.field,
            "message": message,
            "fix": fix if separator else None,
        }


def warning_record(warning: Warning | str) -> dict[str, Any]:
    """Any warning (or warning text) as a record (:meth:`GenbenchConfigWarning.as_record`); a warning of another
    kind has only its ``message``."""
    if isinstance(warning, GenbenchConfigWarning):
        return warning.as_record()
    return {"file": None, "line": None, "field": None, "message": str(warning), "fix": None}


def warning_text(record: Mapping[str, Any]) -> str:
    """The one-line text of a warning record, the same as ``str()`` of the warning it was made from.

    >>> warning_text({"file": "c.jsonnet", "line": 3, "field": "x", "message": "unknown field", "fix": "drop it"})
    'c.jsonnet:3: x: unknown field; drop it'
    >>> warning_text({"file": None, "line": None, "field": None, "message": "a stray task.py", "fix": None})
    'a stray task.py'
    """
    if record["field"] is None:
        return str(record["message"])
    message = record["message"] if record["fix"] is None else f"{record['message']}; {record['fix']}"
    return ConfigProblem(record["field"], message, record["line"]).render(record["file"])
