"""Every ``config.jsonnet`` of the original GenBench repositories loads (warnings allowed, no ``ConfigError``).

Run by ``make test-original``, with the checkouts it names in ``GENBENCH_ORIGINAL_REPOS``; skipped without them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from genbench.config import collect_config_warnings
from tests.compat.test_original_suites import ORIGINAL_REPOS_ENV, REPOS, SKIP_REASON

REPO_ROOT = Path(__file__).resolve().parents[2]
ORIGINAL_CONFIGS = sorted(
    path for repo in REPOS for path in (repo / "src" / "genbench" / "tasks").rglob("config.jsonnet")
)


@pytest.mark.skipif(not REPOS, reason=SKIP_REASON)
@pytest.mark.parametrize("path", ORIGINAL_CONFIGS, ids=lambda p: "/".join(p.parent.parts[-3:]))
def test_every_config_of_the_original_repositories_loads(path):
    assert collect_config_warnings(path.parent, task_dict=None) is not None  # loads: no ConfigError


def test_the_tests_read_the_variable_make_test_original_sets():
    # Regression: tests/config/test_leniency.py read the variable without its final S, which nothing set: it always
    # skipped.
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"{ORIGINAL_REPOS_ENV}=$(ORIGINAL_REPOS)" in makefile
    readers = {
        path.relative_to(REPO_ROOT).as_posix(): set(re.findall(r"GENBENCH_ORIGINAL_\w+", path.read_text("utf-8")))
        for path in (REPO_ROOT / "tests").rglob("*.py")
    }
    assert {name for names in readers.values() for name in names} <= {ORIGINAL_REPOS_ENV}, readers
