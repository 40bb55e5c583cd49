"""Results documents with the fields newer genbench versions write, made from real results files or by hand.

- :func:`declare_taxonomy` adds ``task.taxonomy`` (and optionally ``task.primary_metric``) to results files, as tasks
  that declare a taxonomy block record it;
- :func:`merge_subtask_results` writes the merged results file of a task with subtasks (``task.subtasks``,
  ``merged_from``, the merged metrics such as ``negation_gap__...``, intervals from a joint bootstrap of the
  subtasks' per-sample scores);
- :func:`write_document` writes a small results file with chosen per-sample scores (tests that need exact numbers).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genbench._core.bootstrap import bootstrap_mean_interval
from genbench.runs._results import canonical_sha256, read_results, write_results

SAMPLE_TAXONOMY: dict[str, dict[str, list[str]]] = {
    "arithmetic_length": {
        "motivation": ["intrinsic"],
        "generalisation_type": ["compositional"],
        "shift_type": ["covariate"],
        "shift_source": ["generated shift"],
        "shift_locus": ["train-test"],
    },
    "category_membership": {
        "motivation": ["cognitive"],
        "generalisation_type": ["compositional"],
        "shift_type": ["label"],
        "shift_source": ["generated shift"],
        "shift_locus": ["train-test"],
    },
    "negation_consistency": {
        "motivation": ["intrinsic"],
        "generalisation_type": ["compositional", "robustness"],
        "shift_type": ["covariate"],
        "shift_source": ["generated shift"],
        "shift_locus": ["train-test"],
    },
    "ner_unseen_entities": {
        "motivation": ["practical"],
        "generalisation_type": ["compositional"],
        "shift_type": ["covariate"],
        "shift_source": ["generated shift"],
        "shift_locus": ["train-test"],
    },
    "passage_reranking_shift": {
        "motivation": ["practical"],
        "generalisation_type": ["cross-domain"],
        "shift_type": ["covariate"],
        "shift_source": ["naturally occurring"],
        "shift_locus": ["train-test"],
    },
}


def results_paths(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.json") if "schema_version" in json.loads(p.read_text()))


def rewrite(path: Path, document: dict[str, Any]) -> None:
    """Write a changed results document back (validated), keeping its per-sample log."""
    samples = read_results(path)[1]
    write_results(document, path, samples)


def declare_taxonomy(root: Path, taxonomy: Mapping[str, Mapping[str, list[str]]] = SAMPLE_TAXONOMY) -> None:
    """Record each task's taxonomy (by the id before ``:``) in every results file under ``root``."""
    for path in results_paths(root):
        document = read_results(path, with_samples=False)[0]
        values = taxonomy.get(document["task"]["id"].split(":")[0])
        if values:
            document["task"]["taxonomy"] = {axis: list(v) for axis, v in values.items()}
            rewrite(path, document)


