"""The leaderboard's HTML pages: the overview, one page per task, one page per model.

Every page is a single self-contained file (style and script inlined, see ``assets.py``); links are relative, so
the site works opened from ``file://`` and copied anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from genbench.core.metric_direction import Direction
from genbench.core.metric_values import finite_number
from genbench.display.html import escape
from genbench.leaderboard.assets import SITE_CSS, SITE_JS
from genbench.leaderboard.chart import score_vs_shots_svg, shots_label
from genbench.leaderboard.collect import Leaderboard, ModelEntry, TaskEntry
from genbench.leaderboard.names import DIRECTION_MARKS, direction_note, metric_direction, metric_label
from genbench.leaderboard.sample_logs import SampleLogs
from genbench.leaderboard.standings import RESAMPLES, Headline, Score, Standing, cell_score


def page(title: str, body: str, *, root: str) -> str:
    """A complete HTML document; ``root`` is the relative path to the site's root (``""`` or ``"../"``)."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
        f"<style>{SITE_CSS}</style><script>{SITE_JS}</script></head><body>"
        f'<nav><a href="{root}index.html">genbench leaderboard</a></nav>{body}</body></html>'
    )


def metric_cell(metric: dict[str, Any] | None, direction: Direction = "higher") -> tuple[str, str]:
    """``(html, sort key)`` of a metric: its value and, when known, its interval. A closer-to-zero metric
    (``direction`` ``zero``) sorts by its absolute value, so that sorting orders it by how good it is."""
    value = finite_number(metric["value"]) if metric else None
    if value is None:
        reason = metric.get("reason") if metric else None
        return f'<span class="gb-missing" title="{escape(reason or "no value")}">—</span>', ""
    ci = metric.get("ci") if metric else None
    interval = f' <span class="gb-ci">[{ci[0]:.3f}, {ci[1]:.3f}]</span>' if ci else ""
    return f"{value:.3f}{interval}", repr(abs(value) if direction == "zero" else value)


def td(html: str, sort: str) -> str:
    return f'<td data-sort="{escape(sort)}">{html}</td>'


def metric_header(key: str, declared: Mapping[str, str] | None = None) -> str:
    """A sortable header naming a metric for a reader; on hover its raw key and which way it is better, declared by
    the task (``metric_directions``) or guessed from its name; a lower-is-better metric is marked ``↓``, a
    closer-to-zero one ``|x|↓`` (its column sorts by absolute value)."""
    direction, _ = metric_direction(key, declared)
    mark = f' <span class="gb-direction">{DIRECTION_MARKS[direction]}</span>' if DIRECTION_MARKS[direction] else ""
    title = f"{key}: {direction_note(key, declared)}"
    return f'<th class="sortable" data-type="number" title="{escape(title)}">{escape(metric_label(key))}{mark}</th>'


