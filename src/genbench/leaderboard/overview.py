"""The overview page (``index.html``): the ranking, the means per taxonomy value, the scores per task, the baselines.

Laid out to fit a laptop screen without scrolling sideways: the ranking and the per-axis view side by side (one axis
at a time, picked with buttons), then the scores per task with tasks as rows and models as columns (a table that
scrolls inside its own box when there are many models, never the page). Long model names are cut with an ellipsis,
the full name on hover.
"""

from __future__ import annotations

import json

import numpy as np

from genbench.core.metric_direction import better_value_key
from genbench.display.html import escape
from genbench.leaderboard.chart import shots_label
from genbench.leaderboard.collect import Leaderboard, StaleFile
from genbench.leaderboard.names import DIRECTION_PHRASES, axis_label
from genbench.leaderboard.standings import GroupScore, Score, Standing, Standings


def score_html(score: Score | None, *, digits: int = 3) -> tuple[str, str]:
    """``(html, sort key)`` of a score: value, interval below it, spread over seeds when there are several."""
    if score is None:
        return '<span class="gb-missing">—</span>', ""
    parts = [f'<span class="gb-value">{score.value:.{digits}f}</span>']
    if score.ci:
        parts.append(f'<span class="gb-ci gb-sub">[{score.ci[0]:.{digits}f}, {score.ci[1]:.{digits}f}]</span>')
    if score.spread is not None:
        parts.append(
            f'<span class="gb-ci gb-sub" title="standard deviation over seeds">±{score.spread:.{digits}f} sd</span>'
        )
    return "".join(parts), repr(score.value)


def group_html(group: GroupScore) -> tuple[str, str]:
    html, sort = score_html(group.score)
    if group.score is not None and not group.complete:
        html += f'<span class="gb-partial-mark" title="covers {group.covered} of {group.of} tasks">'
        html += f"{group.covered}/{group.of} tasks</span>"
    return html, sort


def td(html: str, sort: str, css: str = "", title: str = "") -> str:
    attributes = f' class="{css}"' if css else ""
    attributes += f' title="{escape(title)}"' if title else ""
    return f'<td data-sort="{escape(sort)}"{attributes}>{html}</td>'


def model_link(standing: Standing) -> str:
    model = standing.model
    return (
        f'<a class="gb-name" href="models/{escape(model.slug)}.html" title="{escape(model.label)}">'
        f"{escape(model.label)}</a>"
    )


def ranking_table(standings: Standings) -> str:
    header = "".join(
        f'<th class="sortable{" gb-left" if name == "Model" else ""}" data-type="{kind}"{title}>{name}</th>'
        for name, kind, title in [
            ("#", "number", ' title="rank among the models that cover every ranked task"'),
            ("Model", "text", ""),
            ("Mean score", "number", ' title="mean of the tasks\' headline scores, 95% bootstrap interval"'),
            ("Tasks", "number", ' title="ranked tasks covered"'),
            ("Seeds", "number", ' title="runs with different seeds, averaged; ± their standard deviation"'),
        ]
    )

    index = {id(s): n for n, s in enumerate(standings.models + standings.baselines)}

    def row(standing: Standing, css: str) -> str:
        overall = standing.overall
        partial = not overall.complete
        rank = str(standing.rank) if standing.rank else "—"
        seeds = str(len(standing.seeds))
        if standing.seed_spread is not None:
            seeds += f' <span class="gb-ci">±{standing.seed_spread:.3f}</span>'
        coverage = f"{overall.covered}/{overall.of}"
        if partial:
            coverage = f'<span class="gb-partial-mark" title="not ranked: misses a task">{coverage}</span>'
        return (
            f'<tr class="{css}{" gb-partial" if partial else ""}" data-model="{index[id(standing)]}">'
            + td(rank, str(standing.rank or ""))
            + td(model_link(standing), standing.model.label, "gb-model")
            + td(*score_html(overall.score))
            + td(coverage, str(overall.covered))
            + td(seeds, str(len(standing.seeds)))
            + "</tr>"
        )

    body = "".join(row(s, "gb-ranked" if s.rank else "") for s in standings.models)
    if not standings.models:
        body = (
            '<tr><td colspan="5" class="gb-note gb-no-models">No model ranked yet: these results hold baselines '
            'only (listed below). <a href="#gb-add-models">How to add a model</a>.</td></tr>'
        )
    baselines = ""
    if standings.baselines:
        baselines = (
            '<tbody class="gb-baselines"><tr><th colspan="5" class="gb-group">Baselines (not ranked: the demo\'s '
            "simple predictors, each for the tasks it fits)</th></tr>"
            + "".join(row(s, "gb-baseline") for s in standings.baselines)
            + "</tbody>"
        )
    return (
        f'<table class="gb-board" id="gb-ranking"><thead><tr>{header}</tr></thead><tbody>{body}</tbody>'
        f"{baselines}</table>"
    )


