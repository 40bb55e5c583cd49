"""What a task check is, and how it says that something is wrong.

A check is a plain function that returns when the task is fine, raises :class:`TaskCheckFailure` (an
``AssertionError``, so pytest reports a failed assertion) when it is not, raises :class:`TaskCheckSkipped` when it
does not apply, and warns with :class:`TaskCheckWarning`. See docs/testing.md#python-api.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from genbench._core.errors import GenBenchError

Subject = Literal["id", "dir", "task", "task_dict"]
# Where a check may run (see genbench.review._trust): in the trusted process without task code, on the data the
# config declares (trusted unless the task's code shapes its data), or only with the task's code, in a child process.
Placement = Literal["trusted", "data", "task_code"]


class TaskCheckFailure(GenBenchError, AssertionError):
    """A task check failed; the message says what is wrong, where, and what to do.

    >>> try:
    ...     raise TaskCheckFailure("doc.md is empty.")
    ... except AssertionError as failure:
    ...     print(failure)
    doc.md is empty.
    """


class TaskCheckSkipped(GenBenchError):
    """A task check does not apply to this task (the message says why)."""


class TaskCheckWarning(UserWarning):
    """Something a task author should look at, that does not make the task fail (unless stated otherwise)."""


@dataclass(frozen=True)
class Check:
    """One check of the validation suite.

    Attributes:
        name: Short snake_case id, shown in reports (``example_types``).
        title: What the check makes sure of, as a sentence (``Examples match the task type``).
        function: The check itself.
        subject: What the function takes: the task id (``"id"``), the task directory (``"dir"``), the loaded
            :class:`~genbench.Task` (``"task"``) or :class:`~genbench.TaskDict` (``"task_dict"``).
        requires: Names of the checks that must pass first; when one does not, this check is skipped with a
            reason pointing at it (one broken thing gives one failure, not a cascade).
        takes_submission: Whether the function takes ``submission=`` (stricter before submitting).
        placement: ``"trusted"``: needs no task code (files, config, doc); ``"data"``: runs on the task's data,
            without task code when the config alone defines the data; ``"task_code"``: needs the task's code.
    """

    name: str
    title: str
    function: Callable[..., Any]
    subject: Subject
    requires: tuple[str, ...] = ()
    takes_submission: bool = False
    placement: Placement = "task_code"


def relative(path: Path, task_dir: Path) -> str:
    """``path`` relative to the task directory when it lies inside it, else the full path.

    >>> relative(Path("/tasks/t/data/test.jsonl"), Path("/tasks/t"))
    'data/test.jsonl'
    """
    try:
        return Path(path).resolve().relative_to(Path(task_dir).resolve()).as_posix()
    except ValueError:
        return str(path)


def short(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters for messages.

    >>> short("x" * 100, limit=10)
    "'xxxxxx..."
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def kind(value: Any) -> str:
    """The type of a value and a short view of it: ``an int (3)``.

    >>> kind(3), kind(["a"])
    ('an int (3)', "a list (['a'])")
    """
    name = type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{article} {name} ({short(value, 60)})"


def sentence(text: str) -> str:
    """``text`` ending with exactly one full stop (or its own ``?``/``!``), to be followed by another sentence.

    >>> sentence("No such file"), sentence("Bad value.")
    ('No such file.', 'Bad value.')
    """
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


def plural(count: int, noun: str) -> str:
    """``1 example``, ``2 examples``.

    >>> plural(1, "example"), plural(3, "example")
    ('1 example', '3 examples')
    """
    return f"{count} {noun}{'' if count == 1 else 's'}"
