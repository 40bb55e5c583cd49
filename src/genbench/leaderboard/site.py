"""Build the static leaderboard site from results files: ``genbench-cli leaderboard``'s work."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from genbench.core.errors import GenBenchError
from genbench.core.files import write_text_atomic
from genbench.display.card import task_card_html, task_dict_card_html
from genbench.display.html import escape
from genbench.leaderboard.collect import Leaderboard, TaskEntry, collect
from genbench.leaderboard.pages import index_page, model_page, task_page
from genbench.runs.results import canonical_sha256


@dataclass
class Site:
    """What was built: the overview page, the task and model pages, and the JSON files skipped as not results."""

    index: Path
    task_pages: list[Path]
    model_pages: list[Path]
    skipped: list[Path]
    board: Leaderboard


def build_leaderboard(results_dirs: Iterable[str | Path], site_dir: str | Path, *, shots: int = 0) -> Site:
    """Write the leaderboard of the results files under ``results_dirs`` into ``site_dir``.

    Args:
        results_dirs: Directories searched recursively for results files (``genbench-cli run``, ``evaluate
            --results-dir``, ``demo --results-dir``).
        site_dir: Output directory (created); ``index.html``, ``tasks/<task>.html``, ``models/<model>.html``.
        shots: The setting shown in the overview when a task has it.

    Raises:
        LeaderboardError: no results files, or mixed fingerprints of one task (the files are named).
        ResultsFileError: a results file breaks the schema.
    """
    board = collect(results_dirs)
    site = Path(site_dir)
    (site / "tasks").mkdir(parents=True, exist_ok=True)
    (site / "models").mkdir(parents=True, exist_ok=True)
    task_pages = []
    for task in board.tasks.values():
        path = site / "tasks" / f"{task.slug}.html"
        write_text_atomic(path, task_page(board, task, task_card(task)))
        task_pages.append(path)
    model_pages = []
    for model in board.models.values():
        path = site / "models" / f"{model.slug}.html"
        write_text_atomic(path, model_page(board, model))
        model_pages.append(path)
    index = site / "index.html"
    write_text_atomic(index, index_page(board, shots))
    return Site(index=index, task_pages=task_pages, model_pages=model_pages, skipped=board.skipped, board=board)


def task_card(task: TaskEntry) -> str:
    """The registry's card of the task (no data loaded), noting whether its config is the one of the results; the
    results' own description of the task when the registry does not have it."""
    try:
        from genbench.task.factory import load_task

        loaded = load_task(task.task_id)
    except (GenBenchError, ImportError, SyntaxError) as exc:
        keywords = "".join(f'<span class="gb-kw">{escape(k)}</span>' for k in task.keywords) or "—"
        return (
            f'<div class="gb-card"><h3>{escape(task.name)} <span class="gb-id">{escape(task.task_id)}</span></h3>'
            f"<div>Type: {escape(task.task_type)}</div><div>Keywords: {keywords}</div>"
            f'<div class="gb-note">Not in this installation\'s registry ({escape(exc)}): shown from the results '
            "files.</div></div>"
        )
    from genbench.task.task_dict import TaskDict

    if isinstance(loaded, TaskDict):
        return task_dict_card_html(loaded, standalone=False)
    note = ""
    if canonical_sha256(loaded.config.model_dump(mode="json")) != task.fingerprint["config_sha256"]:
        note = (
            '<p class="gb-note">The registry\'s config of this task differs from the one of these results '
            "(changed since they were made).</p>"
        )
    return note + task_card_html(loaded, standalone=False)
