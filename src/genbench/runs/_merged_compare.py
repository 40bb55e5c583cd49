"""Compare two merged results of a task with subtasks: the TaskDict's merge re-applied to paired resamples.

The per-sample logs come from the subtasks' files named by ``merged_from`` (checked against their SHA-256), paired
by ``_genbench_idx``. The interval and the permutation test resample or swap examples (the same ones for A and B,
and for paired subtasks) and re-apply ``merge_evaluation_results`` to both. See
docs/running_models.md#comparing-two-results.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genbench._core.bootstrap import resample_indices
from genbench._core.metric_values import is_finite_number
from genbench.runs._errors import ResultsFileError
from genbench.runs._merged_results import file_sha256
from genbench.runs._results import read_results

Merge = Callable[[Mapping[str, Mapping[str, Any]]], Mapping[str, Any]]


def subtask_logs(path: Path, document: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Subtask id -> the per-sample log of its results file named by the merged document's ``merged_from``.

    Raises:
        ResultsFileError: a subtask file is missing, was changed after the merge, or has no per-sample log.
    """
    logs = {}
    for entry in document.get("merged_from") or ():
        file = path.parent / Path(entry["results_file"]).name
        if not file.is_file():
            raise ResultsFileError(f"{path} was merged from {file.name}, which is missing: keep the files together.")
        if file_sha256(file) != entry["sha256"]:
            raise ResultsFileError(
                f"{path} was merged from {file.name}, which changed since (its SHA-256 differs): rerun the task to "
                "merge its subtasks' results again."
            )
        _, samples = read_results(file)
        if samples is None:
            raise ResultsFileError(f"{file} has no per-sample log: rerun without --no-samples to compare it.")
        logs[entry["task_id"].partition(":")[2]] = samples
    if not logs:
        raise ResultsFileError(f"{path} names no subtask results files (merged_from): it cannot be compared.")
    return logs


