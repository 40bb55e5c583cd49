"""The ranking: one headline score per task, each model's mean over tasks, its rank, and means per taxonomy value.

Means over tasks get a bootstrap interval over the tasks' per-sample scores (``ci_source`` says how each headline
entered); only models that cover every ranked task get a rank, and baselines are never ranked. Means and ranks are of
raw headline scores or of chance-normalised ones (:mod:`genbench._leaderboard.aggregation`); each rank carries an
interval (:mod:`genbench._leaderboard.rank_intervals`). See docs/leaderboard.md.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from genbench._core.bootstrap import resample_indices
from genbench._core.metric_direction import Direction
from genbench._core.metric_values import finite_number
from genbench._leaderboard.aggregation import Aggregation, ChanceLevel, chance_level, normalised_score
from genbench._leaderboard.collect import TAXONOMY_AXES, Cell, Leaderboard, ModelEntry, Run, TaskEntry
from genbench._leaderboard.names import metric_direction, metric_label
from genbench._leaderboard.rank_intervals import (
    PAIRED,
    RankedModel,
    RankInterval,
    RankIntervals,
    TaskHeadline,
    rank_intervals,
)
from genbench._leaderboard.sample_logs import SampleLogs

RESAMPLES = 1000
CONFIDENCE = 0.95
NOT_DECLARED = "(not declared)"


@dataclass
class Headline:
    """The score a task is ranked by: one metric at one setting."""

    task: TaskEntry
    metric: str | None
    shots: int | None
    declared: bool
    """True when the task declares it (``primary_metric``); else the results' default primary metric."""

    @property
    def label(self) -> str:
        return metric_label(self.metric) if self.metric else "no numeric metric"

    @property
    def direction(self) -> Direction:
        """The task's declared direction of the metric, else the one its name suggests (:func:`metric_direction`):
        ``higher``, ``lower`` or ``zero`` (closer to zero is better)."""
        return metric_direction(self.metric, self.task.metric_directions)[0] if self.metric else "higher"

    @property
    def lower_is_better(self) -> bool:
        """Whether the direction is ``lower`` (``zero`` is not: its best value is 0, not the smallest)."""
        return self.metric is not None and self.direction == "lower"

    @property
    def direction_source(self) -> str | None:
        """Where :attr:`direction` comes from: declared by the task, or guessed from the metric's name."""
        return metric_direction(self.metric, self.task.metric_directions)[1] if self.metric else None

    @property
    def counts(self) -> bool:
        """Whether the task enters means and ranks: only a higher-is-better headline (a lower-is-better or
        closer-to-zero one would pull a mean of accuracies the wrong way)."""
        return self.metric is not None and self.direction == "higher"


@dataclass
class Score:
    """A value with its interval, its bootstrap replicates and (several seeds) the spread over seeds."""

    value: float
    ci: tuple[float, float] | None
    replicates: np.ndarray = field(repr=False)
    ci_source: str
    seed_values: list[float] = field(default_factory=list)

    @property
    def spread(self) -> float | None:
        """The standard deviation over seeds (two or more), else None."""
        return float(np.std(self.seed_values, ddof=1)) if len(self.seed_values) > 1 else None


@dataclass
class GroupScore:
    """A model's mean over a group of tasks (all counted tasks, or one taxonomy value), and its coverage."""

    score: Score | None
    covered: int
    of: int

    @property
    def complete(self) -> bool:
        return self.covered == self.of


@dataclass
class Standing:
    """A model's row: its rank (None: not ranked), per-task scores, mean and means per taxonomy value."""

    model: ModelEntry
    rank: int | None
    tasks: dict[str, Score]
    overall: GroupScore
    seeds: list[int]
    seed_spread: float | None
    axes: dict[str, dict[str, GroupScore]]
    aggregated: dict[str, Score] = field(default_factory=dict)
    """The per-task scores the means are of: :attr:`tasks`, or (chance-normalised) those normalised."""
    rank_interval: RankInterval | None = None
    """The ranks the model could have had (:mod:`genbench._leaderboard.rank_intervals`); None when not ranked."""


