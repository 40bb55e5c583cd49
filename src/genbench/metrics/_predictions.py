"""Check predictions against the gold set and turn both into what the metrics score, per task type.

Every prediction is checked (not only the first), and an error names the first offending index, what was found and
what was expected. Answers that are well-formed but wrong for their example (an option that does not exist, a label
sequence of the wrong length) are scored as wrong, never a crash.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from genbench._core.errors import PredictionError
from genbench._core.vocabulary import TaskType
from genbench.metrics._extraction import extract_free_form_answer, finds_answer

if TYPE_CHECKING:
    from datasets import Dataset

    from genbench.config._schema import PromptBuilderConfig

# The label of a multiple-choice prediction that is none of its example's options; never a valid option index.
MISSED_CHOICE = -1
# The label that pads a sequence-labeling prediction shorter than its gold sequence, and that replaces a predicted
# label outside the task's label set: the "outside" tag, which seqeval never turns into an entity.
PADDING_LABEL = "O"


@dataclass
class GoldColumns:
    """The gold columns evaluation needs, read once."""

    targets: list[Any]
    target_options: list[Any] | None


@dataclass
class ScoringInputs:
    """Predictions and references ready for the metrics, and which predictions chose no valid option.

    ``out_of_set[i]`` of ``answer_units[i]`` parts of prediction ``i`` were outside what the task allows: predicted
    labels outside the task's label set (sequence labeling, out of the gold sequence's length), an answer that is
    none of the options (multiple choice: 0 or 1 of 1), an answer the ``free_form_output_regex`` does not find (free
    form with a regex: 0 or 1 of 1). Empty lists when the task type has no such notion.
    """

    predictions: list[Any]
    references: list[Any]
    missed: list[bool]
    out_of_set: list[int] = field(default_factory=list, repr=False)
    answer_units: list[int] = field(default_factory=list, repr=False)


def read_gold(gold: Dataset | Sequence[Mapping[str, Any]]) -> GoldColumns:
    """Read the gold targets (and ``target_options``) of a ``datasets.Dataset`` or a list of mappings.

    The gold target is the ``original_target`` column when there is one (a prepared prompt dataset, whose
    ``target`` is the formatted target text), else ``target``. A dataset is read column-wise, not row by row.

    Args:
        gold: The gold set.

    Returns:
        The targets and, when the gold set has them, the target options.

    Raises:
        PredictionError: the gold set has no target column, or a row is not a mapping.

    >>> read_gold([{"input": "2+2", "target": "4"}])
    GoldColumns(targets=['4'], target_options=None)
    >>> read_gold([{"input": "Q: 2+2", "target": "four", "original_target": 1, "target_options": ["3", "4"]}])
    GoldColumns(targets=[1], target_options=[['3', '4']])
    """
    if hasattr(gold, "column_names") and hasattr(gold, "select_columns"):  # a datasets.Dataset
        columns = list(gold.column_names)
        target_column = "original_target" if "original_target" in columns else "target"
        if target_column not in columns:
            raise PredictionError(f"The gold set has no 'target' column (its columns: {', '.join(columns)})")
        wanted = [target_column] + (["target_options"] if "target_options" in columns else [])
        data = gold.select_columns(wanted).to_dict()
        return GoldColumns(data[target_column], data.get("target_options"))

    if isinstance(gold, (str, bytes, Mapping)) or not isinstance(gold, Sequence):
        raise PredictionError(f"The gold set must be a datasets.Dataset or a list of mappings, got {kind_of(gold)}")
    for index, row in enumerate(gold):
        if not isinstance(row, Mapping):
            raise PredictionError(f"gold[{index}] is {kind_of(row)}, expected a mapping with a 'target' key")
    target_column = "original_target" if gold and all("original_target" in row for row in gold) else "target"
    for index, row in enumerate(gold):
        if target_column not in row:
            raise PredictionError(f"gold[{index}] has no {target_column!r} key (its keys: {', '.join(map(str, row))})")
    has_options = any("target_options" in row for row in gold)
    return GoldColumns(
        [row[target_column] for row in gold],
        [row.get("target_options") for row in gold] if has_options else None,
    )


def prediction_targets(predictions: Any, gold_size: int) -> list[Any]:
    """The ``target`` of every prediction, after checking the list's shape.

    Args:
        predictions: One mapping with a ``target`` key per gold example, in gold order.
        gold_size: Number of gold examples.

    Returns:
        The targets, in order.

    Raises:
        PredictionError: not a list, a length different from the gold set's, an element that is not a mapping or
            has no ``target`` key (naming the first such index).

    >>> prediction_targets([{"target": "4"}, {"target": "5"}], 2)
    ['4', '5']
    >>> prediction_targets([{"target": "4"}, {"answer": "5"}], 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genbench._core.errors.PredictionError: predictions[1] has no 'target' key (its keys: answer); 1 of 2 ...
    """
    if not isinstance(predictions, (list, tuple)):
        raise PredictionError(
            f"predictions must be a list of mappings (one per gold example, each with a 'target' key), "
            f"got {kind_of(predictions)}"
        )
    if len(predictions) != gold_size:
        raise PredictionError(
            f"Got {len(predictions)} predictions for {gold_size} gold examples; give exactly one per gold example, "
            f"in the gold set's order"
        )
    not_mappings = [i for i, prediction in enumerate(predictions) if not isinstance(prediction, Mapping)]
    if not_mappings:
        first = not_mappings[0]
        raise PredictionError(
            f"predictions[{first}] is {kind_of(predictions[first])}, expected a mapping with a 'target' key; "
            f"{len(not_mappings)} of {len(predictions)} predictions are not mappings"
        )
    missing = [i for i, prediction in enumerate(predictions) if "target" not in prediction]
    if missing:
        first = missing[0]
        keys = ", ".join(map(str, predictions[first])) or "none"
        raise PredictionError(
            f"predictions[{first}] has no 'target' key (its keys: {keys}); "
            f"{len(missing)} of {len(predictions)} predictions lack it"
        )
    return [prediction["target"] for prediction in predictions]


def prepare_for_scoring(
    targets: Sequence[Any],
    gold: GoldColumns,
    task_type: TaskType,
    prompt_builder: PromptBuilderConfig | None = None,
    free_form_output_regex: str | None = None,
    labels: Collection[str] | None = None,
) -> ScoringInputs:
    """Check the prediction targets' types for the task type and normalise predictions and references.

    - ``free_form``: a prediction is a string; the answer is extracted with the prompt builder's ``stop_string``
      and ``free_form_output_regex`` (see :func:`extract_free_form_answer`). References are unchanged. An answer
      the regex does not find is scored as ``""`` and flagged in ``missed`` (and ``out_of_set``).
    - ``multiple_choice`` with ``target_options``: the gold target is an option index (or an option text, turned
      into its index); a prediction is an option index or an option text. An index out of range or a text that is
      none of the example's options is a miss: label ``MISSED_CHOICE`` (-1), flagged in ``missed``.
      Without ``target_options``, labels are compared as they are, and a prediction must be an int when the
      gold labels are ints (a string when they are strings). ``bool`` is never an index.
    - ``sequence_labeling``: a prediction is a list of label strings, or one string split on the prompt builder's
      ``sequence_labeling_separator`` (default ``","``) with each label stripped of surrounding whitespace (an
      empty string is no labels). A prediction shorter than its gold sequence is padded with ``"O"``, a longer one
      truncated, so each wrong-length prediction is scored, not refused. A predicted label outside the task's label
      set (``labels`` together with every gold label of ``gold``) is replaced by ``"O"`` and counted in
      ``out_of_set``: it is never an entity type of its own, so a model's junk (``"hen then"``, ``")"``) cannot
      become a metric key, and it is wrong wherever the gold sequence names an entity.

    Args:
        targets: The predictions' targets (see :func:`prediction_targets`).
        gold: The gold columns (see :func:`read_gold`).
        task_type: The task's type.
        prompt_builder: The prompt builder config, for ``stop_string`` and ``sequence_labeling_separator``.
        free_form_output_regex: The task's answer-extraction regex (free form only).
        labels: Sequence labeling: the task's label set (:meth:`genbench.Task.label_set`); the gold labels of
            ``gold`` always belong to it.

    Returns:
        The scoring inputs.

    Raises:
        PredictionError: a prediction of the wrong type (first index, found type, expected type), or a gold
            target that is none of its options.

    >>> gold = GoldColumns(targets=[0, 1], target_options=[["yes", "no"], ["yes", "no"]])
    >>> prepare_for_scoring(["yes", "maybe"], gold, TaskType.MULTIPLE_CHOICE)
    ScoringInputs(predictions=[0, -1], references=[0, 1], missed=[False, True])
    >>> gold = GoldColumns(targets=[["B-PER", "O"]], target_options=None)
    >>> inputs = prepare_for_scoring(["B-PER, )"], gold, TaskType.SEQUENCE_LABELING, labels={"B-LOC"})
    >>> inputs.predictions, inputs.out_of_set, inputs.answer_units
    ([['B-PER', 'O']], [1], [2])
    """
    task_type = TaskType(task_type)
    if task_type is TaskType.FREE_FORM:
        return _free_form(targets, gold, prompt_builder, free_form_output_regex)
    if task_type is TaskType.MULTIPLE_CHOICE:
        return _multiple_choice(targets, gold)
    return _sequence_labeling(targets, gold, prompt_builder, labels)


def _free_form(
    targets: Sequence[Any],
    gold: GoldColumns,
    prompt_builder: PromptBuilderConfig | None,
    free_form_output_regex: str | None,
) -> ScoringInputs:
    _check_types(targets, lambda target: isinstance(target, str), "a str", TaskType.FREE_FORM)
    stop_string = prompt_builder.stop_string if prompt_builder is not None else None
    predictions = [extract_free_form_answer(target, stop_string, free_form_output_regex) for target in targets]
    if not free_form_output_regex:
        return ScoringInputs(predictions, list(gold.targets), [False] * len(predictions))
    missed = [not finds_answer(target, stop_string, free_form_output_regex) for target in targets]
    return ScoringInputs(predictions, list(gold.targets), missed, [int(m) for m in missed], [1] * len(missed))


def _is_index(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _gold_index(index: int, target: Any, options: list[Any]) -> int:
    if _is_index(target) and 0 <= int(target) < len(options):
        return int(target)
    if isinstance(target, str) and target in options:
        return options.index(target)
    raise PredictionError(
        f"gold[{index}] target {target!r} is neither an index into its {len(options)} target_options nor one of "
        f"them ({options!r:.200})"
    )


def _multiple_choice(targets: Sequence[Any], gold: GoldColumns) -> ScoringInputs:
    expected = "an int (option index) or a str (option text)"
    _check_types(
        targets, lambda target: _is_index(target) or isinstance(target, str), expected, TaskType.MULTIPLE_CHOICE
    )
    all_options = gold.target_options if gold.target_options is not None else [None] * len(targets)

    # Without options, a prediction must be of the gold label's kind, or the labels could never be compared.
    def same_kind_as_gold(index: int) -> bool:
        gold_target = gold.targets[index]
        return all_options[index] is not None or isinstance(targets[index], str) == isinstance(gold_target, str)

    wrong_kind = [i for i in range(len(targets)) if not same_kind_as_gold(i)]
    if wrong_kind:
        first = wrong_kind[0]
        wanted = "a str" if isinstance(gold.targets[first], str) else "an int"
        raise PredictionError(
            f"predictions[{first}]['target'] is {kind_of(targets[first])}, expected {wanted} like its gold label "
            f"{gold.targets[first]!r} (the gold set has no target_options to match option texts against); "
            f"{len(wrong_kind)} of {len(targets)} predictions have this problem"
        )

    predictions: list[Any] = []
    references: list[Any] = []
    missed: list[bool] = []
    for index, (target, gold_target, options) in enumerate(zip(targets, gold.targets, all_options, strict=True)):
        if options is None:
            predictions.append(int(target) if _is_index(target) else target)
            references.append(int(gold_target) if _is_index(gold_target) else gold_target)
            missed.append(False)
            continue
        options = list(options)
        references.append(_gold_index(index, gold_target, options))
        if _is_index(target):
            choice = int(target) if 0 <= int(target) < len(options) else MISSED_CHOICE
        else:
            choice = options.index(target) if target in options else MISSED_CHOICE
        predictions.append(choice)
        missed.append(choice == MISSED_CHOICE)
    if gold.target_options is None:
        return ScoringInputs(predictions, references, missed)
    return ScoringInputs(predictions, references, missed, [int(m) for m in missed], [1] * len(missed))


def _is_label_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(label, str) for label in value)


def _sequence_labeling(
    targets: Sequence[Any],
    gold: GoldColumns,
    prompt_builder: PromptBuilderConfig | None,
    labels: Collection[str] | None,
) -> ScoringInputs:
    expected = "a list of str labels or a str of labels joined by the separator"
    _check_types(
        targets,
        lambda target: isinstance(target, str) or _is_label_list(target),
        expected,
        TaskType.SEQUENCE_LABELING,
    )
    separator = prompt_builder.sequence_labeling_separator if prompt_builder is not None else ","

    def labels_of(value: Any) -> list[Any]:
        if not isinstance(value, str):
            return list(value)
        if not value.strip():
            return []
        return [label.strip() for label in value.split(separator)] if separator else [value.strip()]

    bad_gold = [i for i, target in enumerate(gold.targets) if not (isinstance(target, str) or _is_label_list(target))]
    if bad_gold:
        first = bad_gold[0]
        raise PredictionError(f"gold[{first}] target is {kind_of(gold.targets[first])}, expected a list of str labels")
    references = [labels_of(target) for target in gold.targets]
    label_set = set(labels or ()).union(*references)
    predictions, out_of_set = [], []
    for target, reference in zip(targets, references, strict=True):
        predicted = labels_of(target)[: len(reference)]
        in_set = [label if label in label_set else PADDING_LABEL for label in predicted]
        out_of_set.append(sum(1 for label in predicted if label not in label_set))
        predictions.append(in_set + [PADDING_LABEL] * (len(reference) - len(in_set)))
    return ScoringInputs(
        predictions, references, [False] * len(predictions), out_of_set, [len(reference) for reference in references]
    )


def _check_types(targets: Sequence[Any], accepts: Callable[[Any], bool], expected: str, task_type: TaskType) -> None:
    wrong = [i for i, target in enumerate(targets) if not accepts(target)]
    if wrong:
        first = wrong[0]
        raise PredictionError(
            f"predictions[{first}]['target'] is {kind_of(targets[first])}, expected {expected} for a "
            f"{task_type.value} task; {len(wrong)} of {len(targets)} predictions have a wrong type"
        )


def kind_of(value: Any) -> str:
    """``a float (2.5)``: the type of a value and a short view of it, for error messages."""
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    name = type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{article} {name} ({shown})"
