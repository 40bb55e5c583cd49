"""An inline SVG chart of a metric against the number of shots, one line per model, with interval error bars.

Hand-written SVG rather than a plotting library: the leaderboard pages must open from ``file://`` with no network
and no script library, and a few lines and bars need nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping

from genbench.display.html import escape

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
WIDTH, HEIGHT = 620, 300
LEFT, RIGHT, TOP, BOTTOM = 50, 210, 16, 40

Point = tuple[float, tuple[float, float] | None]  # value, (low, high) interval


def shots_label(shots: int | None) -> str:
    """``3`` -> ``'3-shot'``; ``None`` (evaluated without prompts) -> ``'unprompted'``."""
    return "unprompted" if shots is None else f"{shots}-shot"


def _short(name: str, limit: int = 30) -> str:
    """A legend label that fits: a long name's start (the model kind) and end (file, function) around an ellipsis.

    >>> _short("python:/a/very/long/path/to/predictors.py:shortest_option")
    'python:/a/….py:shortest_option'
    """
    return name if len(name) <= limit else name[: limit // 3] + "…" + name[-(limit - limit // 3 - 1) :]


def score_vs_shots_svg(series: Mapping[str, Mapping[int | None, Point]], metric: str) -> str:
    """The chart of ``metric`` for each series (a model's name -> shots -> (value, interval)).

    The x axis lists every number of shots of any series, in order (unprompted first); the y axis spans [0, 1]
    when every value and interval lies there, else the data's range.

    >>> svg = score_vs_shots_svg({"m": {0: (0.5, (0.4, 0.6)), 3: (0.7, None)}}, "accuracy")
    >>> svg.count('class="gb-point"'), svg.count('class="gb-errorbar"')
    (2, 1)
    """
    shots = sorted({s for points in series.values() for s in points}, key=lambda s: -1 if s is None else s)
    numbers = [v for points in series.values() for value, ci in points.values() for v in (value, *(ci or ()))]
    if not shots or not numbers:
        return '<p class="gb-note">No numeric values to chart.</p>'
    low, high = (0.0, 1.0) if min(numbers) >= 0 and max(numbers) <= 1 else (min(numbers), max(numbers))
    if high == low:
        low, high = low - 0.5, high + 0.5
    plot_width, plot_height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(s: int | None, series_number: float = (len(series) - 1) / 2) -> float:
        # Each series is shifted a little sideways so that equal values and their error bars stay visible.
        dodge = (series_number - (len(series) - 1) / 2) * min(6.0, 40.0 / len(series))
        return LEFT + plot_width * (shots.index(s) + 0.5) / len(shots) + dodge

    def y(v: float) -> float:
        return TOP + plot_height * (1 - (v - low) / (high - low))

    parts = [
        f'<svg class="gb-chart" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(metric)} by number of shots">',
        f'<line x1="{LEFT}" y1="{TOP + plot_height}" x2="{LEFT + plot_width}" y2="{TOP + plot_height}" '
        'stroke="#555"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_height}" stroke="#555"/>',
    ]
    for tick in range(5):
        value = low + (high - low) * tick / 4
        parts.append(
            f'<line x1="{LEFT}" y1="{y(value):.1f}" x2="{LEFT + plot_width}" y2="{y(value):.1f}" stroke="#eee"/>'
            f'<text x="{LEFT - 4}" y="{y(value) + 4:.1f}" font-size="11" text-anchor="end">{value:.2f}</text>'
        )
    for s in shots:
        parts.append(
            f'<text x="{x(s):.1f}" y="{TOP + plot_height + 16}" font-size="11" text-anchor="middle">'
            f"{escape(shots_label(s))}</text>"
        )
    parts.append(
        f'<text x="{LEFT + plot_width / 2:.1f}" y="{HEIGHT - 6}" font-size="11" text-anchor="middle">'
        f"{escape(metric)} (bars: confidence interval)</text>"
    )
    for number, (name, points) in enumerate(series.items()):
        color = PALETTE[number % len(PALETTE)]
        ordered = [s for s in shots if s in points]
        if len(ordered) > 1:
            path = " ".join(f"{x(s, number):.1f},{y(points[s][0]):.1f}" for s in ordered)
            parts.append(f'<polyline class="gb-line" points="{path}" fill="none" stroke="{color}"/>')
        for s in ordered:
            value, ci = points[s]
            if ci is not None:
                x0, top, bottom = x(s, number), y(ci[1]), y(ci[0])
                parts.append(
                    f'<path class="gb-errorbar" d="M{x0 - 4:.1f},{top:.1f}H{x0 + 4:.1f}M{x0:.1f},{top:.1f}'
                    f'V{bottom:.1f}M{x0 - 4:.1f},{bottom:.1f}H{x0 + 4:.1f}" stroke="{color}" fill="none"/>'
                )
            interval = f" [{ci[0]:.4f}, {ci[1]:.4f}]" if ci is not None else ""
            parts.append(
                f'<circle class="gb-point" cx="{x(s, number):.1f}" cy="{y(value):.1f}" r="3.5" fill="{color}">'
                f"<title>{escape(name)}, {escape(shots_label(s))}: {value:.4f}{escape(interval)}</title></circle>"
            )
        legend_y = TOP + 14 * number + 6
        parts.append(
            f'<rect x="{WIDTH - RIGHT + 10}" y="{legend_y - 8}" width="10" height="10" fill="{color}"/>'
            f'<text x="{WIDTH - RIGHT + 24}" y="{legend_y + 1}" font-size="11">{escape(_short(name))}'
            f"<title>{escape(name)}</title></text>"
        )
    parts.append("</svg>")
    return "".join(parts)
