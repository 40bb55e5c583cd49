"""The leaderboard's HTML pages: the overview, one page per task, one page per model.

Every page is a single self-contained file (style and script inlined, see ``assets.py``); links are relative, so
the site works opened from ``file://`` and copied anywhere.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

from genbench.display.html import escape
from genbench.leaderboard.assets import SITE_CSS, SITE_JS
from genbench.leaderboard.chart import score_vs_shots_svg, shots_label
from genbench.leaderboard.collect import Leaderboard, ModelEntry, TaskEntry


def page(title: str, body: str, *, root: str) -> str:
    """A complete HTML document; ``root`` is the relative path to the site's root (``""`` or ``"../"``)."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
        f"<style>{SITE_CSS}</style><script>{SITE_JS}</script></head><body>"
        f'<nav><a href="{root}index.html">genbench leaderboard</a></nav>{body}</body></html>'
    )


def number(value: Any) -> float | None:
    """A metric value as a finite float, else None (booleans, lists, null and NaN are not scores)."""
    if isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value)):
        return float(value)
    return None


def metric_cell(metric: dict[str, Any] | None) -> tuple[str, str]:
    """``(html, sort key)`` of a metric: its value and, when known, its interval."""
    value = number(metric["value"]) if metric else None
    if value is None:
        return '<span class="gb-missing">—</span>', ""
    ci = metric.get("ci") if metric else None
    interval = f' <span class="gb-ci">[{ci[0]:.3f}, {ci[1]:.3f}]</span>' if ci else ""
    return f"{value:.3f}{interval}", repr(value)


def td(html: str, sort: str) -> str:
    return f'<td data-sort="{escape(sort)}">{html}</td>'


def overview_shots(board: Leaderboard, task: TaskEntry, preferred: int) -> int | None:
    """The setting shown for a task in the overview: ``preferred`` shots where any model has it, else the task's
    unprompted evaluation, else its smallest number of shots."""
    settings = {s for (_, t), cell in board.cells.items() if t == task.task_id for s in cell.evaluations}
    if preferred in settings:
        return preferred
    if None in settings:
        return None
    return min(s for s in settings if s is not None)


def index_page(board: Leaderboard, preferred_shots: int) -> str:
    tasks = sorted(board.tasks.values(), key=lambda t: t.task_id)
    models = sorted(board.models.values(), key=lambda m: m.label)
    shown = {t.task_id: overview_shots(board, t, preferred_shots) for t in tasks}
    header = ['<th class="sortable" data-type="text">Model</th>']
    for task in tasks:
        header.append(
            f'<th class="sortable" data-type="number" data-keywords="{escape(" ".join(task.keywords))}" '
            f'title="{escape(task.name)}"><a href="tasks/{escape(task.slug)}.html">{escape(task.task_id)}</a>'
            f"<br><small>{escape(shots_label(shown[task.task_id]))}</small></th>"
        )
    rows = []
    for model in models:
        cells = [td(f'<a href="models/{escape(model.slug)}.html">{escape(model.label)}</a>', model.label)]
        for task in tasks:
            cell = board.cells.get((model.key, task.task_id))
            evaluation = cell.evaluations.get(shown[task.task_id]) if cell else None
            metric = evaluation["metrics"].get(evaluation["primary_metric"] or "") if evaluation else None
            cells.append(td(*metric_cell(metric)))
        rows.append("<tr>" + "".join(cells) + "</tr>")
    primary = sorted({e["primary_metric"] or "?" for c in board.cells.values() for e in c.evaluations.values()})
    body = (
        f"<h1>Leaderboard: {len(models)} model{'s' * (len(models) != 1)} × {len(tasks)} "
        f"task{'s' * (len(tasks) != 1)}</h1>"
        "<p>Each cell: the task's primary metric with its confidence interval, at the setting named under the "
        f"task (preferred: {escape(shots_label(preferred_shots))}). Click a header to sort; type to show only "
        f"the tasks with a keyword. Primary metrics: {escape(', '.join(primary))}.</p>"
        '<input id="gb-filter" type="search" placeholder="filter tasks by keyword" aria-label="filter by keyword">'
        '<table class="gb-board gb-filterable" id="gb-overview"><thead><tr>'
        + "".join(header)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )
    return page("genbench leaderboard", body, root="")


def task_page(board: Leaderboard, task: TaskEntry, card_html: str) -> str:
    cells = [(board.models[m], cell) for (m, t), cell in board.cells.items() if t == task.task_id]
    cells.sort(key=lambda item: item[0].label)
    metric_names: list[str] = []
    for _, cell in cells:
        for evaluation in cell.evaluations.values():
            for name, metric in evaluation["metrics"].items():
                if number(metric["value"]) is not None and name not in metric_names:
                    metric_names.append(name)
    primary = next(
        (e["primary_metric"] for _, c in cells for e in c.evaluations.values() if e["primary_metric"]), None
    )
    if primary in metric_names:
        metric_names.remove(primary)
        metric_names.insert(0, primary)
    header = '<th class="sortable" data-type="text">Model</th><th class="sortable" data-type="number">Shots</th>'
    header += '<th class="sortable" data-type="number">n</th>'
    header += "".join(f'<th class="sortable" data-type="number">{escape(name)}</th>' for name in metric_names)
    rows = []
    series: dict[str, dict[int | None, tuple[float, tuple[float, float] | None]]] = {}
    for model, cell in cells:
        for shots, evaluation in sorted(cell.evaluations.items(), key=lambda kv: -1 if kv[0] is None else kv[0]):
            row = [
                td(f'<a href="../models/{escape(model.slug)}.html">{escape(model.label)}</a>', model.label),
                td(escape(shots_label(shots)), "" if shots is None else str(shots)),
                td(str(evaluation["num_examples"]), str(evaluation["num_examples"])),
            ]
            row += [td(*metric_cell(evaluation["metrics"].get(name))) for name in metric_names]
            rows.append("<tr>" + "".join(row) + "</tr>")
            metric = evaluation["metrics"].get(primary or "")
            value = number(metric["value"]) if metric else None
            if value is not None:
                ci = metric.get("ci") if metric else None
                series.setdefault(model.label, {})[shots] = (value, (ci[0], ci[1]) if ci else None)
    chart = score_vs_shots_svg(series, primary or "primary metric")
    fingerprint = task.fingerprint["sha256"]
    body = (
        f'<h1>{escape(task.name)} <small class="gb-ci">{escape(task.task_id)}</small></h1>'
        f'<p class="gb-ci">Task fingerprint {escape(fingerprint[:16])}… (all results on this page share it).</p>'
        f"<h2>{escape(primary or 'Primary metric')} by number of shots</h2>{chart}"
        '<h2>Metrics per model and setting</h2><table class="gb-board" id="gb-task-metrics"><thead><tr>'
        + header
        + "</tr></thead><tbody>"
        + "".join(rows)
        + f"</tbody></table><h2>The task</h2>{card_html}"
    )
    return page(f"{task.task_id} · genbench leaderboard", body, root="../")


def model_page(board: Leaderboard, model: ModelEntry) -> str:
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
                + td(escape(primary or "—"), primary)
                + td(*metric_cell(evaluation["metrics"].get(primary)))
                + td(str(evaluation["num_examples"]), str(evaluation["num_examples"]))
                + td(escape(cell.created), cell.created)
                + "</tr>"
            )
    facts = [("Spec", model.spec), ("Kind", model.kind), ("Revision", model.revision or "unknown")]
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
