"""Scores on the part a corpus never saw: a run's answers scored again without the examples a shift report flags.

A shift report (``genbench-cli shift measure``) flags the test examples its corpus contains; the clean subset of an
evaluation is every other example, scored with the same answers (the model is not asked again). See docs/shift.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench.contamination._errors import ContaminationError
from genbench.contamination._testsets import loaded_task_test_sets
from genbench.contamination.shift._report import example_text_sha256, read_shift_report
from genbench.data._checksums import file_sha256
from genbench.runs._answer_scoring import Answers, evaluate_answers
from genbench.runs._merged_results import SubtaskScores
from genbench.runs._results import clean_subset_definition
from genbench.runs._scoring import BootstrapSettings

if TYPE_CHECKING:
    from genbench.task import Task


@dataclass(frozen=True)
class ShiftFlags:
    """One test set's shift report: its identity (as results files record it) and its flagged examples.

    Attributes:
        path: The report file.
        task_id: The test set it measured (``task`` or ``task:subtask``).
        record: The results file's ``shift_report`` entry.
        examples: Per example of the test split, in order: its text's SHA-256 and whether it is flagged.
    """

    path: Path
    task_id: str
    record: dict[str, Any]
    examples: list[tuple[str | None, bool]]

    @property
    def definition(self) -> dict[str, Any]:
        """What makes an example contained (the corpus index and the threshold): the run identity's
        ``clean_subset``, the same for every report of one corpus and threshold."""
        return clean_subset_definition(self.record)


def read_shift_flags(path: str | Path) -> ShiftFlags:
    """A shift report, checked (:func:`~genbench.contamination.shift.read_shift_report`), with its flagged examples.

    Raises:
        ContaminationError: not a valid report, or its examples file is missing or changed.
    """
    path = Path(path)
    report = read_shift_report(path)
    lines = (path.parent / report["examples_file"]).read_text(encoding="utf-8").splitlines()
    rows = sorted((json.loads(line) for line in lines if line.strip()), key=lambda row: int(row["index"]))
    settings = report["settings"]
    record = {
        "file": path.name,
        "sha256": file_sha256(path),
        "corpus": report["corpus"]["name"],
        "index_sha256": report["corpus"]["index_sha256"],
        "threshold": settings["threshold"],
        "threshold_ngram": settings["threshold_ngram"],
    }
    examples = [(row.get("text_sha256"), bool(row["flagged"])) for row in rows]
    return ShiftFlags(path, report["test_set"]["name"], record, examples)


def shift_flags_by_task(paths: Iterable[str | Path], task_ids: Sequence[str]) -> dict[str, ShiftFlags]:
    """The reports of a run, by the task they measured; each must measure one of ``task_ids``, and only one each.

    Raises:
        ContaminationError: a report of a task the run does not have, or two reports of one task.
    """
    by_task: dict[str, ShiftFlags] = {}
    for path in paths:
        flags = read_shift_flags(path)
        if flags.task_id not in task_ids:
            raise ContaminationError(
                f"{flags.path} is the shift report of {flags.task_id!r}, which this run does not score "
                f"(its tasks: {', '.join(task_ids)}). Give the report of each task you run."
            )
        if flags.task_id in by_task:
            raise ContaminationError(
                f"{flags.path} and {by_task[flags.task_id].path} are both shift reports of {flags.task_id!r}: "
                "give one."
            )
        by_task[flags.task_id] = flags
    return by_task


def contained_indices(flags: ShiftFlags, task: Task) -> set[int]:
    """The ``_genbench_idx`` values of the test examples the report flags, once the report is checked to be of
    this task's test split (same examples, in the same order, with the same text).

    Raises:
        ContaminationError: the report is of another task, or its examples are not the task's test examples.
    """
    if flags.task_id != task.task_id:
        raise ContaminationError(
            f"{flags.path} is the shift report of {flags.task_id!r}, not of {task.task_id!r}: measure this task."
        )
    test_set = next((t for t in loaded_task_test_sets(task) if t.name == task.task_id), None)
    if test_set is None:
        raise ContaminationError(f"{flags.path}: task {task.task_id!r} has no test split to score a clean subset of.")
    if len(test_set.rows) != len(flags.examples):
        raise ContaminationError(
            f"{flags.path} measured {len(flags.examples)} examples, but the test split of {task.task_id!r} has "
            f"{len(test_set.rows)}: the task changed since; measure it again (genbench-cli shift measure)."
        )
    for index, (row, (text_sha256, _)) in enumerate(zip(test_set.rows, flags.examples, strict=True)):
        if text_sha256 is None:
            raise ContaminationError(
                f"{flags.path}: its examples record no text_sha256 (an older report), so they cannot be matched to "
                f"the test examples of {task.task_id!r}: measure the task again (genbench-cli shift measure)."
            )
        if text_sha256 != example_text_sha256(row):
            raise ContaminationError(
                f"{flags.path}: example {index} is not the text of test example {index} of {task.task_id!r} "
                f"({row[0][:40]!r}): the task changed since; measure it again (genbench-cli shift measure)."
            )
    ids = task.get_datasets_raw()["test"]["_genbench_idx"]
    return {int(ids[i]) for i, (_, flagged) in enumerate(flags.examples) if flagged}


def clean_evaluation(
    task: Task,
    dataset: Any,
    answers: Answers,
    contained: set[int],
    *,
    shots: int | None,
    bootstrap: BootstrapSettings,
) -> dict[str, Any]:
    """The ``clean`` entry of an evaluation: its answers scored on the examples not in ``contained``."""
    keep = [i for i, idx in enumerate(dataset["_genbench_idx"]) if int(idx) not in contained]
    subset = Answers(
        [answers.targets[i] for i in keep],
        [answers.raw_outputs[i] for i in keep],
        None if answers.length_normalised is None else [answers.length_normalised[i] for i in keep],
        answers.multiple_choice_method,
    )
    if not keep:
        return {"num_examples": 0, "excluded": len(dataset), "primary_metric": None, "metrics": {}}
    evaluation, _ = evaluate_answers(task, dataset.select(keep), subset, shots=shots, bootstrap=bootstrap)
    return {
        "num_examples": len(keep),
        "excluded": len(dataset) - len(keep),
        "primary_metric": evaluation["primary_metric"],
        "metrics": evaluation["metrics"],
    }


def clean_subtask_scores(scores: SubtaskScores, clean: dict[str, Any], contained: set[int]) -> SubtaskScores:
    """A subtask's scores (:func:`~genbench.runs._answer_scoring.subtask_scores`) on its clean subset, whose
    evaluation entry is ``clean``: what the merged result of its TaskDict resamples for the merged ``clean``."""
    positions = [i for i, idx in enumerate(scores.example_ids) if int(idx) not in contained]
    return scores.subset(positions, {key: entry["value"] for key, entry in clean["metrics"].items()})


def check_task_dict_reports(task_id: str, subtask_ids: Sequence[str], by_task: dict[str, ShiftFlags]) -> None:
    """A task with subtasks is scored on a clean subset with a report for each subtask, all of one corpus index
    and threshold (one clean subset definition, so that the merged result has one), or with none.

    Raises:
        ContaminationError: some subtasks have a report and others not, or their reports define clean differently.
    """
    given = [sub for sub in subtask_ids if sub in by_task]
    if not given:
        return
    missing = [sub for sub in subtask_ids if sub not in by_task]
    if missing:
        raise ContaminationError(
            f"Task {task_id!r} has subtasks; shift reports were given for {', '.join(given)} but not for "
            f"{', '.join(missing)}: give one report per subtask (genbench-cli shift measure {task_id}), or none."
        )
    first = by_task[given[0]]
    for sub in given[1:]:
        if by_task[sub].definition != first.definition:
            raise ContaminationError(
                f"{by_task[sub].path} and {first.path}, shift reports of subtasks of {task_id!r}, differ in corpus "
                f"index or threshold ({by_task[sub].definition} vs {first.definition}): measure every subtask "
                "against one corpus with one threshold, so that the task's merged clean subset is defined."
            )
