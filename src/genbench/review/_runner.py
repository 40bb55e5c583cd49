"""Run the validation suite of a task: the checks that need no task code here, the others through pytest in a child.

The child imports the task's code in a fresh interpreter, with an empty ``pytest.ini`` of its own (no auto-loaded
plugins, no cache), inside a bubblewrap sandbox where one can be made (:mod:`genbench.review._sandbox`); the task's
remote data is fetched by this process first, since the child cannot. Trust model: :mod:`genbench.review._trust`;
protocol: :mod:`genbench.review._isolation`. See docs/review.md#the-sandbox.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genbench._core.errors import GenBenchError
from genbench._registry.directories import get_task_dir, split_task_id
from genbench._registry.task_data import DataFile, fetch_one, task_data
from genbench.data._cache import cache_dir
from genbench.review._check_report import CheckResult, TaskTestReport
from genbench.review._isolation import ChildRun, output_tail, run_child
from genbench.review._plan import CheckCase, plan_checks
from genbench.review._sandbox import (
    DEFAULT_MEMORY_LIMIT,
    SandboxStatus,
    child_environment,
    limited_command,
    python_paths,
    sandbox_command,
    sandbox_status,
)

SUITE = Path(__file__).resolve().parent / "_task_suite.py"
PLUGIN = "genbench.review._plugin"
# Seconds the checks that run a task's code may take by default: generous, a task that loads a large dataset
# from the Hub included; `genbench-cli test-task --timeout` changes it.
DEFAULT_TIMEOUT = 1800.0
# Stands for the result pipe's descriptor in the child's command line.
_RESULT_FD = "{genbench-result-fd}"


def pytest_command(task_id: str, *, submission: bool = False, report_path: Path | None = None) -> list[str]:
    """The command line that runs the suite on a task (without the isolation options the runner adds).

    >>> pytest_command("my_task", submission=True)[1:]  # doctest: +ELLIPSIS
    ['-m', 'pytest', '-p', 'genbench.review._plugin', '--genbench-task-id', 'my_task', '--genbench-submission', \
'...task_suite.py']
    """
    command = [sys.executable, "-m", "pytest", "-p", PLUGIN, "--genbench-task-id", task_id]
    if submission:
        command.append("--genbench-submission")
    if report_path is not None:
        command += ["--genbench-report", str(report_path)]
    return [*command, str(SUITE)]


# The directory genbench is imported from (the checker's code).
_PACKAGE_PARENT = Path(__file__).resolve().parents[2]


def _environment(sandboxed: bool) -> dict[str, str]:
    env = child_environment(os.environ, sandboxed=sandboxed)
    # Plugins installed in the environment (benchmarks, hypothesis, ...) have no business in a task's checks.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["HF_DATASETS_DISABLE_PROGRESS_BARS"] = "1"
    # The child must import the same genbench as this process, installed or not.
    env["PYTHONPATH"] = os.pathsep.join([str(_PACKAGE_PARENT), *filter(None, [os.environ.get("PYTHONPATH")])])
    if sandboxed:
        env["GENBENCH_CACHE"] = str(cache_dir())  # read-only inside: the data fetched by this process
    return env


def _prefetch(task_id: str) -> None:
    """Fetch the remote data that the task's config declares into genbench's cache (the sandboxed child has no
    network). A failure is left for the child's checks to report."""
    try:
        items = task_data([split_task_id(task_id)[0]])
    except GenBenchError:
        return  # the config check reports it
    for item in items:
        if isinstance(item, DataFile) and not item.remote:
            continue
        try:
            fetch_one(item)
        except GenBenchError:
            continue  # data_loads reports it


def run_task_tests(
    task_id: str,
    *,
    submission: bool = False,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    pytest_args: Sequence[str] = (),
    run_task_code: bool = True,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    sandbox: SandboxStatus | None = None,
) -> TaskTestReport:
    """Run the validation suite on a task (or on every subtask of a task with subtasks).

    The checks that need no task code run in this process without importing the task's Python files; the others
    run through pytest in a child process, in its own process group, stopped after ``timeout`` seconds. Their
    verdict is decided here from the records the child sends over a pipe: a check the child does not report exactly
    once fails, whatever its exit status, output or files say.

    Args:
        task_id: ``"id"`` or ``"id:subtask"``; task roots come from ``GENBENCH_TASKS_PATH`` as usual.
        submission: Apply the stricter submission checks: an unfinished ``doc.md`` fails instead of warning.
        on_event: Called with each progress event as it happens: ``{"event": "collected", "total": n}``,
            ``{"event": "start", "task_id", "check", "title"}``, ``{"event": "result", "index", "position",
            "total", "result": CheckResult}`` (``index``: how many have finished; ``position``: the check's row in
            the report, whose order is the plan's, not the order in which checks finish).
        timeout: Seconds after which the child running the task's code is killed, with everything it started
            (None: no limit).
        pytest_args: Extra pytest arguments for the child (e.g. ``["-x"]`` to stop at the first failure).
        run_task_code: False runs only the checks that need no task code; the others are skipped, saying so.
        memory_limit: Bytes of address space each process running the task's code may map (None: no limit).
        sandbox: Where to run the task's code; by default a bubblewrap sandbox when this machine can make one
            (:func:`~genbench.review._sandbox.sandbox_status`), else none. The report says which
            (``report.sandbox``, ``report.sandbox_reason``).

    Returns:
        The report: one result per check, plus any error running the suite (``report.ok`` tells success).

    Raises:
        TaskNotFoundError: no such task (checked before anything runs).
    """
    start = time.perf_counter()
    cases = plan_checks(task_id, submission=submission, isolate=True)
    report = TaskTestReport(task_id, submission=submission)
    results: dict[str, CheckResult] = {}

    def emit(event: dict[str, Any]) -> None:
        if on_event is not None:
            on_event(event)

    def started(case: CheckCase) -> None:
        emit({"event": "start", "task_id": case.task_id, "check": case.check.name, "title": case.check.title})

    positions = {case.id: position for position, case in enumerate(cases, 1)}

    def finished(case: CheckCase, result: CheckResult) -> None:
        results[case.id] = result
        emit(
            {
                "event": "result",
                "index": len(results),
                "position": positions[case.id],
                "total": len(cases),
                "result": result,
            }
        )

    emit({"event": "collected", "total": len(cases)})
    for case in cases:
        if not case.needs_task_code:
            started(case)
            finished(case, case.run())
    child_cases = [case for case in cases if case.needs_task_code]
    unsafe = any(results[case.id].outcome == "failed" for case in cases if case.check.name == "task_files")
    if child_cases and (unsafe or not run_task_code):
        reason = (
            "not run: the task holds entries a task may not have, so none of its code runs (see the task_files check)"
            if unsafe
            else "not run: this run checks only what needs no task code"
        )
        for case in child_cases:
            finished(case, _result(case, {"outcome": "skipped", "message": reason}))
    elif child_cases:
        status = sandbox_status() if sandbox is None else sandbox
        report.sandbox, report.sandbox_reason = status.kind, status.reason
        limits = _Limits(timeout, memory_limit)
        run = _run_child(task_id, child_cases, submission, pytest_args, limits, status, started, finished)
        for case in child_cases:
            if case.id not in results:
                finished(case, _result(case, {"outcome": "failed", "message": _missing_message(run, timeout)}))
            elif case.id in run.duplicated:
                message = "Reported more than once by the process running the task's code: its result is not trusted."
                results[case.id] = _result(case, {"outcome": "failed", "message": message})
        report.exit_code = run.exit_code
        report.output = run.output
        report.errors += _child_errors(run, child_cases, timeout)
    report.results = [results[case.id] for case in cases]
    report.duration = time.perf_counter() - start
    return report


