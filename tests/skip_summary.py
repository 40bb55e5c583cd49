"""One line at the end of a test run that sums up the skipped tests by reason (``make test`` runs ``-q``, which
lists no skip otherwise): ``33 skipped: 20 no checkout of the original framework; 13 ...``.

A pytest plugin: ``tests/conftest.py`` takes its hook; ``-p tests.skip_summary`` loads it elsewhere.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

REASON_WIDTH = 100


def skip_reason(report: Any) -> str:
    """The reason a test report gives for its skip, without pytest's ``Skipped: `` prefix, on one line."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    reason = " ".join(str(reason).split()).removeprefix("Skipped: ")
    return reason if len(reason) <= REASON_WIDTH else reason[: REASON_WIDTH - 3] + "..."


def skip_summary_line(reasons: list[str]) -> str | None:
    """``N skipped: count reason; ...``, the most frequent reason first; None when nothing was skipped.

    >>> skip_summary_line(["no GPU", "no ES", "no GPU"])
    '3 skipped: 2 no GPU; 1 no ES'
    """
    if not reasons:
        return None
    counts = Counter(reasons).most_common()
    return f"{len(reasons)} skipped: " + "; ".join(f"{count} {reason}" for reason, count in counts)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    reports = [r for r in terminalreporter.stats.get("skipped", []) if getattr(r, "longrepr", None) is not None]
    line = skip_summary_line([skip_reason(report) for report in reports])
    if line is not None:
        terminalreporter.write_line(line)
