"""Each ranked model's rank interval: the ranks it could have had under the test examples' sampling noise.

A paired bootstrap over each task's examples (the same draw for every model) ranks the models in each round; a
model's interval runs from the 2.5th to the 97.5th percentile of its ranks. A task that cannot be paired enters each
round with each model's own draw of its score. See docs/leaderboard.md#rank-intervals.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from genbench._core.bootstrap import resample_indices
from genbench._leaderboard.collect import Cell
from genbench._leaderboard.sample_logs import SampleLogs

PAIRED = "paired bootstrap over test examples"
MIXED = (
    "paired bootstrap over test examples, unpaired draws from the per-task intervals where examples cannot be paired"
)
UNPAIRED = "unpaired draws from the per-task intervals (no task's examples can be paired)"


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
    """What the rank intervals need of a ranked model: its key, label, rank, cells, and each task's bootstrap
    replicates as the means take them (raw or normalised; the fallback's draws)."""

    key: str
    label: str
    rank: int
    cells: Mapping[str, Cell]
    replicates: Mapping[str, np.ndarray]


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
    return resample_indices(n, resamples, np.random.default_rng(int.from_bytes(digest[:8], "little")))


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


def paired_matrix(
    models: Sequence[RankedModel], task: TaskHeadline, logs: SampleLogs
) -> tuple[np.ndarray | None, list[tuple[str, str, str]]]:
    """The (model, example) score matrix of a task, or None and what prevents pairing (model, task, why)."""
    by_model = []
    missing = []
    for model in models:
        scores, why = example_scores(model, task, logs)
        if scores is None:
            missing.append((model.label, task.task_id, why or ""))
        else:
            by_model.append(scores)
    if missing:
        return None, missing
    examples = sorted(by_model[0])
    if any(sorted(scores) != examples for scores in by_model):
        return None, [(m.label, task.task_id, "models that answered different examples") for m in models]
    return np.array([[scores[i] for i in examples] for scores in by_model]), []


def rank_intervals(
    models: Sequence[RankedModel],
    tasks: Sequence[TaskHeadline],
    logs: SampleLogs,
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> RankIntervals:
    """The ranked models' rank intervals (module docstring): paired where each task's examples can be paired, else
    from the per-task replicates."""
    if not models or not tasks:
        return RankIntervals({}, PAIRED)
    totals = np.zeros((len(models), resamples))
    missing: list[tuple[str, str, str]] = []
    paired = 0
    for task in tasks:
        matrix, why = paired_matrix(models, task, logs)
        if matrix is None:
            missing.extend(why)
            totals += np.array([model.replicates[task.task_id] for model in models])
            continue
        paired += 1
        n = matrix.shape[1]
        rows = resample_rows(task.task_id, n, resamples, seed)
        # How often each round draws each example: every model's round means are then one matrix product, with no
        # (model, round, example) array of drawn scores.
        counts = np.bincount((rows + n * np.arange(resamples)[:, None]).ravel(), minlength=resamples * n)
        totals += task.transform(matrix @ counts.reshape(resamples, n).T / n)
    means = totals / len(tasks)
    ranks = 1 + (means[None, :, :] > means[:, None, :]).sum(axis=1)
    intervals = {m.key: percentile_ranks(ranks[i], m.rank, confidence) for i, m in enumerate(models)}
    method = PAIRED if not missing else MIXED if paired else UNPAIRED
    return RankIntervals(intervals, method, missing)