def merge_subtask_results(
    root: Path, task_id: str, name: str, *, primary_metric: str | None = None, resamples: int = 200
) -> list[Path]:
    """In each folder under ``root`` holding ``task_id``'s subtask files, write the merged ``<task_id>.json``: the
    mean of each metric over the subtasks, the first minus the second (``negation_gap__<metric>``), each with the
    interval of a joint bootstrap (every subtask's samples resampled in the same round)."""
    written = []
    folders = sorted({p.parent for p in root.rglob(f"{task_id}.*.json") if not p.name.endswith(".samples.json")})
    for folder in folders:
        parts = sorted(p for p in folder.glob(f"{task_id}.*.json"))
        loaded = [read_results(p) for p in parts]
        first = loaded[0][0]
        document = json.loads(json.dumps(first))
        subtasks = [d["task"]["id"] for d, _ in loaded]
        fingerprints = [d["task"]["fingerprint"] for d, _ in loaded]
        document["task"] = {
            "id": task_id,
            "name": name,
            "task_type": None,
            "keywords": first["task"].get("keywords", []),
            "subtasks": subtasks,
            "fingerprint": {
                "sha256": canonical_sha256([f["sha256"] for f in fingerprints]),
                "config_sha256": canonical_sha256([f["config_sha256"] for f in fingerprints]),
                "data_sha256": {
                    f"{sub.split(':')[1]}.{split}": sha
                    for sub, f in zip(subtasks, fingerprints, strict=True)
                    for split, sha in f["data_sha256"].items()
                },
            },
        }
        if "taxonomy" in first["task"]:
            document["task"]["taxonomy"] = first["task"]["taxonomy"]
        if primary_metric:
            document["task"]["primary_metric"] = primary_metric
        document["merged_from"] = [
            {"task_id": d["task"]["id"], "results_file": p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
            for (d, _), p in zip(loaded, parts, strict=True)
        ]
        document.pop("run_identity", None)
        evaluations = []
        rng = np.random.default_rng(0)
        for evaluation in first["evaluations"]:
            shots = evaluation["shots"]
            per_part = [[s for s in samples or [] if s["shots"] == shots] for _, samples in loaded]
            metrics: dict[str, Any] = {}
            keys = [k for k in evaluation["metrics"] if all(k in s["metrics"] for part in per_part for s in part)]
            for key in keys:
                arrays = [np.array([float(s["metrics"][key]) for s in part]) for part in per_part]
                draws = [a[rng.integers(0, a.size, (resamples, a.size))].mean(axis=1) for a in arrays]
                mean_draws, gap_draws = np.mean(draws, axis=0), draws[0] - draws[1]
                for merged_key, value, rounds in [
                    (key, float(np.mean([a.mean() for a in arrays])), mean_draws),
                    (f"negation_gap__{key}", float(arrays[0].mean() - arrays[1].mean()), gap_draws),
                ]:
                    low, high = np.quantile(rounds, [0.025, 0.975])
                    metrics[merged_key] = {"value": value, "ci": [float(low), float(high)], "ci_method": None}
            evaluations.append({**evaluation, "metrics": metrics, "num_examples": sum(map(len, per_part))})
        document["evaluations"] = evaluations
        path = folder / f"{task_id}.json"
        write_results(document, path, None)
        written.append(path)
    return written


def write_document(
    path: Path,
    task_id: str,
    spec: str,
    scores: Sequence[float],
    *,
    seed: int = 42,
    metric: str = "hf_accuracy__accuracy",
    shots: int | None = 0,
    taxonomy: Mapping[str, list[str]] | None = None,
    primary_metric: str | None = None,
    metric_directions: Mapping[str, str] | None = None,
    fingerprint: str = "a",
    created: str = "2026-01-01T00:00:00+00:00",
    run_identity: bool = False,
) -> Path:
    """A results file whose one metric is the mean of ``scores`` (per-sample log included); with ``run_identity``,
    the ``run_identity`` record ``genbench-cli run`` writes."""
    value = float(np.mean(scores))
    low, high = bootstrap_mean_interval(scores, resamples=200, seed=seed)
    task: dict[str, Any] = {
        "id": task_id,
        "name": task_id.replace("_", " ").title(),
        "task_type": "multiple_choice",
        "keywords": ["fixture", task_id],
        "fingerprint": {
            "sha256": canonical_sha256([task_id, fingerprint]),
            "config_sha256": canonical_sha256(["config", task_id, fingerprint]),
            "data_sha256": {"test": canonical_sha256(["data", task_id])},
        },
    }
    if taxonomy is not None:
        task["taxonomy"] = {axis: list(values) for axis, values in taxonomy.items()}
    if primary_metric is not None:
        task["primary_metric"] = primary_metric
    if metric_directions is not None:
        task["metric_directions"] = dict(metric_directions)
    document: dict[str, Any] = {
        "schema_version": 1,
        "task": task,
        "genbench_version": "test",
        "model": {"spec": spec, "kind": spec.split(":")[0], "revision": None},
        "preparation_strategy": "prompt_based_testing",
        "seed": seed,
        "limit": None,
        "bootstrap": {"confidence": 0.95, "resamples": 200, "statistic_resamples": 20, "seed": seed},
        "evaluations": [
            {
                "shots": shots,
                "num_examples": len(scores),
                "prompt_builder_sha256": None,
                "primary_metric": metric,
                "metrics": {metric: {"value": value, "ci": [low, high], "ci_method": "bootstrap_mean"}},
            }
        ],
        "run_seconds": 1.0,
        "created": created,
    }
    if run_identity:
        identity = {
            "model_spec": spec,
            "model_args": {},
            "model_revision": None,
            "task_id": task_id,
            "task_fingerprint": task["fingerprint"]["sha256"],
            "shots": [shots],
            "seed": seed,
            "limit": None,
            "generation": None,
        }
        document["run_identity"] = {"key": canonical_sha256(identity)[:12], **identity}
    samples = [
        {
            "shots": shots,
            "_genbench_idx": i,
            "prompt": None,
            "raw_output": None,
            "prediction": None,
            "target": None,
            "metrics": {metric: float(s)},
        }
        for i, s in enumerate(scores)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_results(document, path, samples)
