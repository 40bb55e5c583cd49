"""The fuzz harness itself: a case that hangs is a failure, not a stalled campaign."""

from __future__ import annotations

import time

import pytest

from tests.fuzz import harness


def test_a_case_past_its_wall_clock_limit_fails_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harness, "CASE_SECONDS", 0.2)
    started = time.monotonic()
    with pytest.raises(harness.CaseTimedOut, match="ran past 0.2 s"):
        harness.genbench_error_or_success("hang", lambda: [time.sleep(0.01) for _ in range(1000)])
    assert time.monotonic() - started < 5
    # the limit is lifted after a case: a later slow step of the test is not interrupted
    time.sleep(0.3)
    assert harness.genbench_error_or_success("quick", lambda: None) == "ok"