def axes_view(standings: Standings) -> str:
    """One table per taxonomy axis (models x values of the axis); buttons show one axis at a time."""
    buttons, tables = [], []
    rows = standings.models + standings.baselines
    index = {id(s): n for n, s in enumerate(rows)}
    for number, (axis, values) in enumerate(standings.groups.items()):
        hidden = "" if number == 0 else " gb-hidden"
        pressed = "true" if number == 0 else "false"
        buttons.append(
            f'<button type="button" class="gb-axis-button" data-axis="{axis}" aria-pressed="{pressed}">'
            f"{escape(axis_label(axis))}</button>"
        )
        header = '<th class="sortable gb-left" data-type="text">Model</th>' + "".join(
            f'<th class="sortable" data-type="number" title="{escape(", ".join(ids))}" '
            f'data-tasks="{escape(" ".join(ids))}">{escape(value)}'
            f'<br><small class="gb-ci">{len(ids)} task{"s" * (len(ids) != 1)}</small></th>'
            for value, ids in values.items()
        )
        body = "".join(
            f'<tr class="{"gb-baseline" if s.model.is_baseline else ""}" data-model="{index[id(s)]}">'
            + td(model_link(s), s.model.label, "gb-model")
            + "".join(td(*group_html(s.axes[axis][value])) for value in values)
            + "</tr>"
            for s in rows
        )
        tables.append(
            f'<table class="gb-board gb-axis-table{hidden}" data-axis="{axis}" id="gb-axis-{axis}">'
            f"<thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"
        )
    return (
        f'<div class="gb-axis-buttons" role="group" aria-label="taxonomy axis">{"".join(buttons)}</div>'
        f'<div class="gb-scroll">{"".join(tables)}</div>'
    )


def tasks_table(board: Leaderboard, standings: Standings) -> str:
    """Tasks as rows (headline metric, setting, taxonomy), models as columns in ranked order, then the best
    baseline; with no model results, a column per baseline (marked as one)."""
    models = standings.models or standings.baselines
    best_baseline = bool(standings.models and standings.baselines)
    header = '<th class="sortable gb-left" data-type="text">Task</th>' + "".join(
        f'<th class="sortable gb-model-col" data-type="number" title="{escape(s.model.label)}">'
        f'<span class="gb-name">{escape(s.model.label.removeprefix("baseline:"))}</span>'
        + ('<br><small class="gb-ci">baseline</small>' if s.model.is_baseline else "")
        + "</th>"
        for s in models
    )
    if best_baseline:
        header += '<th class="sortable" data-type="number" title="the best baseline on the task">Best baseline</th>'
    rows = []
    for task_id, headline in standings.headlines.items():
        task = headline.task
        taxonomy = " ".join(v for values in task.taxonomy.values() for v in values)
        keywords = " ".join([task_id, task.name, *task.keywords, taxonomy])
        note = ""
        if not headline.counts and headline.metric is not None:
            phrase = escape(DIRECTION_PHRASES[headline.direction])
            note = f' <span class="gb-note">({phrase}, {escape(headline.direction_source)}: not in the means)</span>'
        subtasks = standings.subtasks.get(task_id)
        detail = f'<br><small class="gb-ci">subtasks: {escape(", ".join(subtasks))}</small>' if subtasks else ""
        tags = "".join(
            f'<span class="gb-tag">{escape(v)}</span>' for v in task.taxonomy.get("generalisation_type", [])
        )
        title_cell = (
            f'<a href="tasks/{escape(task.slug)}.html" title="{escape(task.name)}">{escape(task_id)}</a>{tags}'
            f'<br><small class="gb-metric" title="{escape(headline.metric or "")}">{escape(headline.label)}, '
            f"{escape(shots_label(headline.shots))}{' (declared)' if headline.declared else ''}</small>{note}{detail}"
        )
        cells = [td(title_cell, task_id, "gb-task")]
        cells += [td(*score_html(s.tasks.get(task_id))) for s in models]
        if best_baseline:
            scored = [(s.tasks[task_id], s) for s in standings.baselines if task_id in s.tasks]
            better = better_value_key(headline.direction)
            best = max(scored, key=lambda p: better(p[0].value)) if scored else None
            html, sort = score_html(best[0] if best else None)
            cells.append(td(html, sort, title=best[1].model.label if best else ""))
        rows.append(
            f'<tr data-keywords="{escape(keywords)}" data-task="{escape(task_id)}">' + "".join(cells) + "</tr>"
        )
    return (
        '<div class="gb-scroll"><table class="gb-board gb-filterable" id="gb-tasks"><thead><tr>'
        + header
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div>"
    )


