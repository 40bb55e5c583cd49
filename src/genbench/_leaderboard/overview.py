"""The overview page (``index.html``): the ranking, the means per taxonomy value, the scores per task, the baselines.

What each part shows is computed here; the markup is in ``templates/overview.html.j2`` and the templates it
includes, laid out to fit a laptop screen without scrolling sideways. See docs/leaderboard.md#the-overview-a-ranking.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from genbench._core.metric_direction import better_value_key
from genbench._leaderboard.aggregation import AGGREGATION_DESCRIPTIONS
from genbench._leaderboard.collect import Leaderboard, ModelEntry
from genbench._leaderboard.measured_shift import MeasuredShifts
from genbench._leaderboard.names import DIRECTION_PHRASES, short_model_labels, taxonomy_value_label
from genbench._leaderboard.standings import Headline, Score, Standings
from genbench._leaderboard.templating import render_page


@dataclass
class BestBaseline:
    """The best baseline's score on a task (nearest 0 for a closer-to-zero headline)."""

    score: Score
    model: Any


@dataclass
class Coverage:
    """The counted tasks a model has results on, and those it misses."""

    model: ModelEntry
    covered: list[str]
    missing: list[str]


@dataclass
class UnrankedAdvice:
    """Why a leaderboard with model results ranks nobody (no model covers every task), and the tasks to choose
    (``-t``) to rank them: those every model covers, else those of the model that covers most."""

    tasks: list[str]
    models: list[Coverage]
    shared: list[str]

    @property
    def suggested(self) -> list[str]:
        return self.shared or self.models[0].covered

    @property
    def which(self) -> str:
        """Which tasks :attr:`suggested` are, in words."""
        if len(self.models) == 1:
            return "the tasks it has"
        return "the tasks they all have" if self.shared else f"the tasks of {self.models[0].model.label}"


def unranked_advice(standings: Standings) -> UnrankedAdvice | None:
    """What the page says when models have results but none is ranked; None when someone is ranked (or there are
    baselines only, which the page explains otherwise)."""
    if not standings.models or any(s.rank for s in standings.models):
        return None
    counted = [task_id for task_id, headline in standings.headlines.items() if headline.counts]
    models = [
        Coverage(s.model, [t for t in counted if t in s.tasks], [t for t in counted if t not in s.tasks])
        for s in standings.models
    ]
    models.sort(key=lambda c: -len(c.covered))
    shared = [t for t in counted if all(t in c.covered for c in models)]
    return UnrankedAdvice(counted, models, shared)


@dataclass
class TaskRow:
    """A task's row of the scores per task: its headline, the text the filter searches, its notes."""

    headline: Headline
    keywords: str
    tags: list[str]
    note: str
    subtasks: list[str]
    best: BestBaseline | None
    registered: bool


def task_rows(standings: Standings, unregistered: Collection[str] = ()) -> list[TaskRow]:
    """The rows of the scores per task, in the order of the headlines; the filter searches each task's id, name,
    keywords and taxonomy values (ids and labels)."""
    rows = []
    for task_id, headline in standings.headlines.items():
        task = headline.task
        taxonomy = " ".join(
            f"{value} {taxonomy_value_label(axis, value)}"
            for axis, values in task.taxonomy.items()
            for value in values
        )
        note = ""
        if not headline.counts and headline.metric is not None:
            note = f"{DIRECTION_PHRASES[headline.direction]}, {headline.direction_source}"
        scored = [(s.tasks[task_id], s) for s in standings.baselines if task_id in s.tasks]
        better = better_value_key(headline.direction)
        best = max(scored, key=lambda pair: better(pair[0].value)) if scored else None
        rows.append(
            TaskRow(
                headline=headline,
                keywords=" ".join([task_id, task.name, *task.keywords, taxonomy]),
                tags=[
                    taxonomy_value_label("generalisation_type", v)
                    for v in task.taxonomy.get("generalisation_type", [])
                ],
                note=note,
                subtasks=standings.subtasks.get(task_id, []),
                best=BestBaseline(best[0], best[1].model) if best else None,
                registered=task_id not in unregistered,
            )
        )
    return rows


def ranking_data(standings: Standings) -> dict[str, Any]:
    """What the page's script needs to rank again over the tasks a filter leaves (``site.js``'s ``rerank``): the
    counted tasks, and per model (in the order of the rows' ``data-model``) each task's score (as the means take it:
    raw or chance-normalised) and the standard
    deviation of its bootstrap replicates. A filtered mean's interval is the normal approximation from those (tasks
    are independent: the variance of a mean of k tasks is the sum of their variances over k²); the unfiltered page
    keeps the intervals of the full bootstrap."""
    models = [
        {
            "label": s.model.label,
            "baseline": s.model.is_baseline,
            "scores": {
                task_id: [score.value, float(np.std(score.replicates)) if score.ci_source != "none" else None]
                for task_id, score in s.aggregated.items()
            },
        }
        for s in standings.models + standings.baselines
    ]
    return {"counted": standings.counted, "models": models}


def overview_page(
    board: Leaderboard,
    standings: Standings,
    *,
    unregistered: Sequence[str] = (),
    tasks_left_out: Sequence[str] = (),
    shifts: MeasuredShifts | None = None,
) -> str:
    """The site's ``index.html``; ``unregistered``: the tasks this installation's registry does not have,
    ``tasks_left_out``: the tasks of the results left out by the choice of tasks to rank; ``shifts``: the shift
    reports shown (per task) and the models' training corpora (contamination flags next to their scores)."""
    columns = standings.models or standings.baselines
    models = short_model_labels(s.model.label for s in columns if not s.model.is_baseline)
    return render_page(
        "overview.html.j2",
        root="",
        board=board,
        standings=standings,
        ranked=sum(1 for standing in standings.models if standing.rank),
        counted=standings.counted,
        aggregation_description=AGGREGATION_DESCRIPTIONS[standings.aggregation],
        columns=columns,
        ranking_labels=short_model_labels((s.model.label for s in standings.models), limit=28),
        short_labels={
            **models,
            **{s.model.label: s.model.label.removeprefix("baseline:") for s in standings.baselines},
        },
        unregistered=unregistered,
        tasks_left_out=tasks_left_out,
        advice=unranked_advice(standings),
        best_baseline=bool(standings.models and standings.baselines),
        task_rows=task_rows(standings, unregistered),
        ranking_data=ranking_data(standings),
        task_shifts={t: shifts.of_task(board, t) for t in standings.headlines} if shifts else {},
        flags=shifts.cell_flags(board, {t: h.shots for t, h in standings.headlines.items()}) if shifts else {},
    )
