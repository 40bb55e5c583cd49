"""Build the static leaderboard site from results files: ``genbench-cli leaderboard``'s work."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

from genbench._core.errors import GenBenchError
from genbench._core.files import write_json_atomic, write_text_atomic
from genbench._leaderboard.aggregation import AGGREGATION_DESCRIPTIONS, Aggregation
from genbench._leaderboard.collect import Leaderboard, OnStale, StaleFile, TaskEntry, collect
from genbench._leaderboard.measured_shift import MeasuredShifts, ShiftReports, shift_document
from genbench._leaderboard.model_info import ModelInfo, read_model_info, training_corpora
from genbench._leaderboard.overview import overview_page
from genbench._leaderboard.pages import model_page, task_page
from genbench._leaderboard.selection import select_tasks
from genbench._leaderboard.standings import RESAMPLES, GroupScore, Score, Standing, Standings, rank_models
from genbench._leaderboard.templating import templates
from genbench.display._card import task_card_html, task_dict_card_html
from genbench.runs._results import canonical_sha256


@dataclass
class Site:
    """What was built: the overview page, the task and model pages, ``leaderboard.json``, what was left out, and the
    ranking."""

    index: Path
    task_pages: list[Path]
    model_pages: list[Path]
    skipped: list[Path]
    board: Leaderboard
    standings: Standings
    data: Path
    stale: list[StaleFile] = field(default_factory=list)
    unregistered: list[str] = field(default_factory=list)
    """Tasks of the results that this installation's registry does not have (shown from their results files)."""
    tasks_left_out: list[str] = field(default_factory=list)
    """Tasks of the results left out by the choice of tasks (``tasks``, ``exclude_tasks``)."""
    unknown_model_info: list[str] = field(default_factory=list)
    """Entries of the model-info file that name no model of the leaderboard."""
    unused_shift_reports: list[Path] = field(default_factory=list)
    """Shift reports given that no results file of the leaderboard records."""