@dataclass
class Standings:
    """The leaderboard's ranking: headline per task, ranked models (then partial ones), baselines, taxonomy groups."""

    headlines: dict[str, Headline]
    models: list[Standing]
    baselines: list[Standing]
    groups: dict[str, dict[str, list[str]]]
    """axis -> value -> the counted task ids that have it (:data:`NOT_DECLARED` for the tasks that declare none)."""
    subtasks: dict[str, list[str]]
    """A task with subtasks -> the subtask ids on the board (shown as detail, not ranked)."""
    cell_scores: dict[tuple[str, str, int | None, str | None], Score | None] = field(default_factory=dict)
    """``(model key, task id, shots, metric)`` -> the :func:`cell_score` computed for the ranking, for the task pages
    to reuse (their chart's point at the headline setting is the same bootstrap: computing it twice took a quarter of
    a build)."""
    aggregation: Aggregation = "raw"
    counted: list[str] = field(default_factory=list)
    """The tasks the means and ranks are over (chance-normalised: those with a known chance level)."""
    chance_levels: dict[str, ChanceLevel] = field(default_factory=dict)
    """Chance-normalised: each counted task's chance level (unknown ones are not in :attr:`counted`)."""
    rank_intervals: RankIntervals = field(default_factory=lambda: RankIntervals({}, PAIRED))

    @property
    def without_chance_level(self) -> dict[str, str]:
        """Chance-normalised: the tasks left out of the means for want of a chance level, and why."""
        return {t: level.source for t, level in self.chance_levels.items() if not level.known}


def headline_tasks(board: Leaderboard) -> tuple[list[TaskEntry], dict[str, list[str]]]:
    """The tasks with a column (subtasks of a task whose merged results are on the board are detail), and
    parent id -> its subtask ids."""
    detail: dict[str, list[str]] = {}
    columns = []
    for task in sorted(board.tasks.values(), key=lambda t: t.task_id):
        if task.parent is not None and task.parent in board.tasks:
            detail.setdefault(task.parent, []).append(task.task_id)
        else:
            columns.append(task)
    return columns, detail


def overview_shots(board: Leaderboard, task_id: str, preferred: int) -> int | None:
    """The setting shown for a task: ``preferred`` shots where any model has it, else the task's unprompted
    evaluation, else its smallest number of shots."""
    settings = {s for (_, t), cell in board.cells.items() if t == task_id for s in cell.evaluations}
    if preferred in settings:
        return preferred
    if None in settings or not settings:
        return None
    return min(s for s in settings if s is not None)


def resolve_metric(declared: str, keys: Iterable[str], default: str | None = None) -> str | None:
    """The metric key a declared ``primary_metric`` names: the key itself, else the one key that starts or ends
    with it (several: the one made of it and the results' ``default`` primary metric).

    >>> keys = ["hf_accuracy__accuracy", "negation_gap__hf_accuracy__accuracy", "negation_gap__length_normalised.x"]
    >>> resolve_metric("negation_gap", keys, "hf_accuracy__accuracy")
    'negation_gap__hf_accuracy__accuracy'
    >>> resolve_metric("accuracy", ["hf_accuracy__accuracy"]), resolve_metric("f1", ["a__f1", "b__f1"])
    ('hf_accuracy__accuracy', None)
    """
    keys = list(keys)
    if declared in keys:
        return declared
    matches = [k for k in keys if k.endswith("__" + declared) or k.startswith(declared + "__")]
    if len(matches) > 1 and default and f"{declared}__{default}" in matches:
        return f"{declared}__{default}"
    return matches[0] if len(matches) == 1 else None


def choose_headline(board: Leaderboard, task: TaskEntry, preferred_shots: int) -> Headline:
    """The task's declared ``primary_metric`` when its results have it, else the metric its results name primary."""
    shots = overview_shots(board, task.task_id, preferred_shots)
    evaluations = [
        c.evaluations[shots] for (_, t), c in board.cells.items() if t == task.task_id and shots in c.evaluations
    ]
    keys = {k for e in evaluations for k in e["metrics"]}
    named = Counter(e["primary_metric"] for e in evaluations if e["primary_metric"])
    default = named.most_common(1)[0][0] if named else None
    if task.declared_primary and (metric := resolve_metric(task.declared_primary, keys, default)):
        return Headline(task, metric, shots, declared=True)
    return Headline(task, default, shots, declared=False)


