"""The task validation suite run by ``genbench-cli test-task``, shipped inside the package.

:func:`run_task_tests` runs it through pytest in a subprocess, :func:`run_checks` in this process; each check is a
plain function of :mod:`genbench.review.checks` raising :class:`TaskCheckFailure`. See docs/testing.md.
"""

from genbench.review._base import Check, TaskCheckFailure, TaskCheckSkipped, TaskCheckWarning
from genbench.review._check_report import CheckResult, TaskTestReport
from genbench.review._plan import CheckCase, TaskUnderTest, plan_checks, run_checks
from genbench.review._runner import run_task_tests
from genbench.review.checks import TASK_CHECKS, TASK_DICT_CHECKS

__all__ = [
    "TASK_CHECKS",
    "TASK_DICT_CHECKS",
    "Check",
    "CheckCase",
    "CheckResult",
    "TaskCheckFailure",
    "TaskCheckSkipped",
    "TaskCheckWarning",
    "TaskTestReport",
    "TaskUnderTest",
    "plan_checks",
    "run_checks",
    "run_task_tests",
]
