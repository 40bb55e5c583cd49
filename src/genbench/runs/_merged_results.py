"""The merged results of a task with subtasks (a TaskDict): its own merge, with intervals from a joint bootstrap.

A merged metric's interval is not made from the subtasks' interval ends: each resample redraws every subtask's
examples (with the same indices when the subtasks are paired by example) and applies the merge again
(:func:`merge_settings`). :func:`merged_document` builds the merged results document of a run, ``merged_from``
naming the subtasks' files and their SHA-256. See docs/running_models.md#taskdict-results.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from genbench._core.bootstrap import resample_indices
from genbench._core.metric_values import is_finite_number
from genbench.runs._errors import ModelRunError
from genbench.runs._results import canonical_sha256, run_identity, save_results
from genbench.runs._task_metadata import task_metadata

Merge = Callable[[Mapping[str, Mapping[str, Any]]], Mapping[str, Any]]


@dataclass
class SubtaskScores:
    """One subtask's scores in one setting, as the joint bootstrap needs them.

    Attributes:
        values: Each metric's value on all examples.
        per_sample: Per-sample values of the metrics that are their mean (``ci_method: bootstrap_mean``).
        example_ids: The examples' ``_genbench_idx``, in order.
        rescore: Recomputes every metric on resampled example positions (None: the metrics that are not a mean
            of per-sample values keep their value on every resample, and the merged intervals are narrower than
            they should be; model runs always have it).
    """

    values: Mapping[str, Any]
    per_sample: Mapping[str, Sequence[float]]
    example_ids: Sequence[int]
    rescore: Callable[[np.ndarray], Mapping[str, Any]] | None = field(default=None, repr=False)

    def subset(self, positions: Sequence[int], values: Mapping[str, Any]) -> SubtaskScores:
        """These scores on the examples at ``positions`` (in order), whose metric values are ``values``: what the
        merged clean subset resamples."""
        keep = np.asarray(positions, dtype=int)
        rescore, original = None, self.rescore
        if original is not None:

            def rescore(rows: np.ndarray) -> Mapping[str, Any]:
                return original(keep[np.asarray(rows, dtype=int)])

        return SubtaskScores(
            values,
            {key: [per_sample[i] for i in positions] for key, per_sample in self.per_sample.items()},
            [self.example_ids[i] for i in positions],
            rescore,
        )


def is_paired(subtasks: Mapping[str, SubtaskScores]) -> bool:
    """Whether the subtasks are paired by example: the same ``_genbench_idx`` values in the same order."""
    ids = [list(s.example_ids) for s in subtasks.values()]
    return len(ids) > 1 and all(i == ids[0] for i in ids[1:])


def merge_settings(
    merge: Merge,
    subtasks: Mapping[str, SubtaskScores],
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> tuple[dict[str, dict[str, Any]], str]:
    """The merged metric entries of one setting, and the pairing used (``"paired"`` or ``"independent"``).

    Args:
        merge: The TaskDict's ``merge_evaluation_results``.
        subtasks: Subtask id -> its scores, in the TaskDict's order.
        resamples: Joint resamples.
        seed: Seeds the resamples (subtask ``j`` of independent subtasks uses ``seed + j``).
        confidence: Interval confidence.

    Returns:
        ``{key: {"value", "ci", "ci_method"}}`` in the merge's key order.

    >>> scores = {s: SubtaskScores({"acc": float(np.mean(v))}, {"acc": v}, [0, 1, 2, 3])
    ...           for s, v in {"a": [1.0, 1.0, 0.0, 1.0], "b": [0.0, 1.0, 0.0, 0.0]}.items()}
    >>> def gap(results):
    ...     a, b = results["a"]["acc"], results["b"]["acc"]
    ...     return {"acc": (a + b) / 2, "gap": a - b}
    >>> entries, pairing = merge_settings(gap, scores, resamples=200, seed=1, confidence=0.95)
    >>> entries["gap"]["value"], entries["gap"]["ci_method"], pairing
    (0.5, 'bootstrap_merged', 'paired')
    """
    observed = dict(merge({sid: dict(s.values) for sid, s in subtasks.items()}))
    paired = is_paired(subtasks)
    sizes = {sid: len(s.example_ids) for sid, s in subtasks.items()}
    if paired:
        shared = resample_indices(next(iter(sizes.values())), resamples, seed) if sizes else None
        rows = {sid: shared for sid in subtasks}
    else:
        rows = {sid: resample_indices(n, resamples, seed + j) for j, (sid, n) in enumerate(sizes.items())}
    draws: dict[str, list[dict[str, Any]]] = {}
    for sid, scores in subtasks.items():
        matrix = rows[sid]
        if matrix is None or not sizes[sid]:
            draws[sid] = [dict(scores.values)] * resamples
            continue
        means = {key: np.asarray(v, dtype=float)[matrix].mean(axis=1) for key, v in scores.per_sample.items()}
        recomputed = [scores.rescore(row) for row in matrix] if scores.rescore is not None else None
        subtask_draws = []
        for r in range(resamples):
            draw = dict(scores.values)
            if recomputed is not None:
                draw.update({k: v for k, v in recomputed[r].items() if k in draw})
            draw.update({key: float(values[r]) for key, values in means.items()})
            subtask_draws.append(draw)
        draws[sid] = subtask_draws
    merged_draws = [merge({sid: draws[sid][r] for sid in subtasks}) for r in range(resamples)]
    entries: dict[str, dict[str, Any]] = {}
    for key, value in observed.items():
        entry: dict[str, Any] = {"value": value, "ci": None, "ci_method": None}
        if is_finite_number(value):
            values = np.array([float(d[key]) if is_finite_number(d.get(key)) else np.nan for d in merged_draws])
            finite = values[np.isfinite(values)]
            if finite.size * 2 >= resamples:  # else undefined on most resamples: no interval
                low, high = np.quantile(finite, [(1 - confidence) / 2, (1 + confidence) / 2])
                entry.update(ci=[float(low), float(high)], ci_method="bootstrap_merged")
        entries[key] = entry
    return entries, "paired" if paired else "independent"


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def merged_fingerprint(task_dict: Any, subtask_documents: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The fingerprint of a TaskDict: its config's hash and each subtask split's data hash (``subtask/split``)."""
    config = task_dict.config.model_dump(mode="json") if hasattr(task_dict.config, "model_dump") else {}
    subtask_configs = {sid: doc["task"]["fingerprint"]["config_sha256"] for sid, doc in subtask_documents.items()}
    fingerprint = {
        "config_sha256": canonical_sha256({"task_dict": config, "subtasks": subtask_configs}),
        "data_sha256": {
            f"{sid}/{split}": sha
            for sid, doc in subtask_documents.items()
            for split, sha in sorted(doc["task"]["fingerprint"]["data_sha256"].items())
        },
    }
    return {"sha256": canonical_sha256(fingerprint), **fingerprint}