def _rng(*parts: object) -> np.random.Generator:
    """A generator of its own for each (model, task, seed): results do not depend on the order of the files."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def run_score(
    run: Run, headline: Headline, model: ModelEntry, logs: SampleLogs, resamples: int
) -> tuple[float, np.ndarray, str] | None:
    """One seed's value of the headline and its bootstrap replicates (``None``: no numeric value)."""
    evaluation = run.evaluations.get(headline.shots)
    metric = evaluation["metrics"].get(headline.metric or "") if evaluation else None
    value = finite_number(metric["value"]) if metric else None
    if metric is None or value is None:
        return None
    rng = _rng(model.key, headline.task.task_id, run.seed, headline.shots, headline.metric)
    if metric.get("ci_method") == "bootstrap_mean":
        scores = logs.scores(run.sample_logs.get(headline.shots), headline.shots, headline.metric or "")
        if scores:
            values = np.asarray(scores, dtype=float)
            return (
                value,
                values[resample_indices(values.size, resamples, rng)].mean(axis=1),
                "per-sample",
            )
    ci = metric.get("ci")
    if ci:
        z = NormalDist().inv_cdf((1 + run.confidence) / 2)
        return value, value + (ci[1] - ci[0]) / (2 * z) * rng.standard_normal(resamples), "interval"
    return value, np.full(resamples, value), "none"


def cell_score(cell: Cell, headline: Headline, model: ModelEntry, logs: SampleLogs, resamples: int) -> Score | None:
    """The mean over the cell's seeds, with the bootstrap of that mean (one seed: its file's own interval)."""
    per_seed = [s for run in cell.runs.values() if (s := run_score(run, headline, model, logs, resamples))]
    if not per_seed:
        return None
    values = [value for value, _, _ in per_seed]
    replicates = np.mean([r for _, r, _ in per_seed], axis=0)
    sources = {source for _, _, source in per_seed}
    source = sources.pop() if len(sources) == 1 else "mixed"
    if len(per_seed) == 1:
        (run,) = [r for r in cell.runs.values() if headline.shots in r.evaluations]
        recorded = run.evaluations[headline.shots]["metrics"][headline.metric].get("ci")
        ci = (float(recorded[0]), float(recorded[1])) if recorded else None
    else:
        ci = interval(replicates) if source != "none" else None
    return Score(float(np.mean(values)), ci, replicates, source, values)


