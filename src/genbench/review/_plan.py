"""Which checks run on a task, and running one check on a task with its dependencies handled.

A task's checks share one :class:`TaskUnderTest`, which runs each check once and so loads the task and its data once.
A check whose prerequisites (``Check.requires``) did not pass is skipped with a reason pointing at the one that
failed: a task whose data does not load gets one failure (``data_loads``), not one per data check.
"""

from __future__ import annotations

import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genbench._core.errors import GenBenchError
from genbench._registry.directories import get_task_dir, split_task_id, subtask_dirs
from genbench.data._confinement import confined_data_paths
from genbench.review._base import Check, TaskCheckFailure, TaskCheckSkipped, TaskCheckWarning
from genbench.review._check_report import CheckResult, TaskTestReport
from genbench.review._static_checks import describe_error, looks_like_task_dict
from genbench.review._trust import code_shapes_data, unsafe_entries
from genbench.review.checks import TASK_CHECKS, TASK_DICT_CHECKS

# Why a check is skipped when a check it requires did not pass.
_BLOCKED_BECAUSE = {
    "task_files": "the task directory holds entries a task may not have, so nothing of it is read",
    "task_loads": "the task could not be loaded",
    "data_loads": "the task's data could not be loaded",
    "no_iterable_dataset": "a split is not a datasets.Dataset",
    "example_types": "examples do not match the task type",
}


@dataclass
class _Outcome:
    value: Any
    error: BaseException | None
    warnings: list[str]


class TaskUnderTest:
    """One task, subtask or TaskDict being checked: runs each of its checks once, remembering the outcome, so that a
    check's prerequisites (``Check.requires``) are not run twice and the loaded task and data are shared.

    Every check requires ``task_files`` (when the task has that check): nothing is read from a task directory that
    holds symbolic links. Every check runs with data paths confined to the task directory
    (:func:`~genbench.data._confinement.confined_data_paths`): a data path outside it fails ``data_loads`` without
    being opened.

    Args:
        task_id: ``"id"`` or ``"id:subtask"``.
        task_dir: The task's directory.
        checks: The checks that apply to it.
        submission: Whether the stricter submission checks apply.
        data_from_config: Run the data checks (``placement="data"``) on the data the config declares, loaded by the
            base :class:`~genbench.Task` class without importing ``task.py`` (the trusted process does this when the
            task's code does not shape its data); otherwise they run on the loaded task.
    """

    def __init__(
        self,
        task_id: str,
        task_dir: Path,
        checks: Sequence[Check],
        submission: bool = False,
        data_from_config: bool = False,
    ):
        self.task_id = task_id
        self.task_dir = Path(task_dir)
        self.checks = {check.name: check for check in checks}
        self.submission = submission
        self.data_from_config = data_from_config
        self._outcomes: dict[str, _Outcome] = {}
        self._config_task: Any = None

    def outcome(self, name: str) -> _Outcome:
        """Run a check (once) and return what it returned or raised, and its warnings."""
        if name not in self._outcomes:
            value, error = None, None
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    with confined_data_paths():
                        value = self._call(self.checks[name])
                except Exception as exc:  # noqa: BLE001 - remembered, re-raised to the check's case
                    error = exc
            self._outcomes[name] = _Outcome(
                value, error, [str(w.message) for w in caught if issubclass(w.category, TaskCheckWarning)]
            )
            for warning in caught:
                if not issubclass(warning.category, TaskCheckWarning):
                    warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        return self._outcomes[name]

    def on_config_data(self, check: Check) -> bool:
        """Whether the check runs on the config's data without the task's code."""
        return self.data_from_config and check.placement == "data"

    def _requirements(self, check: Check) -> list[str]:
        names = list(check.requires)
        if self.on_config_data(check):
            names = [name for name in names if name != "task_loads"]
        if "task_files" in self.checks and check.name != "task_files":
            names.insert(0, "task_files")
        return names

    def _require(self, check: Check) -> None:
        for name in self._requirements(check):
            error = self.outcome(name).error
            if isinstance(error, TaskCheckSkipped):
                raise TaskCheckSkipped(str(error))
            if error is not None:
                because = _BLOCKED_BECAUSE.get(name, f"the {name} check did not pass")
                raise TaskCheckSkipped(f"{because} (see the {name} check)")

    def config_task(self) -> Any:
        """The base :class:`~genbench.Task` built from the task's config alone (no task code imported).

        Raises:
            TaskCheckSkipped: the config cannot be loaded (reported by the config check).
        """
        if self._config_task is None:
            from genbench.config._documents import load_task_config
            from genbench.task import Task

            root_id, subtask_id = split_task_id(self.task_id)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the config check reports them
                    config = load_task_config(jsonnet_path=self.task_dir / "config.jsonnet")
            except (GenBenchError, OSError, ValueError):
                raise TaskCheckSkipped("config.jsonnet cannot be loaded (see the config check)") from None
            self._config_task = Task(config, root_id, subtask_id, task_dir=self.task_dir)
        return self._config_task

    def _call(self, check: Check) -> Any:
        self._require(check)
        kwargs = {"submission": self.submission} if check.takes_submission else {}
        if check.subject == "id":
            return check.function(self.task_id, **kwargs)
        if check.subject == "dir":
            return check.function(self.task_dir, **kwargs)
        if self.on_config_data(check):
            return check.function(self.config_task(), **kwargs)
        return check.function(self.outcome("task_loads").value, **kwargs)