def _merge_setting(
    task_dict: Any, scores: Mapping[str, SubtaskScores], bootstrap: Mapping[str, Any]
) -> tuple[dict[str, dict[str, Any]], str]:
    statistic = any(s.rescore is not None for s in scores.values())
    try:
        return merge_settings(
            task_dict.merge_evaluation_results,
            scores,
            resamples=bootstrap["statistic_resamples"] if statistic else bootstrap["resamples"],
            seed=bootstrap["seed"],
            confidence=bootstrap["confidence"],
        )
    except Exception as exc:  # task code: any exception is the task's fault, reported with its id
        raise ModelRunError(
            f"Task {task_dict.task_id!r}: {type(task_dict).__name__}.merge_evaluation_results failed on the "
            f"subtasks' results ({type(exc).__name__}: {exc}); fix it in the task's __init__.py."
        ) from exc


def _merged_clean(
    task_dict: Any,
    subtask_evaluations: Sequence[Mapping[str, Any]],
    clean_scores: Mapping[str, Mapping[Any, SubtaskScores]] | None,
    shots: int | None,
    primary: str | None,
    bootstrap: Mapping[str, Any],
) -> dict[str, Any] | None:
    """The merged ``clean`` of one setting when every subtask has one (a run with shift reports), else None."""
    cleans = [e.get("clean") for e in subtask_evaluations]
    by_subtask = {sid: by_setting.get(shots) for sid, by_setting in (clean_scores or {}).items()}
    scores = {sid: s for sid, s in by_subtask.items() if s is not None}
    if not cleans or any(c is None for c in cleans) or len(scores) != len(cleans):
        return None
    present = [c for c in cleans if c is not None]
    merged: dict[str, Any] = {
        "num_examples": sum(c["num_examples"] for c in present),
        "excluded": sum(c["excluded"] for c in present),
        "primary_metric": None,
        "metrics": {},
    }
    if all(c["num_examples"] for c in present):  # a subtask with no clean example leaves the merge undefined
        entries, _ = _merge_setting(task_dict, scores, bootstrap)
        merged.update(primary_metric=primary if primary in entries else None, metrics=entries)
    return merged