@dataclass(frozen=True)
class _Limits:
    timeout: float | None
    memory: int | None


def _run_child(
    task_id: str,
    cases: list[CheckCase],
    submission: bool,
    pytest_args: Sequence[str],
    limits: _Limits,
    sandbox: SandboxStatus,
    started: Callable[[CheckCase], None],
    finished: Callable[[CheckCase, CheckResult], None],
) -> ChildRun:
    by_id = {case.id: case for case in cases}

    def on_record(record: dict[str, Any]) -> None:
        case = by_id[record["case"]]
        if record["event"] == "start":
            started(case)
        else:
            finished(case, _result(case, record["result"]))

    with tempfile.TemporaryDirectory(prefix="genbench-test-task-") as tmp:
        tmp_dir = Path(tmp)
        (tmp_dir / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        command = pytest_command(task_id, submission=submission)
        command[-1:-1] = [
            "--genbench-result-fd", _RESULT_FD,
            "--genbench-checks", ",".join(by_id),
            "-c", str(tmp_dir / "pytest.ini"),
            "--rootdir", str(tmp_dir),
            "--confcutdir", str(SUITE.parent),
            "-p", "no:cacheprovider",
            "-q",
            "--tb=short",
            *pytest_args,
        ]  # fmt: skip
        if sandbox.executable is not None:
            _prefetch(task_id)
            task_dir = get_task_dir(split_task_id(task_id)[0])
            visible = [*python_paths(), _PACKAGE_PARENT, tmp_dir, task_dir, cache_dir()]
            command = sandbox_command(command, executable=sandbox.executable, read_only=visible)
        return run_child(
            limited_command(command, limits.memory), expected=list(by_id), env=_environment(sandbox.available),
            timeout=limits.timeout, on_record=on_record, fd_placeholder=_RESULT_FD,
        )  # fmt: skip


def _result(case: CheckCase, fields: dict[str, Any]) -> CheckResult:
    # The task id, check name and title come from the plan, never from the child.
    return CheckResult(case.task_id, case.check.name, case.check.title, **fields)


def _missing_message(run: ChildRun, timeout: float | None) -> str:
    if run.timed_out:
        return f"Not finished: the checks that run the task's code were stopped after {timeout:g} s."
    return (
        f"No result: the process running the task's code ended (exit status {run.exit_code}) without reporting this "
        "check, so it counts as failed. Run with --debug to see its output."
    )


def _child_errors(run: ChildRun, cases: list[CheckCase], timeout: float | None) -> list[str]:
    errors = []
    reported = [case for case in cases if case.id in run.results]
    if run.timed_out:
        errors.append(f"The checks did not finish within {timeout:g} s and were stopped.")
    elif not reported:
        errors.append(
            f"pytest ran no task check (exit status {run.exit_code}). Its output:\n{output_tail(run.output)}"
        )
    elif len(reported) < len(cases):
        errors.append(
            f"The process running the task's code ended (exit status {run.exit_code}) after reporting "
            f"{len(reported)} of {len(cases)} checks; the others count as failed."
        )
    elif not run.ended:
        errors.append("The process running the task's code reported every check but not the end of the run.")
    elif run.exit_code not in (0, 1):
        errors.append(f"pytest stopped with exit status {run.exit_code}. Its output:\n{output_tail(run.output)}")
    elif run.exit_code == 1 and not any(run.results[case.id]["outcome"] == "failed" for case in cases):
        errors.append(f"pytest failed outside the checks (exit status 1). Its output:\n{output_tail(run.output)}")
    if run.violations:
        errors.append(
            "The process running the task's code broke the result protocol, so the run fails (the task's code "
            "wrote to the result pipe, or the child was tampered with):\n"
            + "\n".join(f"  - {violation}" for violation in run.violations)
        )
    return errors
