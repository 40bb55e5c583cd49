"""``make test`` ends with one line summing up the skipped tests by reason, and says how long the suite takes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_a_run_ends_with_one_line_of_skips_by_reason(tmp_path: Path):
    (tmp_path / "test_some.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.parametrize('n', range(3))\n"
        "def test_gpu(n):\n    pytest.skip('needs a GPU')\n\n"
        "def test_es():\n    pytest.skip('GENBENCH_ES_URL is not set')\n\n"
        "def test_ok():\n    assert True\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "tests.skip_summary", "-p", "no:cacheprovider",
               "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)]  # fmt: skip
    process = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stdout + process.stderr
    assert "4 skipped: 3 needs a GPU; 1 GENBENCH_ES_URL is not set" in process.stdout.splitlines()


def test_make_test_says_how_long_it_takes():
    dry_run = subprocess.run(["make", "-n", "test"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert "minutes" in dry_run.stdout and "skipped" in dry_run.stdout
    assert "make test" in (REPO / "README.md").read_text(encoding="utf-8")
    assert "minutes on" in (REPO / "README.md").read_text(encoding="utf-8").split("## Two commands")[1].split("##")[0]
