"""The errors of task submission: git state, GitHub API and changed-task detection.

They are :class:`~genbench._core.errors.GenBenchError` subclasses, so ``genbench-cli`` prints them as one
``Error: ...`` line. They also inherit :class:`RuntimeError`: the problem is the state of the repository or of the
remote service, not a bad argument.
"""

from __future__ import annotations

from genbench._core.errors import GenBenchError


class SubmissionError(GenBenchError, RuntimeError):
    """A task cannot be submitted (or changed tasks cannot be listed): the message says what to do."""


class GitError(SubmissionError):
    """A git command failed, or git is not installed.

    Attributes:
        command: The git arguments that failed (without ``git`` itself), when a command ran.
        stderr: What git wrote to standard error.
    """

    def __init__(self, message: str, *, command: tuple[str, ...] = (), stderr: str = ""):
        super().__init__(message)
        self.command = command
        self.stderr = stderr


class GitHubError(SubmissionError):
    """The GitHub API refused a request or could not be reached.

    Attributes:
        status: The HTTP status of the answer, or ``None`` when no answer came (network error, timeout).
    """

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.status = status
