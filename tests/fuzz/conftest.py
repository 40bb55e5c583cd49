"""The count of cases the fuzz tests tried, printed at the end of the session (``fuzz: N cases tried``)."""

from __future__ import annotations

from .harness import CASES, OUTCOMES


def pytest_terminal_summary(terminalreporter):
    if CASES:
        total = sum(CASES.values())
        details = ", ".join(f"{name} {count}" for name, count in sorted(CASES.items()))
        ended = ", ".join(f"{OUTCOMES[key]} {key}" for key in ("ok", "error", "crash") if OUTCOMES[key])
        terminalreporter.write_line(f"fuzz: {total} cases tried ({details}); {ended}")
