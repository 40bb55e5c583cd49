"""The results of a validation run: one :class:`CheckResult` per check, gathered in a :class:`TaskTestReport`.

See docs/testing.md#python-api.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Outcome = Literal["passed", "warning", "skipped", "failed"]
OUTCOMES: tuple[Outcome, ...] = ("passed", "warning", "skipped", "failed")


@dataclass
class CheckResult:
    """The outcome of one check on one task.

    Attributes:
        task_id: The task checked (``"id"``, or ``"id:subtask"`` for a subtask).
        check: The check's name (``example_types``).
        title: What the check makes sure of.
        outcome: ``passed``, ``warning`` (passed, with warnings), ``skipped`` or ``failed``.
        message: Why it failed, or why it was skipped.
        warnings: The warnings the check gave.
        duration: Seconds the check took.
        details: The traceback of an unexpected error (not a check failure), for debugging.
    """

    task_id: str
    check: str
    title: str
    outcome: Outcome
    message: str = ""
    warnings: list[str] = field(default_factory=list)
    duration: float = 0.0
    details: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CheckResult:
        """Rebuild a result from :func:`dataclasses.asdict` output (e.g. read back from JSON)."""
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})


@dataclass
class TaskTestReport:
    """Everything a run of the validation suite found about a task.

    Attributes:
        task_id: The task that was tested.
        submission: Whether the stricter submission checks applied.
        results: One result per check, in run order (for a task with subtasks: its own checks, then each subtask's).
        errors: Problems running the suite itself (pytest could not start, a collection error, a timeout).
        duration: Seconds the whole run took.
        exit_code: pytest's exit status (None for an in-process run).
        output: pytest's own output, for debugging.
        sandbox: What the checks that need task code ran in: ``"bwrap"``, ``"none"`` (no sandbox could be made, or
            it was turned off), or ``""`` when no such check ran.
        sandbox_reason: Why there was no sandbox (one line), when ``sandbox`` is ``"none"``.
    """

    task_id: str
    submission: bool = False
    results: list[CheckResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    duration: float = 0.0
    exit_code: int | None = None
    output: str = ""
    sandbox: str = ""
    sandbox_reason: str = ""

    @property
    def ok(self) -> bool:
        """True when checks ran, none failed and the run itself had no error."""
        return bool(self.results) and not self.errors and not self.failures

    @property
    def failures(self) -> list[CheckResult]:
        """The failed checks."""
        return [result for result in self.results if result.outcome == "failed"]

    @property
    def warnings(self) -> list[CheckResult]:
        """The checks that passed with warnings."""
        return [result for result in self.results if result.outcome == "warning"]

    def counts(self) -> dict[str, int]:
        """Number of checks per outcome, every outcome listed."""
        counter = Counter(result.outcome for result in self.results)
        return {outcome: counter.get(outcome, 0) for outcome in OUTCOMES}

    def summary_line(self) -> str:
        """``15 checks: 12 passed, 1 warning, 1 skipped, 1 failed`` (outcomes with no check left out).

        >>> report = TaskTestReport("my_task", results=[
        ...     CheckResult("my_task", "config", "config.jsonnet is valid", "passed"),
        ...     CheckResult("my_task", "doc", "doc.md documents the task", "warning", warnings=["doc.md is short."]),
        ... ])
        >>> report.ok, report.summary_line()
        (True, '2 checks: 1 passed, 1 warning')
        """
        counts = self.counts()
        parts = [f"{number} {outcome if outcome != 'warning' or number == 1 else 'warnings'}"
                 for outcome, number in counts.items() if number]  # fmt: skip
        total = len(self.results)
        return f"{total} check{'' if total == 1 else 's'}: " + (", ".join(parts) or "none ran")

    def format_text(self) -> str:
        """A plain-text report: one line per check, then every failure and warning message in full."""
        lines = [f"genbench test-task {self.task_id}{' (submission)' if self.submission else ''}"]
        for result in self.results:
            lines.append(f"  {result.outcome.upper():8} {result.task_id} / {result.check}: {result.title}")
            if result.outcome == "skipped" and result.message:
                lines.append(f"           skipped: {result.message}")
        for result in self.results:
            if result.outcome == "failed":
                lines += ["", f"FAILED {result.task_id} / {result.check}:", _indent(result.message)]
            for warning in result.warnings:
                lines += ["", f"WARNING {result.task_id} / {result.check}:", _indent(warning)]
        for error in self.errors:
            lines += ["", "ERROR running the suite:", _indent(error)]
        lines += ["", self.summary_line()]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return asdict(self)

    def to_json(self) -> str:
        """The report as a JSON document."""
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskTestReport:
        """Rebuild a report from :meth:`to_dict` output."""
        fields = {key: data[key] for key in cls.__dataclass_fields__ if key in data and key != "results"}
        return cls(**fields, results=[CheckResult.from_dict(result) for result in data.get("results", [])])


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())