def ranking_data(standings: Standings) -> str:
    """What the page's script needs to rank again over the tasks a filter leaves (``SITE_JS``'s ``rerank``): the
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
    # Inside <script>, "</script" would end the element and "<!--" change how the rest is parsed: JSON's escaped
    # forms of <, > and & keep any label inert.
    text = json.dumps({"counted": counted, "models": models}, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="gb-ranking-data">{text}</script>'


def skipped_list(stale: list[StaleFile], not_results: int) -> str:
    if not stale and not not_results:
        return ""
    items = "".join(f"<li><code>{escape(s.path)}</code> ({escape(s.task_id)}): {escape(s.reason)}</li>" for s in stale)
    other = f"<p>{not_results} other JSON file(s) are not results files.</p>" if not_results else ""
    return (
        f'<section id="gb-skipped"><h2>Left out</h2><p>{len(stale)} stale results file(s), made from another '
        f"version of their task than the one shown:</p><ul>{items}</ul>{other}</section>"
    )


ADD_MODELS = (
    '<section id="gb-add-models"><h2>Adding model results</h2><p>A model is ranked once its results files are in '
    "the folders this leaderboard is built from. Run it on the tasks (any model <code>genbench-cli run</code> takes: "
    "<code>hf:</code>, <code>openai:</code>, <code>python:</code>), then build the leaderboard from its results and "
    "these baselines' together:</p><pre>genbench-cli run --model hf:/path/to/model --task all --shots 0 -o results\n"
    "genbench-cli demo --results-dir baselines\n"
    "genbench-cli leaderboard results baselines -o site</pre><p>Predictions made elsewhere count too: "
    "<code>genbench-cli evaluate --results-dir results --model NAME</code> scores them into a results file. Only "
    "models that cover every task are ranked; the baselines stay a block of their own, never ranked. See "
    "<code>docs/leaderboard.md</code> and <code>docs/running_models.md</code>.</p></section>"
)
"""Shown when the results hold baselines only (as the docs site's leaderboard of the shipped tasks): how to add a
model."""


def overview_body(board: Leaderboard, standings: Standings) -> str:
    ranked = sum(1 for s in standings.models if s.rank)
    counted = sum(1 for h in standings.headlines.values() if h.counts)
    stale_note = (
        f' <a href="#gb-skipped" class="gb-note">{len(board.stale)} stale file(s) left out.</a>' if board.stale else ""
    )
    if not standings.models:
        baselines = len(standings.baselines)
        heading = (
            f'<h1 id="gb-title">Baselines on {len(standings.headlines)} task{"s" * (len(standings.headlines) != 1)}'
            " (no model results yet)</h1>"
            f'<p class="gb-summary">These results hold {baselines} baseline{"s" * (baselines != 1)} only: the simple '
            "predictors of <code>genbench-cli demo</code> (a majority option, the most frequent target, ...), each "
            "run on the tasks it fits. They are what a model should beat, not a ranking: each covers its own tasks, "
            "so their means are not comparable, and no rank is given. Scores per task show every baseline, hover a "
            f'metric for its key. <a href="#gb-add-models">Add a model</a> to rank it.{stale_note}</p>'
        )
        ranking_title, closing = "Baselines", ADD_MODELS
    else:
        heading = (
            f'<h1 id="gb-title">Leaderboard: {ranked} ranked model{"s" * (ranked != 1)} over {counted} '
            f"task{'s' * (counted != 1)}</h1>"
            '<p class="gb-summary">Each task counts once, by its headline score (hover a metric for its key); a '
            "model's mean is over the tasks, with a 95% bootstrap interval from the per-sample scores. Only models "
            "covering every task are ranked; the others are marked with their coverage. Filtering the tasks ranks the "
            f"models again over the tasks shown.{stale_note}</p>"
        )
        ranking_title, closing = "Ranking", ""
    return (
        heading
        + f'<div class="gb-top"><section><h2>{ranking_title}</h2>'
        + ranking_table(standings)
        + "</section><section><h2>By taxonomy axis</h2>"
        + axes_view(standings)
        + "</section></div>"
        + '<section><h2>Scores per task</h2><input id="gb-filter" type="search" placeholder="filter tasks: id, '
        'keyword, taxonomy value" aria-label="filter tasks">'
        + tasks_table(board, standings)
        + "</section>"
        + closing
        + ranking_data(standings)
        + skipped_list(board.stale, len(board.skipped))
    )
