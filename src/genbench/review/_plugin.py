"""The pytest plugin of the validation suite: its options, and a recorder that reports each check's result.

Load it with ``-p genbench.review._plugin`` (the options: docs/testing.md#running-the-suite-with-pytest-directly).
:func:`genbench.review.run_task_tests` passes ``--genbench-checks`` and ``--genbench-result-fd``: one JSON record
per check on a pipe of the parent, which decides the verdict (the protocol is in :mod:`genbench.review._isolation`).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from genbench.review._base import TaskCheckFailure
from genbench.review._check_report import CheckResult, TaskTestReport
from genbench.review._plan import unexpected_error_message

CASE_PARAMETER = "genbench_case"
WARNINGS_PROPERTY = "genbench_warnings"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("genbench", "genbench task validation")
    group.addoption("--genbench-task-id", metavar="ID", default=None, help="Task to check: 'id' or 'id:subtask'.")
    group.addoption(
        "--genbench-submission",
        action="store_true",
        default=False,
        help="Apply the stricter submission checks (doc.md must be real documentation).",
    )
    group.addoption("--genbench-report", metavar="PATH", default=None, help="Write the JSON report there.")
    group.addoption("--genbench-checks", metavar="IDS", default=None, help="Run only these task_id/check cases.")
    group.addoption(
        "--genbench-result-fd", metavar="FD", type=int, default=None, help="Write one JSON record per check there."
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("genbench_task_id"):
        config.pluginmanager.register(_Recorder(config), "genbench-recorder")


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


class _Recorder:
    """Turns pytest's reports into :class:`CheckResult` objects, sends one record per check and writes the report."""

    def __init__(self, config: pytest.Config):
        self.task_id: str = config.getoption("genbench_task_id")
        self.submission: bool = config.getoption("genbench_submission")
        self.report_path: str | None = config.getoption("genbench_report")
        self.result_fd: int | None = config.getoption("genbench_result_fd")
        self.cases: dict[str, Any] = {}
        self.results: dict[str, CheckResult] = {}
        self.errors: list[str] = []
        self.start = time.perf_counter()

    def emit(self, event: str, **data: Any) -> None:
        if self.result_fd is None:
            return
        line = (json.dumps({"event": event, **data}) + "\n").encode()
        while line:
            line = line[os.write(self.result_fd, line) :]

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors.append(f"Collecting {report.nodeid or 'the suite'} failed:\n{report.longreprtext}")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            callspec = getattr(item, "callspec", None)
            case = callspec.params.get(CASE_PARAMETER) if callspec is not None else None
            if case is not None:
                self.cases[item.nodeid] = case

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        case = self.cases.get(nodeid)
        if case is not None:
            self.emit("start", case=case.id)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report = yield
        excinfo = call.excinfo
        if report.failed and excinfo is not None:
            case = self.cases.get(item.nodeid)
            if isinstance(excinfo.value, TaskCheckFailure):
                report.genbench_message = str(excinfo.value)  # type: ignore[attr-defined]
            else:
                task_dir = case.subject.task_dir if case is not None else Path.cwd()
                report.genbench_message = unexpected_error_message(excinfo.value, task_dir)  # type: ignore[attr-defined]
                report.genbench_details = report.longreprtext  # type: ignore[attr-defined]
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        case = self.cases.get(report.nodeid)
        if case is None:
            return
        result = self.results.setdefault(
            report.nodeid, CheckResult(case.task_id, case.check.name, case.check.title, "passed")
        )
        result.duration += report.duration
        for name, value in report.user_properties:
            if name == WARNINGS_PROPERTY and isinstance(value, list):
                result.warnings = [str(warning) for warning in value]
        if report.skipped:
            result.outcome, result.message = "skipped", _skip_reason(report)
        elif report.failed and result.outcome != "failed":
            result.outcome = "failed"
            result.message = getattr(report, "genbench_message", None) or report.longreprtext
            result.details = getattr(report, "genbench_details", "")
        if report.when == "call" and result.outcome == "passed" and result.warnings:
            result.outcome = "warning"

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        result = self.results.get(nodeid)
        if result is not None:
            self.emit("result", case=self.cases[nodeid].id, result=result.__dict__)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.result_fd is not None:
            self.emit("end")
            os.close(self.result_fd)  # nothing after the end record reaches the parent through this descriptor
            self.result_fd = None
        if self.report_path is None:
            return
        report = TaskTestReport(
            self.task_id,
            submission=self.submission,
            results=[self.results[nodeid] for nodeid in self.cases if nodeid in self.results],
            errors=list(self.errors),
            duration=time.perf_counter() - self.start,
            exit_code=int(exitstatus),
        )
        Path(self.report_path).write_text(report.to_json(), encoding="utf-8")
