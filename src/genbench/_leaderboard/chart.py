"""An inline SVG chart of a metric against the number of shots, one line per model, with interval error bars.

Hand-written SVG (``templates/chart.svg.j2``; the geometry here) rather than a plotting library: the leaderboard
pages must open from ``file://`` with no network and no script library, and a few lines and bars need nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from markupsafe import Markup

from genbench._leaderboard.names import short_model_labels
from genbench._leaderboard.templating import templates

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
WIDTH, HEIGHT = 620, 300
LEFT, RIGHT, TOP, BOTTOM = 50, 210, 16, 40

Point = tuple[float, tuple[float, float] | None]  # value, (low, high) interval


@dataclass
class ChartPoint:
    """A point of a series in the chart's coordinates, with its interval's ends (``ci_top``, ``ci_bottom``)."""

    shots: int | None
    x: float
    y: float
    value: float
    ci: tuple[float, float] | None
    ci_top: float
    ci_bottom: float


@dataclass
class ChartLine:
    """A series: its colour, name (shortened for the legend) and points."""

    name: str
    short_name: str
    color: str
    legend_y: int
    points: list[ChartPoint] = field(default_factory=list)


def score_vs_shots_svg(series: Mapping[str, Mapping[int | None, Point]], metric: str) -> Markup:
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
        return Markup(templates().get_template("chart.svg.j2").render(lines=[]))
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

    lines = []
    legend = short_model_labels(series, limit=30)
    for number, (name, points) in enumerate(series.items()):
        line = ChartLine(name, legend[name], PALETTE[number % len(PALETTE)], TOP + 14 * number + 6)
        for s in (s for s in shots if s in points):
            value, ci = points[s]
            top, bottom = (y(ci[1]), y(ci[0])) if ci is not None else (0.0, 0.0)
            line.points.append(ChartPoint(s, x(s, number), y(value), value, ci, top, bottom))
        lines.append(line)
    ticks = [{"value": low + (high - low) * tick / 4} for tick in range(5)]
    return Markup(
        templates()
        .get_template("chart.svg.j2")
        .render(
            width=WIDTH,
            height=HEIGHT,
            left=LEFT,
            right=LEFT + plot_width,
            top=TOP,
            bottom=TOP + plot_height,
            legend_x=WIDTH - RIGHT + 10,
            metric=metric,
            y_ticks=[{**tick, "y": y(tick["value"])} for tick in ticks],
            x_ticks=[{"shots": s, "x": x(s)} for s in shots],
            lines=lines,
        )
    )
