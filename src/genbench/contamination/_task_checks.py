"""Contamination checks built into tasks: declared checks, clean-subset evaluation, and split overlap.

A task's ``contamination_checks`` name indexed training datasets, each searched with the task's test set under the
command's rules (:mod:`~genbench.contamination._analysis`). An instance whose score is 1 is contaminated; the clean
subset is the test set minus the instances any check flags. See docs/contamination.md#built-into-tasks.
"""

from __future__ import annotations

import json
import tempfile
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench._core.errors import PredictionError
from genbench.contamination._errors import ContaminationError, ContaminationWarning
from genbench.contamination._index_backend import why_unmatchable
from genbench.contamination._testsets import TestSet, as_text
from genbench.contamination._training_data import safe_file_name
from genbench.contamination._workflow import build_index, search

if TYPE_CHECKING:
    from datasets import Dataset

    from genbench.config._schema import ContaminationCheckConfig
    from genbench.task import Task

DEFAULT_NGRAM_SIZE = 8


def result_key(check: ContaminationCheckConfig) -> str:
    """``contamination__{dataset}__{mode}``: the dataset as the config names it (``/`` as ``__``), the mode as
    ``check.label``; stable across machines, unlike index names of local paths.

    >>> from genbench.config._schema import ContaminationCheckConfig
    >>> result_key(ContaminationCheckConfig(train_dataset="org/chat-mix", ngram_size=13, match_threshold=0.5))
    'contamination__org__chat-mix__ngram13'
    """
    return f"contamination__{safe_file_name(check.train_dataset.replace('/', '__'))}__{check.label}"


@dataclass
class TaskContamination:
    """The outcome of a task's contamination checks.

    Attributes:
        scores: ``contamination__{dataset}__{mode}`` → the test-set score (mean instance score), plus
            ``contamination__clean_fraction``.
        contaminated: ``_genbench_idx`` of the test instances any check flags, sorted.
        test_size: Number of test instances.
        unmatchable: Per check (its score's key) with any, the test instances no training data could match (too
            few tokens for its n-gram size): they count as clean by construction. Each also gives a
            :class:`ContaminationWarning`.
    """

    scores: OrderedDict[str, float] = field(default_factory=OrderedDict)
    contaminated: list[int] = field(default_factory=list)
    test_size: int = 0
    unmatchable: OrderedDict[str, int] = field(default_factory=OrderedDict)


def test_set_of(task: Task, fields: Sequence[str] = ("input",)) -> tuple[TestSet, list[int]]:
    """The task's test split as a contamination test set, and the ``_genbench_idx`` of each row."""
    test = task.get_datasets_raw()["test"]
    missing = [f for f in fields if f not in test.column_names]
    if missing:
        raise ContaminationError(
            f"Task {task.task_id!r}: contamination_checks field {missing[0]!r} is not a column of the test split "
            f"(columns: {', '.join(test.column_names)})."
        )
    columns = test.select_columns([*fields, "_genbench_idx"]).to_dict()
    rows = [tuple(as_text(v) for v in values) for values in zip(*(columns[f] for f in fields), strict=True)]
    return TestSet(task.task_id, tuple(fields), rows), list(columns["_genbench_idx"])


def check_task_contamination(
    task: Task,
    checks: Sequence[ContaminationCheckConfig] | None = None,
    *,
    index_dir: str | Path | None = None,
    progress: bool = False,
    backend_options: dict[str, Any] | None = None,
) -> TaskContamination:
    """Run a task's contamination checks (default: its config's) against existing indexes.

    Each check searches the backend its ``backend`` names (``embedded`` unless set); ``backend_options`` are passed
    to the backends other than the embedded one (for ``elasticsearch`` the connection comes from
    ``GENBENCH_ES_URL`` and the credentials' environment variables unless given here).

    Raises:
        ContaminationError: no checks, a missing index (build it with ``genbench-cli contamination index``).
    """
    checks = list(checks if checks is not None else task.config.contamination_checks or [])
    if not checks:
        raise ContaminationError(
            f"Task {task.task_id!r} declares no contamination_checks; add some to its config.jsonnet or pass checks."
        )
    outcome = TaskContamination()
    flagged: set[int] = set()
    for check in checks:
        test_set, ids = test_set_of(task, check.fields)
        report = search(
            _resolve_dataset(task, check.train_dataset),
            test_sets=[test_set],
            ngram_size=(check.ngram_size or DEFAULT_NGRAM_SIZE) if check.mode == "ngram" else None,
            match_threshold=None if check.mode == "exact" else check.match_threshold,
            index_type="vector" if check.mode == "embedding" else "text",
            model=check.model,
            index_dir=index_dir if check.backend == "embedded" else None,
            progress=progress,
            backend=check.backend,
            backend_options=backend_options if check.backend != "embedded" else None,
        )
        (result,) = report.results
        outcome.scores[result_key(check)] = result.score
        if result.unmatchable:
            outcome.unmatchable[result_key(check)] = result.unmatchable
            warnings.warn(
                f"{task.task_id}: contamination check {result_key(check)}: {result.unmatchable} of "
                f"{len(result.instances)} test instances {why_unmatchable(report.mode)}: no training data can match "
                "them, so they count as clean. Use a smaller ngram_size (or mode 'exact') for this check.",
                ContaminationWarning,
                stacklevel=2,
            )
        flagged.update(ids[i.number] for i in result.instances if i.score >= 1.0)
        outcome.test_size = len(ids)
    outcome.contaminated = sorted(flagged)
    outcome.scores["contamination__clean_fraction"] = (
        1.0 - len(flagged) / outcome.test_size if outcome.test_size else 1.0
    )
    return outcome


