"""Real results files for the leaderboard tests: the demo's baselines and a `python:` predictor run, made once."""

from __future__ import annotations

from pathlib import Path

import pytest

PREDICTOR = """
def shortest_option(requests, task, **options):
    if task == "loglikelihood":
        return [-float(len(c)) for _, c in requests]
    raise NotImplementedError
"""


@pytest.fixture(scope="session")
def results_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``demo --results-dir`` output (two tasks, 0 and 1 shots) and a runs-API run (one task, 0/1/2 shots)."""
    from genbench.runs import run
    from genbench.runs._demo import run_demo
    from genbench.runs._scoring import BootstrapSettings

    root = tmp_path_factory.mktemp("leaderboard")
    results = run_demo(
        root / "demo",
        task_ids=["category_membership", "arithmetic_length"],
        shot_list=[0, 1],
        results_dir=root / "demo" / "results",
    )
    assert all(result.ok for result in results)
    (root / "predictor.py").write_text(PREDICTOR)
    run(
        f"python:{root / 'predictor.py'}:shortest_option",
        "category_membership",
        output_dir=root / "runs",
        shots=[0, 1, 2],
        limit=30,
        bootstrap=BootstrapSettings(resamples=100, statistic_resamples=10),
    )
    return root
