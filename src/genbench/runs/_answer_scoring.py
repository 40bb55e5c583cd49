"""Score a model's answers to one prompt dataset: the results file's evaluation entry and per-sample records.

Used by model runs (:mod:`genbench.runs._execute`), ``evaluate`` (predictions files) and the demo (baselines) alike
(:mod:`genbench.runs._offline`). Answers are read against what the task allows (its label set, its options, its
answer regex): anything else is scored as wrong and counted in an out-of-set rate (see
:class:`genbench.metrics._predictions.ScoringInputs`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench._core.vocabulary import TaskType
from genbench.metrics._cross_encoder import main_key
from genbench.metrics._evaluation import main_score_key
from genbench.runs._merged_results import SubtaskScores
from genbench.runs._results import prompt_builder_sha256
from genbench.runs._scoring import (
    OUT_OF_SET_METRICS,
    BootstrapSettings,
    GoldSubsets,
    metric_entries,
    out_of_set_entry,
    per_sample_scores,
    quiet_evaluate,
    resample_scorer,
    scoring_inputs,
)

if TYPE_CHECKING:
    from genbench.task import Task

LENGTH_NORMALISED = "length_normalised."


@dataclass
class Answers:
    """A model's answers to one prompt dataset."""

    targets: list[Any]
    raw_outputs: list[Any]
    length_normalised: list[Any] | None = None
    multiple_choice_method: str | None = None


def evaluate_answers(
    task: Task,
    dataset: Any,
    answers: Answers,
    *,
    shots: int | None,
    bootstrap: BootstrapSettings,
    shot_source: str | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Score answers: the results file's evaluation entry and the per-sample records.

    Used by model runs, ``evaluate`` (predictions files) and the demo (baselines) alike.
    """
    targets = list(answers.targets)
    corpus = dict(quiet_evaluate(task, targets, dataset))
    subsets = GoldSubsets(task, dataset)
    per_sample = per_sample_scores(task, targets, subsets)

    def recompute(chosen: Sequence[Any]) -> Any:
        scorer = resample_scorer(task, chosen, subsets)
        return lambda indices: scorer([int(i) for i in indices])

    metrics = metric_entries(corpus, per_sample, recompute(targets), bootstrap)
    if answers.length_normalised is not None:
        normalised = list(answers.length_normalised)
        corpus_norm = quiet_evaluate(task, normalised, dataset)
        per_sample_norm = per_sample_scores(task, normalised, subsets)
        for key, entry in metric_entries(corpus_norm, per_sample_norm, recompute(normalised), bootstrap).items():
            metrics[LENGTH_NORMALISED + key] = entry
        for sample, extra in zip(per_sample, per_sample_norm, strict=True):
            sample.update({LENGTH_NORMALISED + key: value for key, value in extra.items()})
    gold = dataset["original_target"] if "original_target" in dataset.column_names else dataset["target"]
    prompts = dataset["input"] if shots is not None else [None] * len(dataset)
    inputs = scoring_inputs(task, dataset, targets)
    extracted = list(targets) if inputs is None else list(inputs.predictions)
    if inputs is not None and inputs.answer_units:
        # answers outside what the task allows are scored as wrong above; how many there were is its own number
        name = OUT_OF_SET_METRICS[TaskType(task.config.task_type).value]
        metrics[name], rates = out_of_set_entry(inputs.out_of_set, inputs.answer_units, bootstrap)
        for sample_scores, rate in zip(per_sample, rates, strict=True):
            sample_scores[name] = rate
    samples = []
    for i, idx in enumerate(dataset["_genbench_idx"]):
        record = {
            "shots": shots,
            "_genbench_idx": int(idx),
            "prompt": prompts[i],
            "raw_output": answers.raw_outputs[i],
            "prediction": extracted[i],
            "target": gold[i],
            "metrics": per_sample[i],
        }
        if answers.length_normalised is not None:
            record["prediction_length_normalised"] = answers.length_normalised[i]
        samples.append(record)
    pb_hash = (
        prompt_builder_sha256(task.config.prompt_builder, task.config.task_type.value) if shots is not None else None
    )
    evaluation = {
        "shots": shots,
        "num_examples": len(dataset),
        "prompt_builder_sha256": pb_hash,
        "shot_source": shot_source,
        "multiple_choice_method": answers.multiple_choice_method,
        "primary_metric": primary_metric(task, corpus),
        "metrics": metrics,
    }
    return evaluation, samples


def subtask_scores(
    task: Task, dataset: Any, answers: Answers, evaluation: Mapping[str, Any], samples: Sequence[Mapping[str, Any]]
) -> SubtaskScores:
    """One setting's scores as the joint bootstrap of a TaskDict's merged result needs them (see
    :mod:`genbench.runs._merged_results`): per-sample values of the metrics that are their mean, and a recomputation of
    every metric on resampled examples when some metric is not a mean."""
    metrics = evaluation["metrics"]
    means = [key for key, entry in metrics.items() if entry.get("ci_method") == "bootstrap_mean"]
    per_sample = {key: [float(sample["metrics"][key]) for sample in samples] for key in means}
    values = {key: entry["value"] for key, entry in metrics.items()}
    needs_rescore = any(
        isinstance(entry["value"], (int, float)) and entry.get("ci_method") != "bootstrap_mean"
        for entry in metrics.values()
    )
    ids = [int(sample["_genbench_idx"]) for sample in samples]
    if not needs_rescore:
        return SubtaskScores(values, per_sample, ids)
    subsets = GoldSubsets(task, dataset)
    targets = list(answers.targets)
    normalised = list(answers.length_normalised) if answers.length_normalised is not None else None
    inputs = scoring_inputs(task, dataset, targets)
    rate_key = OUT_OF_SET_METRICS.get(TaskType(task.config.task_type).value)

    score = resample_scorer(task, targets, subsets)
    score_normalised = resample_scorer(task, normalised, subsets) if normalised is not None else None

    def rescore(rows: np.ndarray) -> Mapping[str, Any]:
        chosen = [int(i) for i in rows]
        result = dict(score(chosen))
        if score_normalised is not None:
            extra = score_normalised(chosen)
            result.update({LENGTH_NORMALISED + key: value for key, value in extra.items()})
        if inputs is not None and inputs.answer_units and rate_key is not None:
            units = sum(inputs.answer_units[i] for i in chosen)
            result[rate_key] = sum(inputs.out_of_set[i] for i in chosen) / units if units else None
        return result

    return SubtaskScores(values, per_sample, ids, rescore)


def primary_metric(task: Task, corpus: Mapping[str, Any]) -> str | None:
    """The main score of the task's first metric (``hf_accuracy__accuracy``, ``cross_encoder_reranking__map``)."""
    for config in task.config.evaluation_metrics or ():
        key = main_score_key(config.hf_id, list(corpus)) if config.type == "hf" else main_key(config, list(corpus))
        if key is not None:
            return key
    return next(iter(corpus), None)
