"""Every shipped task passes the validation suite, check by check (as `genbench-cli test-task --submission`).

The checks run in this process (``CheckCase.run``), which is what the pytest suite of ``test-task`` runs too; the
cases of one task share its loaded task and data.
"""

from __future__ import annotations

import pytest

from genbench.review import CheckCase, plan_checks
from tests.shipped_tasks import shipped_task_ids

CASES = [case for task_id in shipped_task_ids() for case in plan_checks(task_id, submission=True)]


def test_the_registry_has_tasks_to_check():
    assert {case.task_id.partition(":")[0] for case in CASES} >= {"arithmetic_length", "negation_consistency"}


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_registry_task_passes_check(case: CheckCase):
    result = case.run()
    assert result.outcome != "failed", f"{case.id}: {result.message}\n{result.details}"
    if case.check.name == "doc":
        assert result.outcome == "passed", result.warnings  # registry tasks have real documentation
