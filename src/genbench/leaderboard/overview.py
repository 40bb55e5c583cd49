"""The overview page (``index.html``): the ranking, the means per taxonomy value, the scores per task, the baselines.

What each part shows is computed here; the markup is in ``templates/overview.html.j2`` and the templates it
includes. Laid out to fit a laptop screen without scrolling sideways: the ranking and the per-axis view side by side
(one axis at a time, picked with buttons), then the scores per task with tasks as rows and models as columns (a table
that scrolls inside its own box when there are many models, never the page). Long model names are cut with an
ellipsis, the full name on hover.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from genbench.core.metric_direction import better_value_key
from genbench.leaderboard.collect import Leaderboard
from genbench.leaderboard.names import DIRECTION_PHRASES
from genbench.leaderboard.standings import Headline, Score, Standings
from genbench.leaderboard.templating import render_page


@dataclass
class BestBaseline:
    """The best baseline's score on a task (nearest 0 for a closer-to-zero headline)."""

    score: Score
    model: Any


@dataclass
class TaskRow:
    """A task's row of the scores per task: its headline, the text the filter searches, its notes."""

    headline: Headline
    keywords: str
    tags: list[str]
    note: str
    subtasks: list[str]
    best: BestBaseline | None


def task_rows(standings: Standings) -> list[TaskRow]:
    """The rows of the scores per task, in the order of the headlines."""
    rows = []
    for task_id, headline in standings.headlines.items():
        task = headline.task
        taxonomy = " ".join(v for values in task.taxonomy.values() for v in values)
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
                tags=list(task.taxonomy.get("generalisation_type", [])),
                note=note,
                subtasks=standings.subtasks.get(task_id, []),
                best=BestBaseline(best[0], best[1].model) if best else None,
            )
        )
    return rows


def ranking_data(standings: Standings) -> dict[str, Any]:
    """What the page's script needs to rank again over the tasks a filter leaves (``site.js``'s ``rerank``): the
    counted tasks, and per model (in the order of the rows' ``data-model``) each task's score and the standard
    deviation of its bootstrap replicates. A filtered mean's interval is the normal approximation from those (tasks
    are independent: the variance of a mean of k tasks is the sum of their variances over k²); the unfiltered page
    keeps the intervals of the full bootstrap."""
    models = [
        {
            "label": s.model.label,
            "baseline": s.model.is_baseline,
            "scores": {
                task_id: [score.value, float(np.std(score.replicates)) if score.ci_source != "none" else None]
                for task_id, score in s.tasks.items()
            },
        }
        for s in standings.models + standings.baselines
    ]
    counted = [task_id for task_id, headline in standings.headlines.items() if headline.counts]
    return {"counted": counted, "models": models}


def overview_page(board: Leaderboard, standings: Standings) -> str:
    """The site's ``index.html``."""
    return render_page(
        "overview.html.j2",
        root="",
        board=board,
        standings=standings,
        ranked=sum(1 for standing in standings.models if standing.rank),
        counted=[task_id for task_id, headline in standings.headlines.items() if headline.counts],
        columns=standings.models or standings.baselines,
        best_baseline=bool(standings.models and standings.baselines),
        task_rows=task_rows(standings),
        ranking_data=ranking_data(standings),
    )