def task_page(
    board: Leaderboard,
    task: TaskEntry,
    card_html: str,
    headline: str | None = None,
    logs: SampleLogs | None = None,
    resamples: int = RESAMPLES,
    known: Mapping[tuple[str, str, int | None, str | None], Score | None] | None = None,
) -> str:
    """A task's page; ``headline``: the metric the overview ranks it by (else the results' primary metric). The
    chart's points are means over a model's seeds (:func:`cell_score`, which reads per-sample ``logs``; ``known``:
    the ones the ranking computed already, :attr:`Standings.cell_scores`)."""
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
    if primary in metric_names:
        metric_names.remove(primary)
        metric_names.insert(0, primary)
    header = '<th class="sortable" data-type="text">Model</th><th class="sortable" data-type="number">Shots</th>'
    header += '<th class="sortable" data-type="number">n</th>'
    header += "".join(metric_header(name, task.metric_directions) for name in metric_names)
    directions = {name: metric_direction(name, task.metric_directions)[0] for name in metric_names}
    rows = []
    series: dict[str, dict[int | None, tuple[float, tuple[float, float] | None]]] = {}
    for model, cell in cells:
        # One row per seed and setting: seeds of a model are listed, the overview averages them.
        runs = sorted(cell.runs.values(), key=lambda run: run.seed)
        for run in runs:
            row_label = model.label + (f" (seed {run.seed})" if len(runs) > 1 else "")
            for shots, run_evaluation in sorted(
                run.evaluations.items(), key=lambda kv: -1 if kv[0] is None else kv[0]
            ):
                row = [
                    td(f'<a href="../models/{escape(model.slug)}.html">{escape(row_label)}</a>', row_label),
                    td(escape(shots_label(shots)), "" if shots is None else str(shots)),
                    td(str(run_evaluation["num_examples"]), str(run_evaluation["num_examples"])),
                ]
                row += [
                    td(*metric_cell(run_evaluation["metrics"].get(name), directions[name])) for name in metric_names
                ]
                rows.append("<tr>" + "".join(row) + "</tr>")
        for shots in sorted(cell.evaluations, key=lambda s: -1 if s is None else s):
            key = (model.key, task.task_id, shots, primary)
            if known is not None and key in known:
                point = known[key]
            else:
                point = cell_score(cell, Headline(task, primary, shots, declared=False), model, logs, resamples)
            if point is not None:
                series.setdefault(model.label, {})[shots] = (point.value, point.ci)
    chart = score_vs_shots_svg(series, metric_label(primary) if primary else "primary metric")
    fingerprint = task.fingerprint["sha256"]
    related = sorted(t for t in board.tasks if t.startswith(task.task_id + ":"))
    if task.parent in board.tasks:
        related = [task.parent]
    links = ", ".join(f'<a href="{escape(board.tasks[t].slug)}.html">{escape(t)}</a>' for t in related)
    if links:
        links = f"<p>{'Part of' if task.parent in board.tasks else 'Subtasks (detail, not ranked)'}: {links}</p>"
    body = (
        f'<h1>{escape(task.name)} <small class="gb-ci">{escape(task.task_id)}</small></h1>'
        f'<p class="gb-ci">Task fingerprint {escape(fingerprint[:16])}… (all results on this page share it).</p>'
        f"{links}"
        f"<h2>{escape(metric_label(primary) if primary else 'Primary metric')} by number of shots</h2>{chart}"
        # Many metrics (a task with subtasks has each subtask's and the merged ones) scroll in their own box.
        '<h2>Metrics per model and setting</h2><div class="gb-scroll"><table class="gb-board" id="gb-task-metrics">'
        "<thead><tr>"
        + header
        + "</tr></thead><tbody>"
        + "".join(rows)
        + f"</tbody></table></div><h2>The task</h2>{card_html}"
    )
    return page(f"{task.task_id} · genbench leaderboard", body, root="../")


def model_page(board: Leaderboard, model: ModelEntry, standing: Standing | None = None) -> str:
    """A model's page: what it is, its place on the overview (``standing``), its results on every task."""
    rows = []
    for (model_key, task_id), cell in sorted(board.cells.items(), key=lambda kv: kv[0][1]):
        if model_key != model.key:
            continue
        task = board.tasks[task_id]
        for shots, evaluation in sorted(cell.evaluations.items(), key=lambda kv: -1 if kv[0] is None else kv[0]):
            primary = evaluation["primary_metric"] or ""
            rows.append(
                "<tr>"
                + td(f'<a href="../tasks/{escape(task.slug)}.html">{escape(task_id)}</a>', task_id)
                + td(escape(shots_label(shots)), "" if shots is None else str(shots))
                + td(
                    f'<span title="{escape(primary)}">{escape(metric_label(primary) if primary else "—")}</span>',
                    primary,
                )
                + td(*metric_cell(evaluation["metrics"].get(primary)))
                + td(str(evaluation["num_examples"]), str(evaluation["num_examples"]))
                + td(escape(cell.created), cell.created)
                + "</tr>"
            )
    facts = [("Spec", model.spec), ("Kind", model.kind), ("Revision", model.revision or "unknown")]
    if standing is not None:
        overall = standing.overall
        mean = overall.score
        place = (
            f"rank {standing.rank}" if standing.rank else "not ranked" + (" (a baseline)" if model.is_baseline else "")
        )
        interval = f" [{mean.ci[0]:.3f}, {mean.ci[1]:.3f}]" if mean and mean.ci else ""
        facts.append(("Overview", f"{place}; mean {mean.value:.3f}{interval}" if mean else place))
        facts.append(("Tasks covered", f"{overall.covered} of {overall.of}"))
        facts.append(("Seeds", ", ".join(map(str, standing.seeds))))
    facts += [(f"Argument {key}", value) for key, value in sorted(model.args.items())]
    if model.description:
        facts.append(("Description", model.description))
    facts_html = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in facts)
    header = "".join(
        f'<th class="sortable" data-type="{kind}">{name}</th>'
        for name, kind in [
            ("Task", "text"),
            ("Shots", "number"),
            ("Primary metric", "text"),
            ("Value", "number"),
            ("n", "number"),
            ("Created", "text"),
        ]
    )
    body = (
        f'<h1>{escape(model.label)}</h1><table class="gb-board">{facts_html}</table>'
        f'<h2>Results</h2><table class="gb-board" id="gb-model-results"><thead><tr>{header}</tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table>"
    )
    return page(f"{model.label} · genbench leaderboard", body, root="../")