def merged_document(
    task_dict: Any,
    subtask_runs: Mapping[str, tuple[Mapping[str, Any], Mapping[Any, SubtaskScores]]],
    *,
    merged_from: Sequence[Mapping[str, str]] | None,
    created: str,
    clean_scores: Mapping[str, Mapping[Any, SubtaskScores]] | None = None,
) -> dict[str, Any]:
    """The merged results document of a TaskDict run.

    A run with shift reports (every subtask's evaluation has ``clean``) gets a merged ``clean`` per setting too: the
    same merge over the subtasks' clean examples, with intervals from the same joint bootstrap of those examples.

    Args:
        task_dict: The TaskDict (its ``merge_evaluation_results``, id, name, keywords and config).
        subtask_runs: Subtask id -> (its results document, its scores per setting), in the TaskDict's order.
        merged_from: ``[{task_id, results_file, sha256}]`` of the subtasks' files, or None when none were written.
        created: UTC creation time (ISO 8601).
        clean_scores: Subtask id -> its scores per setting on its clean subset (a run with shift reports).

    Raises:
        ModelRunError: the TaskDict's ``merge_evaluation_results`` failed (the message names the task and the fix).
    """
    documents = {sid: doc for sid, (doc, _) in subtask_runs.items()}
    first = next(iter(documents.values()))
    bootstrap = first["bootstrap"]
    settings = list(dict.fromkeys(e["shots"] for doc in documents.values() for e in doc["evaluations"]))
    evaluations = []
    for shots in settings:
        scores = {sid: by_setting[shots] for sid, (_, by_setting) in subtask_runs.items() if shots in by_setting}
        entries, pairing = _merge_setting(task_dict, scores, bootstrap)
        subtask_evaluations = [next(e for e in documents[sid]["evaluations"] if e["shots"] == shots) for sid in scores]
        declared = getattr(getattr(task_dict, "config", None), "primary_metric", None)
        primary = declared if declared in entries else subtask_evaluations[0]["primary_metric"]
        primary = primary if primary in entries else next(iter(entries), None)
        evaluation = {
            "shots": shots,
            "num_examples": sum(e["num_examples"] for e in subtask_evaluations),
            "prompt_builder_sha256": None,
            "primary_metric": primary,
            "metrics": entries,
            "bootstrap_pairing": pairing,
            "run_seconds": round(sum(e.get("run_seconds", 0.0) for e in subtask_evaluations), 3),
        }
        clean = _merged_clean(task_dict, subtask_evaluations, clean_scores, shots, primary, bootstrap)
        if clean is not None:
            evaluation["clean"] = clean
        evaluations.append(evaluation)
    fingerprint = merged_fingerprint(task_dict, documents)
    identity = first.get("run_identity") or {}
    document: dict[str, Any] = {
        "schema_version": first["schema_version"],
        "task": {
            "id": task_dict.task_id,
            "name": task_dict.name,
            "task_type": None,
            "keywords": list(task_dict.keywords),
            "subtasks": [doc["task"]["id"] for doc in documents.values()],
            "fingerprint": fingerprint,
            **task_metadata(task_dict.task_id, task_dict.config),
        },
        "run_identity": run_identity(
            first["model"],
            task_dict.task_id,
            fingerprint["sha256"],
            shots=settings,
            seed=first["seed"],
            limit=first.get("limit"),
            generation=identity.get("generation"),
            chat=identity.get("chat"),
            clean_subset=identity.get("clean_subset"),
        ),  # fmt: skip
        "genbench_version": first["genbench_version"],
        "model": first["model"],
        "preparation_strategy": first["preparation_strategy"],
        "seed": first["seed"],
        "limit": first.get("limit"),
        "bootstrap": bootstrap,
        "evaluations": evaluations,
        "run_seconds": round(sum(doc["run_seconds"] for doc in documents.values()), 3),
        "created": created,
    }
    if merged_from:
        document["merged_from"] = [dict(entry) for entry in merged_from]
    return document


def is_merged_results(document: Mapping[str, Any]) -> bool:
    """Whether a results document is the merged result of a task with subtasks (it has ``task.subtasks``)."""
    return bool(document.get("task", {}).get("subtasks"))


@dataclass
class MergedRun:
    """The merged result of a TaskDict run: its document, and where it was written (None: not written)."""

    document: dict[str, Any]
    path: Path | None = None
    replaced: str | None = None


def write_merged(task_dict: Any, subtask_runs: Sequence[Any], output_dir: str | Path | None) -> MergedRun:
    """Merge the runs of a TaskDict's subtasks (:class:`genbench.runs._execute.TaskRun`) and write the merged
    results file where its run identity puts it, next to the subtasks' files (when ``output_dir`` is given)."""
    by_subtask = {run.task_id.partition(":")[2]: (run.document, run.scores) for run in subtask_runs}
    written = [run for run in subtask_runs if run.results_path is not None]
    merged_from = [
        {"task_id": run.task_id, "results_file": run.results_path.name, "sha256": file_sha256(run.results_path)}
        for run in written
    ]
    created = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    clean_scores = {run.task_id.partition(":")[2]: run.clean_scores for run in subtask_runs}
    document = merged_document(
        task_dict, by_subtask, merged_from=merged_from or None, created=created, clean_scores=clean_scores
    )
    if output_dir is None:
        return MergedRun(document)
    saved = save_results(document, output_dir, None)
    return MergedRun(document, saved.path, saved.replaced)
