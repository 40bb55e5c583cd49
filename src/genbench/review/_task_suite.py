"""The validation suite as a pytest module: one test per check of the task given by ``--genbench-task-id``.

Run it through ``genbench-cli test-task -t ID`` (or :func:`genbench.review.run_task_tests`), or by hand as
docs/testing.md#running-the-suite-with-pytest-directly shows. Its name does not match ``test_*.py``, so a
repository's own test run does not collect it; collected without ``--genbench-task-id``, its one test is skipped.
"""

from __future__ import annotations

import pytest

from genbench.review._base import TaskCheckSkipped
from genbench.review._plan import plan_checks
from genbench.review._plugin import CASE_PARAMETER, WARNINGS_PROPERTY


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if CASE_PARAMETER not in metafunc.fixturenames:
        return
    task_id = metafunc.config.getoption("genbench_task_id", default=None)
    if not task_id:
        reason = "no task to check: run `genbench-cli test-task -t ID` (or pass --genbench-task-id ID)"
        metafunc.parametrize(CASE_PARAMETER, [pytest.param(None, marks=pytest.mark.skip(reason=reason))], ids=["-"])
        return

    cases = plan_checks(task_id, submission=bool(metafunc.config.getoption("genbench_submission", default=False)))
    selected = metafunc.config.getoption("genbench_checks", default=None)
    if selected is not None:
        wanted = set(selected.split(","))
        cases = [case for case in cases if case.id in wanted]
    metafunc.parametrize(CASE_PARAMETER, cases, ids=[case.id for case in cases])


def test_check(genbench_case, request: pytest.FixtureRequest) -> None:
    """Run one check of the task; a skip keeps its reason, warnings are recorded for the report."""
    try:
        genbench_case.execute()
    except TaskCheckSkipped as skip:
        pytest.skip(str(skip))
    finally:
        request.node.user_properties.append((WARNINGS_PROPERTY, list(genbench_case.warnings)))
