"""The leaderboard's task and model pages: what each shows, computed here; the markup is in ``templates/``
(``task.html.j2``, ``model.html.j2``).

Every page is a single self-contained file (style and script inlined); links are relative, so the site works opened
from ``file://`` and copied anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from genbench._core.metric_direction import Direction, declared_direction
from genbench._core.metric_values import finite_number
from genbench._leaderboard.chart import score_vs_shots_svg
from genbench._leaderboard.clean_scores import CleanScore, clean_score, flagged_shares
from genbench._leaderboard.collect import Leaderboard, ModelEntry, TaskEntry
from genbench._leaderboard.measured_shift import MeasuredShifts
from genbench._leaderboard.names import DIRECTION_MARKS, direction_note, metric_direction, metric_label
from genbench._leaderboard.sample_logs import SampleLogs
from genbench._leaderboard.standings import RESAMPLES, Headline, Score, Standing, cell_score
from genbench._leaderboard.templating import render_page


@dataclass
class MetricColumn:
    """A metric's column on a task page: its key, label, which way it is better (and where that comes from)."""

    key: str
    label: str
    direction: Direction
    direction_note: str
    mark: str


def metric_column(key: str, declared: Mapping[str, str] | None = None) -> MetricColumn:
    """The column of metric ``key``; a lower-is-better metric is marked ``↓``, a closer-to-zero one ``|x|↓`` (its
    column sorts by absolute value)."""
    direction, _ = metric_direction(key, declared)
    return MetricColumn(key, metric_label(key), direction, direction_note(key, declared), DIRECTION_MARKS[direction])


def declares(task: TaskEntry, key: str) -> bool:
    """Whether the task declares which way metric ``key`` is better (``metric_directions``): a metric it means."""
    return declared_direction(key, task.metric_directions) is not None


def _by_shots(item: tuple[int | None, Any]) -> int:
    return -1 if item[0] is None else item[0]


def task_page(
    board: Leaderboard,
    task: TaskEntry,
    card_html: str,
    headline: str | None = None,
    logs: SampleLogs | None = None,
    resamples: int = RESAMPLES,
    known: Mapping[tuple[str, str, int | None, str | None], Score | None] | None = None,
    shifts: MeasuredShifts | None = None,
    aggregation_description: str | None = None,
) -> str:
    """A task's page; ``headline``: the metric the overview ranks it by (else the results' primary metric). The
    chart's points are means over a model's seeds (:func:`cell_score`, which reads per-sample ``logs``; ``known``:
    the ones the ranking computed already, :attr:`Standings.cell_scores`); ``shifts``: the shift reports shown and the
    models' training corpora (contamination flags); ``aggregation_description``: what the overview's means are of,
    stated on the page."""
    logs = logs or board.logs
    cells = [(board.models[m], cell) for (m, t), cell in board.cells.items() if t == task.task_id]
    cells.sort(key=lambda item: item[0].label)
    metric_names: list[str] = []
    for _, cell in cells:
        for evaluation in cell.evaluations.values():
            for name, metric in evaluation["metrics"].items():
                if finite_number(metric["value"]) is not None and name not in metric_names:
                    metric_names.append(name)
    primary = headline or next(
        (e["primary_metric"] for _, c in cells for e in c.evaluations.values() if e["primary_metric"]), None
    )
    # The headline first, then the metrics the task declares a direction for (its point: negation_consistency's
    # negation_gap__*), then the rest in the results' order.
    metric_names.sort(key=lambda name: 0 if name == primary else 1 if declares(task, name) else 2)
    rows: list[dict[str, Any]] = []
    cleans: list[CleanScore | None] = []
    series: dict[str, dict[int | None, tuple[float, tuple[float, float] | None]]] = {}
    for model, cell in cells:
        # One row per seed and setting: seeds of a model are listed, the overview averages them.
        runs = sorted(cell.runs.values(), key=lambda run: run.seed)
        for run in runs:
            label = model.label + (f" (seed {run.seed})" if len(runs) > 1 else "")
            for shots, evaluation in sorted(run.evaluations.items(), key=_by_shots):
                clean = clean_score(evaluation, run.clean_definition(shots))
                cleans.append(clean)
                flag = shifts.flag(model, task.task_id, run, shots) if shifts else None
                rows.append(
                    {
                        "model": model,
                        "label": label,
                        "shots": shots,
                        "evaluation": evaluation,
                        "clean": clean,
                        "flag": flag,
                    }
                )
        for shots in sorted(cell.evaluations, key=lambda s: -1 if s is None else s):
            key = (model.key, task.task_id, shots, primary)
            if known is not None and key in known:
                point = known[key]
            else:
                point = cell_score(cell, Headline(task, primary, shots, declared=False), model, logs, resamples)
            if point is not None:
                series.setdefault(model.label, {})[shots] = (point.value, point.ci)
    chart_metric = metric_label(primary) if primary else "primary metric"
    part_of = task.parent in board.tasks
    related = [task.parent] if part_of else sorted(t for t in board.tasks if t.startswith(task.task_id + ":"))
    return render_page(
        "task.html.j2",
        root="../",
        task=task,
        related=[board.tasks[t] for t in related if t is not None],
        part_of=part_of,
        chart_metric=metric_label(primary) if primary else "Primary metric",
        chart=score_vs_shots_svg(series, chart_metric),
        columns=[metric_column(name, task.metric_directions) for name in metric_names],
        rows=rows,
        has_clean=any(clean is not None for clean in cleans),
        flagged=flagged_shares(cleans),
        shift_reports=shifts.of_task(board, task.task_id) if shifts else [],
        card=Markup(card_html),
        aggregation_description=aggregation_description,
    )


def model_page(
    board: Leaderboard, model: ModelEntry, standing: Standing | None = None, aggregation_description: str | None = None
) -> str:
    """A model's page: what it is, its place on the overview (``standing``, with its rank interval), its results on
    every task; ``aggregation_description``: what the overview's means are of."""
    rows = []
    for (model_key, task_id), cell in sorted(board.cells.items(), key=lambda kv: kv[0][1]):
        if model_key != model.key:
            continue
        for shots, evaluation in sorted(cell.evaluations.items(), key=_by_shots):
            rows.append(
                {
                    "task": board.tasks[task_id],
                    "shots": shots,
                    "primary": evaluation["primary_metric"] or "",
                    "evaluation": evaluation,
                    "created": cell.created,
                }
            )
    facts = [("Spec", model.spec), ("Kind", model.kind), ("Revision", model.revision or "unknown")]
    if standing is not None:
        overall = standing.overall
        mean = overall.score
        place = (
            f"rank {standing.rank}" + (f" (interval {standing.rank_interval})" if standing.rank_interval else "")
            if standing.rank
            else "not ranked" + (" (a baseline)" if model.is_baseline else "")
        )
        interval = f" [{mean.ci[0]:.3f}, {mean.ci[1]:.3f}]" if mean and mean.ci else ""
        facts.append(("Overview", f"{place}; mean {mean.value:.3f}{interval}" if mean else place))
        facts.append(("Tasks covered", f"{overall.covered} of {overall.of}"))
        facts.append(("Seeds", ", ".join(map(str, standing.seeds))))
    facts += [(f"Argument {key}", value) for key, value in sorted(model.args.items())]
    if model.description:
        facts.append(("Description", model.description))
    return render_page(
        "model.html.j2",
        root="../",
        model=model,
        facts=facts,
        rows=rows,
        aggregation_description=aggregation_description,
    )
