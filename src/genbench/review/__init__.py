"""The task validation suite run by ``genbench-cli test-task``, shipped inside the package.

- :func:`run_task_tests` runs the suite through pytest in a subprocess and returns a :class:`TaskTestReport`;
- :func:`run_checks` runs the same checks in this process (quicker, no pytest);
- :mod:`genbench.review.checks` holds each check as a plain function (:data:`TASK_CHECKS`, :data:`TASK_DICT_CHECKS`)
  raising :class:`TaskCheckFailure` with a message that says what is wrong, where, and what to do.

See ``docs/testing.md`` for the checks and how to fix a failure.

>>> from genbench.review import run_checks
>>> report = run_checks("category_membership", submission=True)
>>> report.ok
True
"""

from genbench.review.base import Check, TaskCheckFailure, TaskCheckSkipped, TaskCheckWarning
from genbench.review.check_report import CheckResult, TaskTestReport
from genbench.review.checks import TASK_CHECKS, TASK_DICT_CHECKS
from genbench.review.plan import CheckCase, TaskUnderTest, plan_checks, run_checks
from genbench.review.runner import run_task_tests

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
