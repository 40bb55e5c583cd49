"""Compare two results files of the same task: a paired test per metric on the examples both scored.

Examples are paired by ``_genbench_idx``; a TaskDict's merged results are compared on its merged metrics
(:mod:`genbench.runs._merged_compare`); ``subset="clean"`` compares the clean subsets of two runs with shift reports.
See docs/running_models.md and docs/shift.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from genbench._core.bootstrap import DEFAULT_PERMUTATIONS, DEFAULT_RESAMPLES, paired_difference
from genbench.runs._errors import ResultsFileError
from genbench.runs._merged_compare import clean_samples, compare_merged_setting, paired_logs, subtask_logs
from genbench.runs._merged_results import is_merged_results
from genbench.runs._results import clean_subset_definition, read_results, read_results_document


@dataclass(frozen=True)
class MetricComparison:
    """One metric of one setting compared.

    Attributes:
        shots: The setting (None: unprompted).
        metric: The metric key.
        a: Mean per-sample value of A on the shared examples.
        b: The same for B.
        difference: ``a - b``.
        low: Lower end of the paired bootstrap interval of the difference.
        high: Upper end.
        p_value: Two-sided paired permutation test.
        n: Number of shared examples.
        note: ``""``, or why the per-sample mean differs from the reported metric.
        subset: ``"all"`` examples, or the ``"clean"`` subset only.
    """

    shots: int | None
    metric: str
    a: float
    b: float
    difference: float
    low: float
    high: float
    p_value: float
    n: int
    note: str = ""
    subset: str = "all"


Subset = Literal["all", "clean"]


def clean_definition(path: str | Path, document: dict[str, Any]) -> dict[str, Any]:
    """What a results file's clean subsets leave out (the corpus index and threshold of its shift report).

    Raises:
        ResultsFileError: the file has no clean-subset scores (its run had no shift report).
    """
    if is_merged_results(document):
        definition = (document.get("run_identity") or {}).get("clean_subset")
    else:
        report = document.get("shift_report")
        definition = clean_subset_definition(report) if report else None
    if not definition:
        raise ResultsFileError(
            f"{path} has no clean-subset scores (its run had no shift report): rerun it with --shift-report REPORT "
            "to compare clean subsets, or compare all examples (--subset all)."
        )
    return dict(definition)


def _definition_text(definition: dict[str, Any]) -> str:
    return (
        f"corpus {definition['corpus']} (index {definition['index_sha256'][:12]}), threshold "
        f"{definition['threshold']} at n={definition['threshold_ngram']}"
    )


def _check_same_clean_subsets(
    path_a: str | Path, document_a: dict[str, Any], path_b: str | Path, document_b: dict[str, Any]
) -> None:
    a, b = clean_definition(path_a, document_a), clean_definition(path_b, document_b)
    if a != b:
        raise ResultsFileError(
            f"{path_a} and {path_b} scored clean subsets against different shift reports ({_definition_text(a)} vs "
            f"{_definition_text(b)}): their clean subsets are different examples. Run both with reports of one corpus "
            "index and threshold to compare clean subsets."
        )


def compare_results(
    path_a: str | Path,
    path_b: str | Path,
    *,
    subset: Subset = "all",
    resamples: int = DEFAULT_RESAMPLES,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 42,
) -> list[MetricComparison]:
    """Compare two results files metric by metric (two merged results of a task with subtasks: merged metric by
    merged metric), on all examples or (``subset="clean"``) on the clean subset both runs' shift report defines.

    Raises:
        ResultsFileError: an invalid file, a file without per-sample log, results of different tasks, different
            task fingerprints (the files were made from different task versions), or no shared examples; for the
            clean subset, a file without clean scores, or two files whose shift reports define clean differently.
    """
    document_a, samples_a = read_results(path_a)
    document_b, samples_b = read_results(path_b)
    task_a, task_b = document_a["task"]["id"], document_b["task"]["id"]
    if task_a != task_b:
        hint = "Compare two results of the same task"
        if task_a.partition(":")[0] == task_b.partition(":")[0]:
            hint += ": two merged results (<task>.json) or two results of one subtask (<task>.<subtask>.json)"
        raise ResultsFileError(
            f"{path_a} holds results of task {task_a!r} and {path_b} of task {task_b!r}: these are different tasks, "
            f"whose scores are not comparable. {hint}."
        )
    if subset == "clean":
        _check_same_clean_subsets(path_a, document_a, path_b, document_b)
    if is_merged_results(document_a) or is_merged_results(document_b):
        return _compare_merged(
            Path(path_a), Path(path_b), document_a, document_b, subset=subset, resamples=resamples,
            permutations=permutations, seed=seed,
        )  # fmt: skip
    for path, samples in ((path_a, samples_a), (path_b, samples_b)):
        if samples is None:
            raise ResultsFileError(f"{path} has no per-sample log: rerun without --no-samples to compare it.")
    if subset == "clean":
        samples_a, samples_b = clean_samples(path_a, samples_a or []), clean_samples(path_b, samples_b or [])
    if document_a["task"]["fingerprint"]["sha256"] != document_b["task"]["fingerprint"]["sha256"]:
        raise ResultsFileError(
            f"{path_a} and {path_b} were made from different versions of task {document_a['task']['id']!r} "
            "(task fingerprints differ): their scores are not comparable."
        )
    by_key_a = {(s["shots"], s["_genbench_idx"]): s for s in samples_a or []}
    by_key_b = {(s["shots"], s["_genbench_idx"]): s for s in samples_b or []}
    shared = [key for key in by_key_a if key in by_key_b]
    if not shared:
        where = " of their clean subsets" if subset == "clean" else ""
        raise ResultsFileError(f"{path_a} and {path_b} share no (shots, _genbench_idx) example{where}.")
    methods = {}
    for evaluation in document_a["evaluations"]:
        scored = (evaluation.get("clean") or {}) if subset == "clean" else evaluation
        for metric, entry in (scored.get("metrics") or {}).items():
            methods[(evaluation["shots"], metric)] = entry.get("ci_method")
    comparisons = []
    settings = list(dict.fromkeys(shots for shots, _ in shared))
    for shots in settings:
        keys = [key for key in shared if key[0] == shots]
        metrics = list(dict.fromkeys(m for key in keys for m in by_key_a[key]["metrics"]))
        for metric in metrics:
            pairs = [(by_key_a[k]["metrics"].get(metric), by_key_b[k]["metrics"].get(metric)) for k in keys]
            pairs = [(x, y) for x, y in pairs if x is not None and y is not None]
            if not pairs:
                continue
            a_values, b_values = [float(x) for x, _ in pairs], [float(y) for _, y in pairs]
            result = paired_difference(a_values, b_values, resamples=resamples, permutations=permutations, seed=seed)
            note = ""
            if methods.get((shots, metric)) != "bootstrap_mean":
                note = "mean of per-sample values, not the corpus-level metric"
            comparisons.append(
                MetricComparison(
                    shots,
                    metric,
                    sum(a_values) / len(a_values),
                    sum(b_values) / len(b_values),
                    result.difference,
                    result.low,
                    result.high,
                    result.p_value,
                    result.n,
                    note,
                    subset,
                )  # fmt: skip
            )
    return comparisons


def _compare_merged(
    path_a: Path,
    path_b: Path,
    document_a: dict[str, Any],
    document_b: dict[str, Any],
    *,
    subset: Subset,
    resamples: int,
    permutations: int,
    seed: int,
) -> list[MetricComparison]:
    from genbench.task._factory import load_task

    if document_a["task"]["fingerprint"]["sha256"] != document_b["task"]["fingerprint"]["sha256"]:
        raise ResultsFileError(
            f"{path_a} and {path_b} were made from different versions of task {document_a['task']['id']!r} "
            "(task fingerprints differ): their scores are not comparable."
        )
    logs_a, logs_b = subtask_logs(path_a, document_a), subtask_logs(path_b, document_b)
    if subset == "clean":
        logs_a = {sid: clean_samples(path_a, samples) for sid, samples in logs_a.items()}
        logs_b = {sid: clean_samples(path_b, samples) for sid, samples in logs_b.items()}
    task_dict = load_task(document_a["task"]["id"])
    merge = getattr(task_dict, "merge_evaluation_results", None)
    if merge is None:
        raise ResultsFileError(
            f"{path_a}: task {document_a['task']['id']!r} has no subtasks now, but the file merges subtasks' results."
        )
    reported = {
        (e["shots"], key): entry["value"]
        for e in document_a["evaluations"]
        for key, entry in (
            ((e.get("clean") or {}).get("metrics") or {}) if subset == "clean" else e["metrics"]
        ).items()
    }
    comparisons = []
    settings = [
        e["shots"]
        for e in document_a["evaluations"]
        if any(f["shots"] == e["shots"] for f in document_b["evaluations"])
    ]
    for shots in settings:
        pairs = paired_logs(logs_a, logs_b, shots)
        if not pairs:
            continue
        n = sum(len(shared) for _, _, shared in pairs.values())
        results = compare_merged_setting(merge, pairs, resamples=resamples, permutations=permutations, seed=seed)
        for key, (a, b, difference, low, high, p_value) in results.items():
            value = reported.get((shots, key))
            exact = isinstance(value, (int, float)) and math.isclose(a, float(value), rel_tol=1e-9, abs_tol=1e-9)
            note = "" if exact else "merge of per-sample means, not the reported merged metric"
            comparisons.append(MetricComparison(shots, key, a, b, difference, low, high, p_value, n, note, subset))
    if not comparisons:
        where = " of their clean subsets" if subset == "clean" else ""
        raise ResultsFileError(f"{path_a} and {path_b} share no (subtask, shots, _genbench_idx) example{where}.")
    return comparisons


def unshared_settings(path_a: str | Path, path_b: str | Path) -> tuple[list[int | None], list[int | None]]:
    """The settings (shots; None: unprompted) that only A holds, and those only B holds: :func:`compare_results`
    leaves them out, having nothing to pair them with."""
    shots_a = [e["shots"] for e in read_results_document(path_a)["evaluations"]]
    shots_b = [e["shots"] for e in read_results_document(path_b)["evaluations"]]
    return [s for s in shots_a if s not in shots_b], [s for s in shots_b if s not in shots_a]


def comparison_rows(comparisons: list[MetricComparison]) -> list[dict[str, Any]]:
    """The comparisons as JSON-able rows."""
    return [dict(c.__dict__) for c in comparisons]