def interval(replicates: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    low, high = np.quantile(replicates, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


def mean_score(scores: list[Score]) -> Score | None:
    """The mean over tasks, with the percentile interval of the mean of their replicates."""
    if not scores:
        return None
    replicates = np.mean([s.replicates for s in scores], axis=0)
    sources = {s.ci_source for s in scores}
    source = sources.pop() if len(sources) == 1 else "mixed"
    ci = None if source == "none" else interval(replicates)
    return Score(float(np.mean([s.value for s in scores])), ci, replicates, source)


def group_score(tasks: dict[str, Score], task_ids: list[str]) -> GroupScore:
    covered = [tasks[t] for t in task_ids if t in tasks]
    return GroupScore(mean_score(covered), len(covered), len(task_ids))


def taxonomy_groups(headlines: Iterable[Headline]) -> dict[str, dict[str, list[str]]]:
    """axis -> value -> counted task ids; the tasks declaring no value of an axis under :data:`NOT_DECLARED`."""
    groups: dict[str, dict[str, list[str]]] = {}
    for axis in TAXONOMY_AXES:
        by_value: dict[str, list[str]] = {}
        for headline in headlines:
            if headline.counts:
                for value in headline.task.taxonomy.get(axis) or [NOT_DECLARED]:
                    by_value.setdefault(value, []).append(headline.task.task_id)
        groups[axis] = dict(sorted(by_value.items(), key=lambda kv: (kv[0] == NOT_DECLARED, kv[0])))
    return groups


def seed_spread(
    cells: dict[str, Cell],
    counted: list[str],
    headlines: dict[str, Headline],
    transform: Callable[[str, float], float] = lambda task_id, value: value,
) -> tuple[list[int], float | None]:
    """The model's seeds, and the standard deviation over seeds of its per-seed means (over the same tasks; each
    task's value mapped by ``transform``, e.g. normalised to its chance level)."""
    seeds = sorted({seed for cell in cells.values() for seed in cell.runs})
    means = []
    for seed in seeds:
        values = []
        for task_id in counted:
            run = cells[task_id].runs.get(seed) if task_id in cells else None
            evaluation = run.evaluations.get(headlines[task_id].shots) if run else None
            metric = evaluation["metrics"].get(headlines[task_id].metric or "") if evaluation else None
            if metric is not None and (value := finite_number(metric["value"])) is not None:
                values.append(transform(task_id, value))
        if values and len(values) == sum(1 for t in counted if t in cells):
            means.append(float(np.mean(values)))
    return seeds, (float(np.std(means, ddof=1)) if len(means) > 1 else None)


def chance_levels(
    headlines: dict[str, Headline], counted: list[str], standings: list[Standing]
) -> dict[str, ChanceLevel]:
    """Each counted task's chance level: its best baseline's score (:func:`.aggregation.chance_level`)."""
    levels = {}
    for task_id in counted:
        scored = [s for s in standings if task_id in s.tasks]
        baselines = {s.model.label: s.tasks[task_id].value for s in scored if s.model.is_baseline}
        levels[task_id] = chance_level(baselines, [s.tasks[task_id].value for s in scored])
    return levels


def rank_models(
    board: Leaderboard,
    preferred_shots: int = 0,
    *,
    resamples: int = RESAMPLES,
    logs: SampleLogs | None = None,
    progress: Callable[[str], None] | None = None,
    aggregation: Aggregation = "raw",
    seed: int = 42,
) -> Standings:
    """Rank the board's models (docs/leaderboard.md gives the rule and the intervals); the per-sample scores
    come from ``logs`` (default: the board's own, read by :func:`~genbench._leaderboard.collect.collect`).
    ``aggregation``: the mean ranked by (``raw`` or ``chance-normalised``); ``seed``: of the rank intervals'
    bootstrap."""
    logs = logs or board.logs
    columns, detail = headline_tasks(board)
    headlines = {task.task_id: choose_headline(board, task, preferred_shots) for task in columns}
    counted = [t for t, h in headlines.items() if h.counts]
    standings = []
    model_cells = {}
    computed: dict[tuple[str, str, int | None, str | None], Score | None] = {}
    for model in board.models.values():
        cells = {t: c for (m, t), c in board.cells.items() if m == model.key and t in headlines}
        model_cells[model.key] = cells
        scores = {}
        for task_id, cell in cells.items():
            headline = headlines[task_id]
            score = cell_score(cell, headline, model, logs, resamples)
            computed[(model.key, task_id, headline.shots, headline.metric)] = score
            if score is not None:
                scores[task_id] = score
        standings.append(Standing(model, None, scores, GroupScore(None, 0, 0), [], None, {}))
    levels = chance_levels(headlines, counted, standings) if aggregation == "chance-normalised" else {}
    if levels:
        counted = [t for t in counted if levels[t].known]
    groups = taxonomy_groups([h for t, h in headlines.items() if t in counted])

    def transform(task_id: str, value: float) -> float:
        return levels[task_id].normalise(value) if levels else value

    for standing in standings:
        standing.aggregated = (
            {t: normalised_score(score, levels[t]) for t, score in standing.tasks.items() if t in counted}
            if levels
            else standing.tasks
        )
        standing.overall = group_score(standing.aggregated, counted)
        standing.seeds, standing.seed_spread = seed_spread(
            model_cells[standing.model.key], counted, headlines, transform
        )
        standing.axes = {
            axis: {v: group_score(standing.aggregated, ids) for v, ids in values.items()}
            for axis, values in groups.items()
        }

    def order(standing: Standing) -> tuple[int, float, str]:
        mean = standing.overall.score.value if standing.overall.score else -math.inf
        return (-standing.overall.covered, -mean, standing.model.label)

    models = sorted((s for s in standings if not s.model.is_baseline), key=order)
    for rank, standing in enumerate((s for s in models if s.overall.complete and s.overall.of), 1):
        standing.rank = rank
    baselines = sorted((s for s in standings if s.model.is_baseline), key=order)
    intervals = rank_intervals(
        [
            RankedModel(
                s.model.key,
                s.model.label,
                s.rank,
                model_cells[s.model.key],
                {t: score.replicates for t, score in s.aggregated.items()},
            )
            for s in models
            if s.rank
        ],
        [task_headline(headlines[t], levels.get(t)) for t in counted],
        logs,
        resamples=resamples,
        seed=seed,
        confidence=CONFIDENCE,
    )
    for standing in models:
        standing.rank_interval = intervals.intervals.get(standing.model.key)
    return Standings(headlines, models, baselines, groups, detail, computed, aggregation, counted, levels, intervals)


def task_headline(headline: Headline, level: ChanceLevel | None) -> TaskHeadline:
    """The headline as the rank intervals take it: its setting, metric and (chance-normalised) map."""
    if level is None:
        return TaskHeadline(headline.task.task_id, headline.shots, headline.metric or "")
    return TaskHeadline(headline.task.task_id, headline.shots, headline.metric or "", level.normalise)
