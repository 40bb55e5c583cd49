"""The example leaderboard of the docs: the demo's baselines on every shipped task and two runs (seeds 1 and 2) of a
tiny GPT-2, as `demo` and `run` write them (each task's taxonomy, the merged result of the task with subtasks).

Run ``python -m tests.leaderboard.example OUT [SCREENSHOT_DIR]`` to build it under OUT (``OUT/results``, ``OUT/site``;
results already there are reused) and, with SCREENSHOT_DIR, take the docs' screenshots at 1400x900 in headless
Chromium (docs/images/leaderboard_*.png).
"""

from __future__ import annotations

import sys
from pathlib import Path

SHOTS = [0, 1]
SEEDS = (1, 2)


def build_example_results(root: Path, tiny_model: Path, *, limit: int = 10) -> Path:
    """Write the example's results files under ``root / "results"`` and return that folder."""
    from genbench.runs import run
    from genbench.runs.demo import run_demo
    from genbench.runs.scoring import BootstrapSettings

    results = root / "results"
    outcomes = run_demo(root / "demo", shot_list=SHOTS, results_dir=results / "demo")
    assert all(outcome.ok for outcome in outcomes), [o.error for o in outcomes if not o.ok]
    for seed in SEEDS:
        run(
            f"hf:{tiny_model}",
            "all",
            model_args="batch_size=8,dtype=float32",
            output_dir=results / f"tiny-seed{seed}",
            shots=SHOTS,
            limit=limit,
            seed=seed,
            bootstrap=BootstrapSettings(resamples=200, statistic_resamples=20, seed=seed),
        )
    return results


def screenshots(site: Path, directory: Path) -> list[Path]:
    """The overview's first screen, the overview with the generalisation-type axis picked, and a task page."""
    from tests.leaderboard.cdp import Browser
    from tests.leaderboard.test_browser import BROWSER

    assert BROWSER is not None, "no Chromium on PATH"
    browser = Browser(BROWSER, 1400, 900)
    shots = []
    try:
        for name, url, axis in [
            ("leaderboard_overview.png", site / "index.html", None),
            ("leaderboard_axis.png", site / "index.html", "generalisation_type"),
            ("leaderboard_task.png", site / "tasks" / "category_membership.html", None),
        ]:
            browser.open(url.as_uri())
            if axis:
                browser.click(f'button.gb-axis-button[data-axis="{axis}"]')
            assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), name
            browser.screenshot(directory / name)
            shots.append(directory / name)
    finally:
        browser.close()
    return shots


def main(out: Path, screenshot_dir: Path | None = None) -> None:
    from genbench.leaderboard import build_leaderboard
    from tests.runs.conftest import tiny_gpt2

    class Factory:
        def mktemp(self, name: str) -> Path:
            path = out / name
            path.mkdir(parents=True, exist_ok=True)
            return path

    results = out / "results"
    if not results.is_dir():
        model = tiny_gpt2.__wrapped__(Factory())  # type: ignore[attr-defined]
        results = build_example_results(out, model)
    site = build_leaderboard([results], out / "site", shots=1)
    print(site.index)
    if screenshot_dir is not None:
        print(*screenshots(out / "site", screenshot_dir), sep="\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None)