@dataclass
class CheckCase:
    """One check to run on one task (a test case of the pytest suite).

    Attributes:
        task_id: The task checked.
        check: The check.
        subject: The task under test, shared with the task's other cases.
        warnings: The warning messages of the check, once executed.
    """

    task_id: str
    check: Check
    subject: TaskUnderTest
    warnings: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        """``task_id/check_name``, the pytest id of the case."""
        return f"{self.task_id}/{self.check.name}"

    @property
    def needs_task_code(self) -> bool:
        """Whether the check runs the task's code (so :func:`~genbench.review.run_task_tests` runs it in a child
        process): it needs the loaded task, or it is a data check of a task whose code shapes its data."""
        if self.check.placement == "data":
            return not self.subject.data_from_config
        return self.check.placement == "task_code"

    def execute(self) -> None:
        """Run the check (or take its outcome if it already ran as another check's prerequisite).

        Its :class:`TaskCheckWarning` messages land in :attr:`warnings`; other warnings pass on.

        Raises:
            TaskCheckFailure: the check failed.
            TaskCheckSkipped: the check does not apply, or a check it requires did not pass.
        """
        outcome = self.subject.outcome(self.check.name)
        self.warnings = list(outcome.warnings)
        if outcome.error is not None:
            raise outcome.error

    def run(self) -> CheckResult:
        """Run the check in this process and return its result (never raises for a task's problem)."""
        start = time.perf_counter()
        outcome, message, details = "passed", "", ""
        try:
            self.execute()
        except TaskCheckFailure as failure:
            outcome, message = "failed", str(failure)
        except TaskCheckSkipped as skip:
            outcome, message = "skipped", str(skip)
        except Exception as error:  # noqa: BLE001 - an unexpected error is a failed check, with its traceback
            outcome = "failed"
            message = unexpected_error_message(error, self.subject.task_dir)
            details = "".join(traceback.format_exception(error))
        if outcome == "passed" and self.warnings:
            outcome = "warning"
        return CheckResult(
            task_id=self.task_id,
            check=self.check.name,
            title=self.check.title,
            outcome=outcome,  # type: ignore[arg-type]
            message=message,
            warnings=list(self.warnings),
            duration=time.perf_counter() - start,
            details=details,
        )


def unexpected_error_message(error: BaseException, task_dir: Path) -> str:
    """The message of a check that raised something other than a check failure."""
    return (
        f"Unexpected error: {describe_error(error, task_dir)}\n"
        "If the error comes from the task's code, fix it there; otherwise rerun with --debug and report it."
    )


def plan_checks(task_id: str, *, submission: bool = False, isolate: bool = False) -> list[CheckCase]:
    """The checks to run on a task, in order: for a task with subtasks, its own checks and then every subtask's.

    Args:
        task_id: ``"id"`` (a task, or a task with subtasks) or ``"id:subtask"``.
        submission: Apply the stricter submission checks (``doc.md`` must be real documentation).
        isolate: Plan for a trusted process that must not run task code: the data checks of a task whose code does
            not shape its data (:func:`~genbench.review._trust.code_shapes_data`) run on its config's data, and
            :attr:`CheckCase.needs_task_code` tells which cases are left for a child process.

    Raises:
        TaskNotFoundError: no such task.

    >>> [case.id for case in plan_checks("negation_consistency")][:2]
    ['negation_consistency/task_files', 'negation_consistency/required_files']
    """
    root_id, subtask_id = split_task_id(task_id)
    task_dir = get_task_dir(root_id, subtask_id)
    targets = [(task_id, task_dir, TASK_CHECKS)]
    # Nothing is read from an unsafe directory, not even to tell whether it is a TaskDict.
    if subtask_id is None and not unsafe_entries(task_dir) and looks_like_task_dict(task_dir):
        targets = [(root_id, task_dir, TASK_DICT_CHECKS)]
        targets += [(f"{root_id}:{sub_dir.name}", sub_dir, TASK_CHECKS) for sub_dir in subtask_dirs(task_dir)]
    cases = []
    for target_id, target_dir, checks in targets:
        from_config = isolate and not unsafe_entries(target_dir) and code_shapes_data(target_dir) is None
        subject = TaskUnderTest(target_id, target_dir, checks, submission=submission, data_from_config=from_config)
        cases += [CheckCase(target_id, check, subject) for check in checks]
    return cases


def run_checks(
    task_id: str, *, submission: bool = False, on_result: Callable[[CheckResult], None] | None = None
) -> TaskTestReport:
    """Run the validation checks of a task in this process, without pytest (quick; used by tests and notebooks).

    ``genbench-cli test-task`` runs the same checks through pytest with :func:`genbench.review.run_task_tests`.

    Args:
        task_id: ``"id"`` or ``"id:subtask"``.
        submission: Apply the stricter submission checks.
        on_result: Called with each result as soon as its check finishes.

    Raises:
        TaskNotFoundError: no such task.

    >>> from genbench.review import run_checks
    >>> report = run_checks("category_membership", submission=True)
    >>> report.ok
    True
    >>> report = run_checks("arithmetic_length")
    >>> report.ok, report.counts()["failed"]
    (True, 0)
    """
    start = time.perf_counter()
    report = TaskTestReport(task_id, submission=submission)
    for case in plan_checks(task_id, submission=submission):
        result = case.run()
        report.results.append(result)
        if on_result is not None:
            on_result(result)
    report.duration = time.perf_counter() - start
    return report
