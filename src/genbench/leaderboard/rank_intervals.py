"""Each ranked model's rank interval: the ranks it could have had under the test examples' sampling noise.

Paired bootstrap (when every ranked model has per-sample logs for every ranked task): every ranked model answered
the same examples of each task, so one draw of each task's examples (with replacement, the same draw for every
model, examples matched by ``_genbench_idx``; several seeds averaged per example) gives every model a mean over tasks
in that round; the models are ranked in each round (rank = 1 + the number of models with a strictly higher mean), and
a model's interval is the 2.5th (rounded down) to 97.5th (rounded up) percentile of its ranks, widened to include the
rank shown. Rounds are seeded by the task's id and ``seed``: the same results give the same intervals.

Fallback (a ranked model lacks a log, a headline is not a mean of per-sample scores, or the models answered
different examples): the intervals of the models' means (from the per-task intervals of the results files where
there is no log) are compared: a model's best rank is 1 + the number of models whose interval lies wholly above its
own, its worst is the number of ranked models less those whose interval lies wholly below. The page says which rule
was used and, for the fallback, which model and task lacked what. See docs/leaderboard.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from genbench.leaderboard.collect import Cell
from genbench.leaderboard.sample_logs import SampleLogs

PAIRED = "paired bootstrap over test examples"
OVERLAP = "overlap of the means' intervals"


@dataclass(frozen=True)
class RankInterval:
    """A model's rank interval (``low`` best, ``high`` worst)."""

    low: int
    high: int

    def __str__(self) -> str:
        """``"1-3"``, or ``"2"`` when the interval is one rank."""
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


@dataclass
class RankIntervals:
    """The intervals of the ranked models (model key -> interval), the rule used, and why the paired bootstrap could
    not be used (model label, task id, what was missing)."""

    intervals: dict[str, RankInterval]
    method: str
    missing: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class RankedModel:
    """What the rank intervals need of a ranked model: its key, label, rank, cells and its mean's interval."""

    key: str
    label: str
    rank: int
    cells: Mapping[str, Cell]
    mean: float
    ci: tuple[float, float] | None


@dataclass(frozen=True)
class TaskHeadline:
    """What the rank intervals need of a ranked task: its headline and the map applied before averaging."""

    task_id: str
    shots: int | None
    metric: str
    transform: Callable[[np.ndarray], np.ndarray] = lambda values: values


def resample_rows(task_id: str, n: int, resamples: int, seed: int) -> np.ndarray:
    """The ``(resamples, n)`` example indices drawn with replacement for ``task_id`` (the same for every model)."""
    digest = hashlib.sha256(f"rank-interval\x1f{seed}\x1f{task_id}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little")).integers(0, n, size=(resamples, n))


def percentile_ranks(ranks: np.ndarray, shown: int, confidence: float) -> RankInterval:
    """The interval of one model's ranks over the rounds, widened to include the rank shown."""
    low = int(np.quantile(ranks, (1 - confidence) / 2, method="lower"))
    high = int(np.quantile(ranks, (1 + confidence) / 2, method="higher"))
    return RankInterval(min(low, shown), max(high, shown))


def example_scores(
    model: RankedModel, task: TaskHeadline, logs: SampleLogs
) -> tuple[dict[int, float] | None, str | None]:
    """The model's per-example scores on the task (seeds averaged per example), or None and what is missing."""
    cell = model.cells.get(task.task_id)
    runs = [run for run in cell.runs.values() if task.shots in run.evaluations] if cell else []
    if not runs:
        return None, "no results"
    per_seed = []
    for run in runs:
        metric = run.evaluations[task.shots]["metrics"].get(task.metric) or {}
        if metric.get("ci_method") != "bootstrap_mean":
            return None, "a headline that is not a mean of per-sample scores"
        scores = logs.scores_by_example(run.sample_logs.get(task.shots), task.shots, task.metric)
        if scores is None:
            return None, "no per-sample log with the headline for every example"
        per_seed.append(scores)
    if any(set(scores) != set(per_seed[0]) for scores in per_seed):
        return None, "seeds that answered different examples"
    if len(per_seed) == 1:
        return per_seed[0], None
    return {i: sum(scores[i] for scores in per_seed) / len(per_seed) for i in per_seed[0]}, None


def paired_rank_intervals(
    models: Sequence[RankedModel],
    tasks: Sequence[TaskHeadline],
    logs: SampleLogs,
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> RankIntervals | list[tuple[str, str, str]]:
    """The paired bootstrap's intervals, or what prevents it ((model label, task id, what is missing) each)."""
    missing = []
    matrices = []
    for task in tasks:
        by_model = []
        for model in models:
            scores, why = example_scores(model, task, logs)
            if scores is None:
                missing.append((model.label, task.task_id, why or ""))
            else:
                by_model.append(scores)
        if len(by_model) < len(models):
            continue
        examples = sorted(by_model[0])
        if any(sorted(scores) != examples for scores in by_model):
            missing.extend((m.label, task.task_id, "models that answered different examples") for m in models)
            continue
        matrices.append(np.array([[scores[i] for i in examples] for scores in by_model]))
    if missing:
        return missing
    totals = np.zeros((len(models), resamples))
    for task, matrix in zip(tasks, matrices, strict=True):
        n = matrix.shape[1]
        rows = resample_rows(task.task_id, n, resamples, seed)
        # How often each round draws each example: every model's round means are then one matrix product, with no
        # (model, round, example) array of drawn scores.
        counts = np.bincount((rows + n * np.arange(resamples)[:, None]).ravel(), minlength=resamples * n)
        totals += task.transform(matrix @ counts.reshape(resamples, n).T / n)
    means = totals / len(tasks)
    ranks = 1 + (means[None, :, :] > means[:, None, :]).sum(axis=1)
    intervals = {m.key: percentile_ranks(ranks[i], m.rank, confidence) for i, m in enumerate(models)}
    return RankIntervals(intervals, PAIRED)


def overlap_rank_intervals(models: Sequence[RankedModel]) -> dict[str, RankInterval]:
    """Intervals from the overlap of the models' mean intervals (a mean with no interval is its own interval)."""
    bounds = {m.key: m.ci or (m.mean, m.mean) for m in models}
    intervals = {}
    for model in models:
        low, high = bounds[model.key]
        above = sum(1 for other in models if other.key != model.key and bounds[other.key][0] > high)
        below = sum(1 for other in models if other.key != model.key and bounds[other.key][1] < low)
        intervals[model.key] = RankInterval(min(1 + above, model.rank), max(len(models) - below, model.rank))
    return intervals


def rank_intervals(
    models: Sequence[RankedModel],
    tasks: Sequence[TaskHeadline],
    logs: SampleLogs,
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> RankIntervals:
    """The ranked models' rank intervals by the paired bootstrap, else by the overlap rule (module docstring)."""
    if not models or not tasks:
        return RankIntervals({}, PAIRED)
    paired = paired_rank_intervals(models, tasks, logs, resamples=resamples, seed=seed, confidence=confidence)
    if isinstance(paired, RankIntervals):
        return paired
    return RankIntervals(overlap_rank_intervals(models), OVERLAP, paired)