def clean_samples(path: str | Path, samples: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The per-sample records of a run's clean subset: those its shift report does not flag (``contained`` false).

    Raises:
        ResultsFileError: a record has no ``contained`` (its run had no shift report, or predates the field).
    """
    if any("contained" not in sample for sample in samples):
        raise ResultsFileError(
            f"{path}: its per-sample log does not say which examples are contained (no 'contained' field): rerun "
            "it with --shift-report REPORT to compare clean subsets."
        )
    return [dict(sample) for sample in samples if not sample["contained"]]


def _merged(merge: Merge, means: Mapping[str, Mapping[str, float]]) -> Mapping[str, Any]:
    return merge({sid: dict(values) for sid, values in means.items()})


def compare_merged_setting(
    merge: Merge,
    pairs: Mapping[str, tuple[Mapping[str, np.ndarray], Mapping[str, np.ndarray], list[int]]],
    *,
    resamples: int,
    permutations: int,
    seed: int,
    confidence: float = 0.95,
) -> dict[str, tuple[float, float, float, float, float, float]]:
    """Merged key -> ``(a, b, a - b, low, high, p)`` for one setting.

    Args:
        merge: The TaskDict's ``merge_evaluation_results``.
        pairs: Subtask id -> (A's per-sample values by key, B's, the shared ``_genbench_idx`` in order).
        resamples: Bootstrap resamples of the difference.
        permutations: Sign-flip permutations.
        seed: Seeds both.
        confidence: Interval confidence.
    """
    ids = [p[2] for p in pairs.values()]
    paired = len(ids) > 1 and all(i == ids[0] for i in ids[1:])
    observed_a = _merged(merge, {s: {k: float(v.mean()) for k, v in a.items()} for s, (a, _, _) in pairs.items()})
    observed_b = _merged(merge, {s: {k: float(v.mean()) for k, v in b.items()} for s, (_, b, _) in pairs.items()})
    keys = [k for k in observed_a if is_finite_number(observed_a[k]) and is_finite_number(observed_b.get(k))]
    rng = np.random.default_rng(seed + 1)
    rows: dict[str, np.ndarray] = {}
    flips: dict[str, np.ndarray] = {}
    for j, (sid, (_, _, shared)) in enumerate(pairs.items()):
        n = len(shared)
        if paired and rows:
            first = next(iter(rows))
            rows[sid], flips[sid] = rows[first], flips[first]
            continue
        rows[sid] = resample_indices(n, resamples, seed + j)
        flips[sid] = rng.random((permutations, n)) < 0.5
    # per subtask and key: the resampled means of A and B, and the permuted means (A and B swapped where flipped)
    boot_a, boot_b, perm_a, perm_b = {}, {}, {}, {}
    for sid, (a, b, _) in pairs.items():
        boot_a[sid] = {k: v[rows[sid]].mean(axis=1) for k, v in a.items()}
        boot_b[sid] = {k: v[rows[sid]].mean(axis=1) for k, v in b.items()}
        flip = flips[sid].astype(float)
        perm_a[sid] = {k: (a[k].sum() + flip @ (b[k] - a[k])) / len(a[k]) for k in a}
        perm_b[sid] = {k: (b[k].sum() + flip @ (a[k] - b[k])) / len(b[k]) for k in b}

    def draws(first: dict, second: dict, count: int) -> np.ndarray:
        out = np.full((count, len(keys)), np.nan)
        for r in range(count):
            merged_a = _merged(merge, {s: {k: float(v[r]) for k, v in first[s].items()} for s in pairs})
            merged_b = _merged(merge, {s: {k: float(v[r]) for k, v in second[s].items()} for s in pairs})
            out[r] = [
                float(merged_a[k]) - float(merged_b[k])
                if is_finite_number(merged_a.get(k)) and is_finite_number(merged_b.get(k))
                else np.nan
                for k in keys
            ]  # fmt: skip
        return out

    boot, perm = draws(boot_a, boot_b, resamples), draws(perm_a, perm_b, permutations)
    results = {}
    for column, key in enumerate(keys):
        difference = float(observed_a[key]) - float(observed_b[key])
        finite = boot[:, column][np.isfinite(boot[:, column])]
        low, high = (
            (float(q) for q in np.quantile(finite, [(1 - confidence) / 2, (1 + confidence) / 2]))
            if finite.size
            else (math.nan, math.nan)
        )
        permuted = np.abs(perm[:, column][np.isfinite(perm[:, column])])
        extreme = int(np.sum(permuted >= abs(difference) - 1e-12 * max(1.0, abs(difference))))
        p_value = min(1.0, (1 + extreme) / (1 + permuted.size))
        results[key] = (float(observed_a[key]), float(observed_b[key]), difference, low, high, p_value)
    return results


def paired_logs(
    logs_a: Mapping[str, Sequence[Mapping[str, Any]]], logs_b: Mapping[str, Sequence[Mapping[str, Any]]], shots: Any
) -> dict[str, tuple[dict[str, np.ndarray], dict[str, np.ndarray], list[int]]]:
    """Per subtask, the per-sample values of A and B on the examples of ``shots`` both scored (keys both have)."""
    pairs = {}
    for sid, samples_a in logs_a.items():
        by_a = {s["_genbench_idx"]: s for s in samples_a if s["shots"] == shots}
        by_b = {s["_genbench_idx"]: s for s in logs_b.get(sid, ()) if s["shots"] == shots}
        shared = [i for i in by_a if i in by_b]
        if not shared:
            continue
        keys = [
            k
            for k in by_a[shared[0]]["metrics"]
            if all(
                is_finite_number(by_a[i]["metrics"].get(k)) and is_finite_number(by_b[i]["metrics"].get(k))
                for i in shared
            )
        ]
        a = {k: np.array([float(by_a[i]["metrics"][k]) for i in shared]) for k in keys}
        b = {k: np.array([float(by_b[i]["metrics"][k]) for i in shared]) for k in keys}
        pairs[sid] = (a, b, shared)
    return pairs