def _resolve_dataset(task: Task, dataset: str) -> str:
    """A training dataset path relative to the task directory, made absolute; other names unchanged."""
    candidate = task.task_dir / dataset
    return str(candidate.resolve()) if not Path(dataset).is_absolute() and candidate.exists() else dataset


def evaluate_clean_and_all(
    task: Task,
    *,
    predictions: Sequence[Mapping[str, Any]],
    gold: Any,
    contamination: TaskContamination,
) -> OrderedDict[str, Any]:
    """The task's metrics on all of ``gold`` and on its clean subset (keys prefixed ``clean.``), plus the scores.

    ``gold`` rows are matched to test instances by ``_genbench_idx``.
    """
    result: OrderedDict[str, Any] = OrderedDict(task.evaluate_predictions(predictions=list(predictions), gold=gold))
    if "_genbench_idx" not in gold.column_names:
        raise PredictionError("The gold dataset has no _genbench_idx column to match it to the contamination checks.")
    dirty = set(contamination.contaminated)
    keep = [row for row, idx in enumerate(gold["_genbench_idx"]) if idx not in dirty]
    if keep:
        clean = task.evaluate_predictions(predictions=[predictions[i] for i in keep], gold=gold.select(keep))
        result.update((f"clean.{key}", value) for key, value in clean.items())
    result["clean.num_examples"] = len(keep)
    result.update(contamination.scores)
    return result


@dataclass(frozen=True)
class SplitOverlap:
    """Test instances whose n-gram overlap with a train/validation example is above a threshold."""

    split: str
    ngram_size: int
    threshold: float
    pairs: list[tuple[int, int, float]]  # (test _genbench_idx, split _genbench_idx, raw score)
    test_size: int
    unmatchable: int = 0  # test inputs with fewer than ngram_size tokens: no n-gram of theirs can be shared


def split_overlap(
    task: Task, *, ngram_size: int = DEFAULT_NGRAM_SIZE, threshold: float = 0.5, splits: Sequence[str] | None = None
) -> list[SplitOverlap]:
    """N-gram overlap between the task's test inputs and its train/validation inputs (the few-shot pool is one of
    them), with the contamination rules, indexing the splits in a temporary directory.
    """
    raw = task.get_datasets_raw()
    test_set, test_ids = test_set_of(task)
    overlaps = []
    with tempfile.TemporaryDirectory(prefix="genbench-overlap-") as tmp:
        for split in splits or [s for s in ("train", "validation") if s in raw]:
            rows = raw[split].select_columns(["input", "_genbench_idx"]).to_dict()
            source = Path(tmp, f"{split}.jsonl")
            source.write_text(
                "".join(json.dumps({"text": as_text(text)}) + "\n" for text in rows["input"]), encoding="utf-8"
            )
            build_index(str(source), text_field="text", messages_field=None, index_dir=tmp)
            report = search(
                str(source), test_sets=[test_set], ngram_size=ngram_size, match_threshold=threshold, index_dir=tmp
            )
            pairs = [
                (test_ids[i.number], rows["_genbench_idx"][i.matches[0].original_id], i.raw_score)
                for i in report.results[0].instances
                if i.score >= 1.0 and i.matches
            ]
            unmatchable = report.results[0].unmatchable
            overlaps.append(SplitOverlap(split, ngram_size, threshold, pairs, len(test_ids), unmatchable))
    return overlaps


def task_contamination_scores(
    task: Task,
    checks: Sequence[ContaminationCheckConfig] | None = None,
    *,
    index_dir: str | Path | None = None,
    progress: bool = False,
) -> OrderedDict[str, Any]:
    """``Task.check_contamination``: the contamination scores of the task's declared (or given) checks."""
    outcome = check_task_contamination(task, checks, index_dir=index_dir, progress=progress)
    return OrderedDict(outcome.scores)


def evaluate_task_clean_and_all(
    task: Task,
    *,
    predictions: list[Mapping[str, Any]],
    gold: Dataset,
    index_dir: str | Path | None = None,
    checks: Sequence[ContaminationCheckConfig] | None = None,
) -> OrderedDict[str, Any]:
    """``Task.evaluate_predictions_clean_and_all``: metrics on all instances and on the clean subset."""
    outcome = check_task_contamination(task, checks, index_dir=index_dir)
    return evaluate_clean_and_all(task, predictions=predictions, gold=gold, contamination=outcome)
