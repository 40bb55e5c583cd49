"""Run the validation suite of a task through pytest, in a subprocess, and read back its report.

A subprocess keeps the run isolated: the task's code is imported in a fresh interpreter, nothing of it stays in the
caller's, and the pytest configuration of whatever directory the command runs in does not apply (the suite gets an
empty ``pytest.ini`` of its own, no auto-loaded plugins, no cache directory).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from genbench.testing.base import PROGRESS_PREFIX
from genbench.testing.report import CheckResult, TaskTestReport

SUITE = Path(__file__).resolve().parent / "task_suite.py"
PLUGIN = "genbench.testing.plugin"
_OUTPUT_TAIL = 4000


def pytest_command(task_id: str, *, submission: bool = False, report_path: Path | None = None) -> list[str]:
    """The command line that runs the suite on a task (without the isolation options the runner adds).

    >>> pytest_command("my_task", submission=True)[1:]  # doctest: +ELLIPSIS
    ['-m', 'pytest', '-p', 'genbench.testing.plugin', '--genbench-task-id', 'my_task', '--genbench-submission', \
'...task_suite.py']
    """
    command = [sys.executable, "-m", "pytest", "-p", PLUGIN, "--genbench-task-id", task_id]
    if submission:
        command.append("--genbench-submission")
    if report_path is not None:
        command += ["--genbench-report", str(report_path)]
    return [*command, str(SUITE)]


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    # Plugins installed in the environment (benchmarks, hypothesis, ...) have no business in a task's checks.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    # The child must import the same genbench as this process, installed or not.
    package_parent = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([package_parent, *filter(None, [env.get("PYTHONPATH")])])
    return env


def run_task_tests(
    task_id: str,
    *,
    submission: bool = False,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    timeout: float | None = None,
    pytest_args: Sequence[str] = (),
) -> TaskTestReport:
    """Run the validation suite on a task (or on every subtask of a task with subtasks) through pytest.

    Args:
        task_id: ``"id"`` or ``"id:subtask"``; task roots come from ``GENBENCH_TASKS_PATH`` as usual.
        submission: Apply the stricter submission checks: an unfinished ``doc.md`` fails instead of warning.
        on_event: Called with each progress event as it happens: ``{"event": "collected", "total": n}``,
            ``{"event": "start", "task_id", "check", "title"}``, ``{"event": "result", "index", "total",
            "result": CheckResult}``.
        timeout: Seconds after which the run is stopped (None: no limit).
        pytest_args: Extra pytest arguments (e.g. ``["-x"]`` to stop at the first failure).

    Returns:
        The report: one result per check, plus any error running the suite (``report.ok`` tells success).

    Raises:
        TaskNotFoundError: no such task (checked before starting pytest).
    """
    from genbench.loading import _split_id, get_task_dir

    root_id, subtask_id = _split_id(task_id)
    get_task_dir(root_id, subtask_id)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="genbench-test-task-") as tmp:
        tmp_dir = Path(tmp)
        (tmp_dir / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        report_path = tmp_dir / "report.json"
        command = pytest_command(task_id, submission=submission, report_path=report_path)
        command[-1:-1] = [
            "--genbench-progress",
            "-c", str(tmp_dir / "pytest.ini"),
            "--rootdir", str(tmp_dir),
            "--confcutdir", str(SUITE.parent),
            "-p", "no:cacheprovider",
            "-q",
            "--tb=short",
            *pytest_args,
        ]  # fmt: skip
        with open(tmp_dir / "stderr.txt", "w+", encoding="utf-8", errors="replace") as stderr:
            exit_code, stdout, timed_out = _run(command, stderr, on_event, timeout)
            stderr.seek(0)
            output = stdout + stderr.read()
        report = _read_report(report_path, task_id, submission)
    report.exit_code = exit_code
    report.output = output
    report.duration = time.perf_counter() - start
    if timed_out:
        report.errors.append(f"The checks did not finish within {timeout:g} s and were stopped.")
    elif not report.results and not report.errors:
        report.errors.append(
            f"pytest ran no task check (exit status {exit_code}). Its output:\n{output[-_OUTPUT_TAIL:].strip()}"
        )
    elif exit_code not in (0, 1) and not report.errors:
        report.errors.append(f"pytest stopped with exit status {exit_code}. Its output:\n{output[-_OUTPUT_TAIL:]}")
    return report


def _run(
    command: list[str], stderr: Any, on_event: Callable[[dict[str, Any]], None] | None, timeout: float | None
) -> tuple[int, str, bool]:
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=_environment(), errors="replace"
    )
    timed_out = threading.Event()

    def stop() -> None:
        timed_out.set()
        process.kill()

    timer = threading.Timer(timeout, stop) if timeout is not None else None
    if timer is not None:
        timer.start()
    lines = []
    try:
        assert process.stdout is not None  # noqa: S101 - stdout=PIPE
        for line in process.stdout:
            position = line.find(PROGRESS_PREFIX)
            if position < 0:
                lines.append(line)
                continue
            lines.append(line[:position])
            if on_event is not None:
                event = json.loads(line[position + len(PROGRESS_PREFIX) :])
                if event.get("event") == "result":
                    event["result"] = CheckResult.from_dict(event["result"])
                on_event(event)
        exit_code = process.wait()
    finally:
        if timer is not None:
            timer.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
    return exit_code, "".join(lines), timed_out.is_set()


def _read_report(path: Path, task_id: str, submission: bool) -> TaskTestReport:
    if not path.is_file():
        return TaskTestReport(task_id, submission=submission)
    try:
        return TaskTestReport.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError, KeyError) as error:
        return TaskTestReport(task_id, submission=submission, errors=[f"The suite's report is unreadable: {error}"])