def build_leaderboard(
    results_dirs: Iterable[str | Path],
    site_dir: str | Path,
    *,
    shots: int = 0,
    on_stale: OnStale = "skip",
    resamples: int = RESAMPLES,
    tasks: Sequence[str] | None = None,
    exclude_tasks: Sequence[str] | None = None,
    shift_reports: Sequence[str | Path] = (),
    model_info: str | Path | Mapping[str, ModelInfo] | None = None,
    aggregation: Aggregation = "raw",
    seed: int = 42,
) -> Site:
    """Write the leaderboard of the results files under ``results_dirs`` into ``site_dir``.

    Args:
        results_dirs: Directories searched recursively for results files (``genbench-cli run``, ``evaluate
            --results-dir``, ``demo --results-dir``).
        site_dir: Output directory (created); ``index.html``, ``tasks/<task>.html``, ``models/<model>.html`` and
            ``leaderboard.json`` (the ranking with raw metric keys).
        shots: The setting ranked when a task has it.
        on_stale: ``skip`` (default), ``latest`` or ``fail``: results files made from another version of a task
            (see :data:`genbench._leaderboard.collect.ON_STALE`).
        resamples: Bootstrap rounds of the intervals of means over tasks.
        tasks: The tasks to rank (ids or shell-style patterns; a task brings its subtasks); None: every task of the
            results.
        exclude_tasks: Tasks to leave out (ids or patterns).
        shift_reports: Shift reports to show where results record them (by SHA-256), besides those found next to
            the results files.
        model_info: A model-info file (:func:`~genbench._leaderboard.model_info.read_model_info`), or its entries:
            the training corpora of models, which give contamination flags where a shift report measured them.
        aggregation: ``raw`` (the mean of headline scores) or ``chance-normalised`` (of scores normalised to each
            task's chance level, :mod:`genbench._leaderboard.aggregation`); every page says which.
        seed: Seed of the rank intervals' bootstrap (:mod:`genbench._leaderboard.rank_intervals`).

    Raises:
        LeaderboardError: no results files, a model-info file that cannot be read, (``on_stale="fail"``) mixed
            fingerprints of one task, or a task to rank or to leave out that the results do not have.
        ResultsFileError: a results file or per-sample log breaks the schema.
    """
    installed = InstalledTasks()
    collected = collect(results_dirs, on_stale=on_stale, current_config=installed.config_sha256)
    board = select_tasks(collected, tasks, exclude_tasks)
    left_out = sorted(set(collected.tasks) - set(board.tasks))
    # A task left out stands for its subtasks.
    left_out = [t for t in left_out if ":" not in t or t.split(":", 1)[0] not in left_out]
    unregistered = [task_id for task_id in board.tasks if installed.get(task_id)[0] is None]
    logs = board.logs
    standings = rank_models(board, shots, resamples=resamples, logs=logs, aggregation=aggregation, seed=seed)
    described = AGGREGATION_DESCRIPTIONS[aggregation]
    site = Path(site_dir)
    info = read_model_info(model_info) if isinstance(model_info, (str, Path)) else dict(model_info or {})
    corpora, unknown_models = training_corpora(info, board.models.values())
    reports = ShiftReports(site, shift_reports)
    shifts = MeasuredShifts(reports, corpora)
    (site / "tasks").mkdir(parents=True, exist_ok=True)
    (site / "models").mkdir(parents=True, exist_ok=True)
    task_pages = []
    for task in board.tasks.values():
        path = site / "tasks" / f"{task.slug}.html"
        headline = standings.headlines.get(task.task_id)
        write_text_atomic(
            path,
            task_page(
                board,
                task,
                task_card(task, installed),
                headline.metric if headline else None,
                logs,
                resamples,
                standings.cell_scores,
                shifts,
                described,
            ),
        )
        task_pages.append(path)
    model_pages = []
    standing_of = {s.model.key: s for s in standings.models + standings.baselines}
    for model in board.models.values():
        path = site / "models" / f"{model.slug}.html"
        write_text_atomic(path, model_page(board, model, standing_of.get(model.key), described))
        model_pages.append(path)
    index = site / "index.html"
    write_text_atomic(
        index, overview_page(board, standings, unregistered=unregistered, tasks_left_out=left_out, shifts=shifts)
    )
    data = site / "leaderboard.json"
    document = standings_document(board, standings)
    document.update(unregistered_tasks=unregistered, tasks_left_out=left_out)
    document["measured_shift"] = {t: [shift_document(r) for r in shifts.of_task(board, t)] for t in board.tasks}
    document["contamination_flags"] = [
        {
            "model": board.models[model_key].label,
            "task": task_id,
            "corpus": flag.corpus,
            "found": flag.found,
            "examples": flag.examples,
            "report": flag.link,
        }
        for (model_key, task_id), flag in shifts.cell_flags(
            board, {t: h.shots for t, h in standings.headlines.items()}
        ).items()
    ]
    write_json_atomic(data, document)
    return Site(
        index,
        task_pages,
        model_pages,
        board.skipped,
        board,
        standings,
        data,
        board.stale,
        unregistered,
        left_out,
        unknown_models,
        reports.unused,
    )


class InstalledTasks:
    """The tasks of this installation's registry, loaded (no data) once each; None for a task it lacks."""

    def __init__(self) -> None:
        self._tasks: dict[str, tuple[Any, str | None]] = {}

    def get(self, task_id: str) -> tuple[Any, str | None]:
        """``(task or TaskDict, None)``, or ``(None, why it could not be loaded)``."""
        if task_id not in self._tasks:
            try:
                from genbench.task._factory import load_task

                self._tasks[task_id] = (load_task(task_id), None)
            except (GenBenchError, ImportError, SyntaxError) as exc:
                self._tasks[task_id] = (None, str(exc))
        return self._tasks[task_id]

    def config_sha256(self, task_id: str) -> str | None:
        """The hash of the installed task's validated config, as results record it; None when not installed (or a
        task with subtasks, whose results fingerprint their subtasks)."""
        from genbench.task._task_dict import TaskDict

        loaded, _ = self.get(task_id)
        config = None if isinstance(loaded, TaskDict) else getattr(loaded, "config", None)
        if config is None or not hasattr(config, "model_dump"):
            return None
        return canonical_sha256(config.model_dump(mode="json"))


