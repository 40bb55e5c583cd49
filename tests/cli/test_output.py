"""``genbench.cli._output``: the spinner shows on terminals only and imports rich only where it may show."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from genbench.cli._output import _may_be_terminal, spinner


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_may_be_terminal(monkeypatch):
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert _may_be_terminal(_Terminal())
    assert not _may_be_terminal(io.StringIO())
    assert not _may_be_terminal(object())  # no isatty
    closed = io.StringIO()
    closed.close()
    assert not _may_be_terminal(closed)
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich then treats any stream as a terminal: so must the pre-check
    assert _may_be_terminal(io.StringIO())


@pytest.mark.parametrize("stderr", [subprocess.PIPE, subprocess.DEVNULL])
def test_spinner_without_a_terminal_imports_no_rich(stderr):
    code = (
        "import sys\n"
        "from genbench.cli._output import spinner\n"
        "with spinner('working'):\n"
        "    pass\n"
        "print('rich' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    run = subprocess.run(
        [sys.executable, "-c", code], stderr=stderr, stdout=subprocess.PIPE, text=True, env=env, timeout=120
    )
    assert run.returncode == 0
    assert run.stdout.strip() == "False"


def test_spinner_runs_the_block():
    ran = []
    with spinner("working"):
        ran.append(True)
    assert ran == [True]
