"""Results files for answers made without a runner: a predictions file (``evaluate``) and the baselines (``demo``).

They go through the same scoring (:func:`genbench.runs._answer_scoring.evaluate_answers`) and the same results schema
as model runs, so every source of scores joins the same tables.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench.runs._answer_scoring import Answers, evaluate_answers, subtask_scores
from genbench.runs._execute import TaskRun, prompt_settings, results_document
from genbench.runs._merged_results import MergedRun, write_merged
from genbench.runs._results import save_results
from genbench.runs._scoring import BootstrapSettings
from genbench.runs.baselines import BASELINES, predict, training_pool

if TYPE_CHECKING:
    import datasets

    from genbench.task import Task, TaskDict


def predictions_run(
    task: Task,
    predictions: Sequence[Mapping[str, Any]],
    gold: datasets.Dataset,
    *,
    model: str,
    output_dir: str | Path,
    shots: int | None = None,
    seed: int = 42,
    bootstrap: BootstrapSettings | None = None,
) -> TaskRun:
    """Write the results file (and per-sample log) of a predictions file scored against ``gold``.

    Args:
        task: The task.
        predictions: One mapping with a ``target`` per gold row.
        gold: The rows scored: a split, or the prompt dataset of ``shots`` shots.
        model: What made the predictions (recorded as the spec ``predictions:MODEL``).
        output_dir: Results go to ``<output_dir>/<model>/<settings>/<task>.json`` (see
            :func:`genbench.runs._results.results_path`).
        shots: The number of shots the predictions were prompted with, if known.
        seed: The few-shot seed (and the bootstrap's).
        bootstrap: Interval settings.

    Returns:
        The :class:`~genbench.runs._execute.TaskRun` (for a subtask, with what the merged result of its TaskDict
        needs: :func:`genbench.runs._merged_results.write_merged`).
    """
    started = time.perf_counter()
    bootstrap = bootstrap or BootstrapSettings(seed=seed)
    targets = [p["target"] for p in predictions]
    answers = Answers(targets, targets)
    evaluation, samples = evaluate_answers(task, gold, answers, shots=shots, bootstrap=bootstrap)
    spec = f"predictions:{model}"
    record = {"spec": spec, "kind": "predictions", "revision": None}
    document = results_document(
        task, record, [evaluation], seed=seed, limit=None, bootstrap=bootstrap, seconds=time.perf_counter() - started
    )
    saved = save_results(document, output_dir, samples)
    scores = {shots: subtask_scores(task, gold, answers, evaluation, samples)} if task.subtask_id is not None else {}
    return TaskRun(task.task_id, document, samples, saved.path, saved.replaced, scores)


def merged_predictions_results(
    task_dict: TaskDict, runs: Sequence[TaskRun], output_dir: str | Path
) -> MergedRun | None:
    """Write the merged result of a TaskDict's predictions files (see :mod:`genbench.runs._merged_results`), next
    to its subtasks' files; None when the subtasks' predictions are not from one model (their files would not sit
    together)."""
    if len({run.document["run_identity"]["model_spec"] for run in runs}) != 1:
        return None
    return write_merged(task_dict, runs, output_dir)


def baseline_run(task: Task, output_dir: str | Path, *, shot_list: Sequence[int], random_seed: int = 42) -> TaskRun:
    """Write the results file of the task type's baseline (see :mod:`genbench.runs.baselines`) on every setting.

    Returns:
        The :class:`~genbench.runs._execute.TaskRun` (for a subtask, with what the merged result of its TaskDict
        needs: :func:`genbench.runs._merged_results.write_merged`).
    """
    started = time.perf_counter()
    bootstrap = BootstrapSettings(seed=random_seed)
    pool = training_pool(task)
    evaluations, samples, scores = [], [], {}
    for shots, dataset, source in prompt_settings(task, shot_list, random_seed, None, unprompted=True):
        targets = [p["target"] for p in predict(task, dataset, pool)]
        answers = Answers(targets, targets)
        evaluation, setting_samples = evaluate_answers(
            task, dataset, answers, shots=shots, bootstrap=bootstrap, shot_source=source
        )
        evaluations.append(evaluation)
        samples.extend(setting_samples)
        if task.subtask_id is not None:
            scores[shots] = subtask_scores(task, dataset, answers, evaluation, setting_samples)
    baseline = BASELINES[task.config.task_type]
    spec = f"baseline:{baseline.name}"
    record = {"spec": spec, "kind": "baseline", "revision": None, "description": baseline.description}
    document = results_document(
        task, record, evaluations, seed=random_seed, limit=None, bootstrap=bootstrap,
        seconds=time.perf_counter() - started,
    )  # fmt: skip
    saved = save_results(document, output_dir, samples)
    return TaskRun(task.task_id, document, samples, saved.path, saved.replaced, scores)