def standings_document(board: Leaderboard, standings: Standings) -> dict[str, Any]:
    """``leaderboard.json``: the ranking with raw metric keys and human labels, coverage, intervals, rank intervals,
    the aggregation ranked by (and chance-normalised: each task's chance level and normalised scores), left-out
    files."""

    def score(value: Score | None) -> dict[str, Any] | None:
        if value is None:
            return None
        return {
            "value": value.value,
            "ci": list(value.ci) if value.ci else None,
            "ci_source": value.ci_source,
            "seed_values": value.seed_values or None,
        }

    def group(value: GroupScore) -> dict[str, Any]:
        return {"score": score(value.score), "covered": value.covered, "of": value.of}

    def model(standing: Standing) -> dict[str, Any]:
        return {
            "label": standing.model.label,
            "spec": standing.model.spec,
            "args": standing.model.args,
            "revision": standing.model.revision,
            "baseline": standing.model.is_baseline,
            "rank": standing.rank,
            "rank_interval": str(standing.rank_interval) if standing.rank_interval else None,
            "mean": group(standing.overall),
            "seeds": standing.seeds,
            "seed_spread": standing.seed_spread,
            "tasks": {task_id: score(value) for task_id, value in standing.tasks.items()},
            "axes": {axis: {value: group(g) for value, g in values.items()} for axis, values in standing.axes.items()},
            **(
                {"normalised_tasks": {t: score(v) for t, v in standing.aggregated.items()}}
                if standings.aggregation != "raw"
                else {}
            ),
        }

    intervals = standings.rank_intervals

    return {
        "tasks": [
            {
                "id": task_id,
                "name": headline.task.name,
                "metric": headline.metric,
                "metric_label": headline.label,
                "shots": headline.shots,
                "declared": headline.declared,
                "direction": headline.direction,
                "lower_is_better": headline.lower_is_better,
                "direction_source": headline.direction_source,
                "in_means": headline.counts,
                "taxonomy": headline.task.taxonomy,
                "subtasks": standings.subtasks.get(task_id, []),
            }
            for task_id, headline in standings.headlines.items()
        ],
        "aggregation": standings.aggregation,
        "aggregation_description": AGGREGATION_DESCRIPTIONS[standings.aggregation],
        "ranked_tasks": standings.counted,
        "chance_levels": {
            t: {"chance": level.chance, "perfect": level.perfect, "source": level.source}
            for t, level in standings.chance_levels.items()
        },
        "rank_intervals": {
            "method": intervals.method,
            "missing": [{"model": m, "task": t, "why": why} for m, t, why in intervals.missing],
        },
        "models": [model(s) for s in standings.models],
        "baselines": [model(s) for s in standings.baselines],
        "taxonomy_groups": standings.groups,
        "stale": [{"path": str(s.path), "task": s.task_id, "reason": s.reason} for s in board.stale],
        "not_results": [str(p) for p in board.skipped],
    }


def task_card(task: TaskEntry, installed: InstalledTasks | None = None) -> str:
    """The registry's card of the task (no data loaded), noting whether its config is the one of the results; the
    results' own description of the task when the registry does not have it."""
    loaded, exc = (installed or InstalledTasks()).get(task.task_id)
    if loaded is None:
        return templates().get_template("results_card.html.j2").render(task=task, why=exc)
    from genbench.task._task_dict import TaskDict

    if isinstance(loaded, TaskDict):
        return task_dict_card_html(loaded, standalone=False, python_hints=False)
    changed = canonical_sha256(loaded.config.model_dump(mode="json")) != task.fingerprint["config_sha256"]
    card = Markup(task_card_html(loaded, standalone=False, python_hints=False))
    return templates().get_template("registry_card.html.j2").render(card=card, changed=changed)
