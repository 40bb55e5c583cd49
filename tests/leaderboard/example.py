"""The example leaderboard of the docs: the demo's baselines on every shipped task and two runs (seeds 1 and 2) of a
tiny GPT-2, as `demo` and `run` write them (each task's taxonomy, the merged result of the task with subtasks). The
GPT-2 is declared trained on a toy corpus, ``toy-web``, which holds a few of category_membership's test questions:
that task is measured against it (a shift report) and scored on its clean subset too, so the site shows the measured
shift, the clean scores and the contamination flag.

Run ``python -m tests.leaderboard.example OUT [SCREENSHOT_DIR]`` to build it under OUT (``OUT/results``, ``OUT/site``;
results already there are reused) and, with SCREENSHOT_DIR, take the docs' screenshots at 1400x900 in headless
Chromium (docs/images/leaderboard_*.png).
"""

from __future__ import annotations

import sys
from pathlib import Path

SHOTS = [0, 1]
SEEDS = (1, 2)
MEASURED_TASK = "category_membership"
CORPUS = "toy-web"
CONTAINED = (0, 2, 5, 7)
"""The test examples of :data:`MEASURED_TASK` that the toy corpus holds (among the first ten, which the runs score)."""


def measure_example_shift(root: Path) -> Path:
    """Build the toy corpus (the negation task's training statements and a few test questions of
    :data:`MEASURED_TASK`) as a byte-level index, measure the task against it; the report's path."""
    import json

    import genbench.tasks
    from genbench.contamination._testsets import loaded_task_test_sets
    from genbench.contamination.shift import measure_shift
    from genbench.contamination.shift._infinigram import build_infinigram_index
    from genbench.task._factory import load_task

    task = load_task(MEASURED_TASK)
    [test_set] = loaded_task_test_sets(task)
    statements = Path(genbench.tasks.__file__).parent / "negation_consistency" / "affirmative" / "data" / "train.jsonl"
    texts = [json.loads(line)["statement"] for line in statements.read_text().splitlines() if line.strip()]
    texts += ["\n".join(test_set.rows[i]) for i in CONTAINED]
    corpus = root / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    (corpus / "toy-web.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    index = build_infinigram_index([corpus], root / "index", name=CORPUS)
    [result] = measure_shift(task, corpus=index, output_dir=root / "shift-reports")
    assert result.path is not None
    return result.path


def build_example_results(root: Path, tiny_model: Path, report: Path, *, limit: int = 10) -> Path:
    """Write the example's results files under ``root / "results"`` (:data:`MEASURED_TASK` scored with shift
    ``report`` too) and return that folder."""
    from genbench.runs import run
    from genbench.runs._clean_subset import shift_flags_by_task
    from genbench.runs._demo import run_demo
    from genbench.runs._scoring import BootstrapSettings

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
            shift_reports=shift_flags_by_task([report], [MEASURED_TASK]),
        )
    return results


def screenshots(site: Path, directory: Path) -> list[Path]:
    """The overview's first screen, the overview with the generalisation-type axis picked, a task page, and the
    measured shift with the contamination flag: on the overview's scores per task and on the measured task's page."""
    from tests.leaderboard.browser import Browser
    from tests.leaderboard.test_browser import BROWSER

    assert BROWSER is not None, "no Chromium on PATH"
    browser = Browser(BROWSER, 1400, 900)
    shots = []
    try:
        for name, url, axis in [
            ("leaderboard_overview.png", site / "index.html", None),
            ("leaderboard_axis.png", site / "index.html", "generalisation_type"),
            ("leaderboard_task.png", site / "tasks" / "category_membership.html", None),
            ("leaderboard_shift_overview.png", site / "index.html", None),
            ("leaderboard_contamination.png", site / "tasks" / f"{MEASURED_TASK}.html", "#gb-measured-shift"),
        ]:
            browser.open(url.as_uri())
            if axis and axis.startswith("#"):  # scrolled to an element, not an axis picked
                browser.evaluate(f"document.querySelector('{axis}').scrollIntoView(); window.scrollBy(0, -110)")
            elif axis:
                browser.click(f'button.gb-axis-button[data-axis="{axis}"]')
            assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), name
            browser.screenshot(directory / name)
            shots.append(directory / name)
    finally:
        browser.close()
    return shots


def main(out: Path, screenshot_dir: Path | None = None) -> None:
    from genbench._leaderboard import build_leaderboard
    from genbench._leaderboard.model_info import ModelInfo
    from tests.runs.conftest import tiny_gpt2

    class Factory:
        def mktemp(self, name: str) -> Path:
            path = out / name
            path.mkdir(parents=True, exist_ok=True)
            return path

    results = out / "results"
    report = out / "shift-reports" / f"{MEASURED_TASK}.shift.json"
    model = out / "tiny-gpt2"
    if not results.is_dir():
        report = measure_example_shift(out)
        model = tiny_gpt2.__wrapped__(Factory())  # type: ignore[attr-defined]
        results = build_example_results(out, model, report)
    # The tiny GPT-2 (of both seeds) declares the toy corpus as its training corpus.
    models = {f"hf:{model}": ModelInfo(training_corpora=[CORPUS])}
    site = build_leaderboard([results], out / "site", shots=1, shift_reports=[report], model_info=models)
    print(site.index)
    if screenshot_dir is not None:
        print(*screenshots(out / "site", screenshot_dir), sep="\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None)
