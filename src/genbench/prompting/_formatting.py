"""One example's formatted input and formatted target, computed for a whole split at once.

The shapes are the original GenBench framework's (docs/prompting.md#the-prompt-shape). Everything runs as Arrow
compute kernels and NumPy operations over whole columns: no per-row Python, no ``Dataset.map``. Bad examples raise
:class:`~genbench._core.errors.PreparationError` naming the split and the example's ``_genbench_idx``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench._core.errors import PreparationError
from genbench._core.vocabulary import TaskType
from genbench.data._arrow_values import integer_array, integers_to_numpy, string_array, string_scalar
from genbench.prompting._counter_rng import DOMAIN_PERMUTE_CHOICES, hash64

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa

    from genbench.config._schema import PromptBuilderConfig

logger = logging.getLogger(__name__)

IDX_COLUMN = "_genbench_idx"


@dataclass(frozen=True)
class FormattedExamples:
    """The formatted inputs and targets of one split, aligned with its rows.

    Attributes:
        split: Name of the split the examples come from (used in error messages and reports).
        ids: The examples' ``_genbench_idx`` values (int64), in row order.
        inputs: Arrow string array of formatted inputs (ending with ``output_prefix``).
        targets: Arrow string array of formatted targets.
        table: The split's own columns as an Arrow table (row order as in the split).
    """

    split: str
    ids: np.ndarray
    inputs: pa.Array
    targets: pa.Array
    table: pa.Table

    def __len__(self) -> int:
        return len(self.ids)


def format_examples(
    examples: datasets.Dataset | pa.Table | Mapping[str, Sequence[Any]],
    *,
    task_type: TaskType | str,
    prompt_builder: PromptBuilderConfig,
    random_seed: int = 42,
    split: str = "test",
) -> FormattedExamples:
    r"""Format every example of a split: formatted input and formatted target, vectorised over the columns.

    Args:
        examples: The split: a ``datasets.Dataset``, a ``pyarrow.Table`` or a mapping of column name to values,
            with ``input``, ``target``, ``target_options`` (multiple choice) and ``_genbench_idx`` (when absent,
            row positions are used and a warning is logged).
        task_type: ``free_form``, ``multiple_choice`` or ``sequence_labeling``.
        prompt_builder: The prompt builder options of the task.
        random_seed: Seeds ``permute_choices`` (together with each example's ``_genbench_idx``).
        split: Name of the split, for error messages.

    Returns:
        The formatted examples, aligned with the rows of ``examples``.

    Raises:
        PreparationError: A required column is missing or has the wrong type, or an example is bad (null value,
            multiple-choice target out of range, token/label count mismatch); the message names the split and the
            example's ``_genbench_idx``.

    >>> from genbench.config._schema import PromptBuilderConfig
    >>> examples = {"input": ["Is it red?"], "target": [1], "target_options": [["no", "yes"]], "_genbench_idx": [0]}
    >>> formatted = format_examples(examples, task_type="multiple_choice", prompt_builder=PromptBuilderConfig())
    >>> formatted.inputs.to_pylist()
    ['Q: Is it red?\nchoices: \n- no\n- yes\n\nA: ']
    >>> formatted.targets.to_pylist()
    ['yes']
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    task_type = TaskType(task_type)
    table = _as_arrow_table(examples)
    ids = _example_ids(table, split)
    columns = _Columns(table, split, ids, task_type)
    pb = prompt_builder
    # Strings reach the compute functions as Arrow scalars: a Python str would make pyarrow import pandas.
    empty = string_scalar("")

    if task_type is TaskType.FREE_FORM:
        text = columns.strings("input")
        targets = columns.strings("target")
    elif task_type is TaskType.MULTIPLE_CHOICE:
        text = columns.strings("input")
        options = columns.string_lists("target_options")
        lengths = integers_to_numpy(pc.list_value_length(options)).astype(np.int64)
        target = columns.option_indices("target", lengths)
        starts = np.cumsum(lengths) - lengths
        flat_options = pc.list_flatten(options)
        targets = flat_options.take(integer_array(starts + target))
        if pb.append_choices_to_input:
            if pb.permute_choices:
                flat_options = flat_options.take(integer_array(_choice_permutation(ids, lengths, random_seed)))
            items = pc.binary_join_element_wise(
                string_scalar(pb.choice_item_prefix), flat_options, string_scalar(pb.choice_item_postfix), empty
            )
            offsets = integer_array(np.concatenate([[0], np.cumsum(lengths)]))
            choices = pc.binary_join(pa.LargeListArray.from_arrays(offsets, items), empty)
            text = pc.binary_join_element_wise(text, string_scalar(pb.choices_prefix), choices, empty)
    elif task_type is TaskType.SEQUENCE_LABELING:
        tokens = columns.string_lists("input")
        labels = columns.string_lists("target")
        columns.same_lengths(tokens, labels)
        text = pc.binary_join(tokens, string_scalar(" "))
        targets = pc.binary_join(labels, string_scalar(pb.sequence_labeling_separator))
    else:
        if task_type is TaskType.RERANKING:
            raise PreparationError(
                "reranking tasks are scored from candidate scores and have no prompts: evaluate scores with "
                "task.evaluate_predictions or a model with task.evaluate_cross_encoder"
            )
        raise PreparationError(f"unsupported task type {task_type!r}")

    inputs = pc.binary_join_element_wise(string_scalar(pb.input_prefix), text, string_scalar(pb.output_prefix), empty)
    return FormattedExamples(
        split=split,
        ids=ids,
        inputs=inputs.cast(pa.string()),
        targets=targets.cast(pa.string()),
        table=table,
    )


def _choice_permutation(ids: np.ndarray, lengths: np.ndarray, random_seed: int) -> np.ndarray:
    """Positions that reorder the flattened options, each example's block shuffled on its own.

    An example's order comes from sorting counter-based keys hashed from ``(random_seed, _genbench_idx, option
    position)``: a uniform permutation that depends on nothing else (not on other rows, not on NumPy's streams).
    """
    row = np.repeat(np.arange(len(lengths)), lengths)
    position = np.arange(len(row)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    keys = hash64(DOMAIN_PERMUTE_CHOICES, random_seed, ids[row], position)
    return np.lexsort((keys, row))


def _as_arrow_table(examples: Any) -> pa.Table:
    import pyarrow as pa

    if isinstance(examples, pa.Table):
        return examples
    if hasattr(examples, "with_format") and hasattr(examples, "column_names"):  # a datasets.Dataset
        # The Arrow view applies any indices mapping (select/shuffle/filter) without going through Python objects.
        return examples.with_format("arrow")[:]
    if isinstance(examples, Mapping):
        return pa.table({name: list(values) for name, values in examples.items()})
    raise TypeError(f"expected a datasets.Dataset, a pyarrow.Table or a mapping of columns, got {type(examples)!r}")


def _example_ids(table: pa.Table, split: str) -> np.ndarray:
    import pyarrow as pa

    if IDX_COLUMN not in table.column_names:
        logger.warning("Split '%s' has no %s column; using row positions as example ids.", split, IDX_COLUMN)
        return np.arange(table.num_rows, dtype=np.int64)
    column = table.column(IDX_COLUMN)
    if table.num_rows == 0:
        return np.zeros(0, dtype=np.int64)
    if not pa.types.is_integer(column.type):
        raise PreparationError(f"split '{split}': column {IDX_COLUMN} must hold integers, got {column.type}")
    if column.null_count:
        row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
        raise PreparationError(f"split '{split}': {IDX_COLUMN} is null in row {row}")
    return integers_to_numpy(column).astype(np.int64, copy=False)


def _is_text(arrow_type: pa.DataType) -> bool:
    import pyarrow as pa

    return pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or str(arrow_type) == "string_view"


def _is_list(arrow_type: pa.DataType) -> bool:
    import pyarrow as pa

    return (
        pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type)
    )


_EXPECTED = {
    (TaskType.FREE_FORM, "input"): "a string",
    (TaskType.FREE_FORM, "target"): "a string",
    (TaskType.MULTIPLE_CHOICE, "input"): "a string",
    (TaskType.MULTIPLE_CHOICE, "target"): "an integer index into target_options",
    (TaskType.MULTIPLE_CHOICE, "target_options"): "a list of strings",
    (TaskType.SEQUENCE_LABELING, "input"): "a list of token strings",
    (TaskType.SEQUENCE_LABELING, "target"): "a list of label strings, one per token",
}


class _Columns:
    """Typed, validated access to a split's columns; every error names the split and an example id."""

    def __init__(self, table: pa.Table, split: str, ids: np.ndarray, task_type: TaskType):
        self.table = table
        self.split = split
        self.ids = ids
        self.task_type = task_type

    def _fail(self, row: int, message: str) -> PreparationError:
        return PreparationError(f"split '{self.split}', example {IDX_COLUMN}={int(self.ids[row])}: {message}")

    def _column(self, name: str) -> pa.Array:
        if name not in self.table.column_names:
            raise PreparationError(
                f"split '{self.split}' has no '{name}' column (columns: {self.table.column_names}); "
                f"a {self.task_type.value} task needs '{name}' as {_EXPECTED[self.task_type, name]} in every example"
            )
        return self.table.column(name).combine_chunks()

    def _wrong_type(self, name: str, column: pa.Array) -> PreparationError:
        return self._fail(
            0,
            f"'{name}' must be {_EXPECTED[self.task_type, name]} for a {self.task_type.value} task, "
            f"but the column holds {column.type} (this example: {column[0].as_py()!r})",
        )

    def _check_no_nulls(self, name: str, column: pa.Array) -> None:
        if column.null_count:
            row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
            raise self._fail(row, f"'{name}' is missing (null)")

    def strings(self, name: str) -> pa.Array:

        column = self._column(name)
        if len(column) == 0:
            return string_array([])
        if not _is_text(column.type):
            raise self._wrong_type(name, column)
        self._check_no_nulls(name, column)
        return column

    def string_lists(self, name: str) -> pa.Array:
        import pyarrow as pa
        import pyarrow.compute as pc

        column = self._column(name)
        if len(column) == 0:
            return pa.ListArray.from_arrays(integer_array([0], np.int32), string_array([]))
        value_type = column.type.value_type if _is_list(column.type) else None
        if value_type is None or not (_is_text(value_type) or pa.types.is_null(value_type)):
            raise self._wrong_type(name, column)
        self._check_no_nulls(name, column)
        column = column.cast(pa.list_(pa.string()))
        values = pc.list_flatten(column)
        if values.null_count:
            parents = pc.list_parent_indices(column).to_numpy(zero_copy_only=False)
            first = int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
            raise self._fail(int(parents[first]), f"'{name}' contains a null item")
        return column

    def option_indices(self, name: str, n_options: np.ndarray) -> np.ndarray:
        import pyarrow as pa

        column = self._column(name)
        if len(column) == 0:
            return np.zeros(0, dtype=np.int64)
        if not pa.types.is_integer(column.type):
            raise self._wrong_type(name, column)
        self._check_no_nulls(name, column)
        target = integers_to_numpy(column).astype(np.int64, copy=False)
        bad = np.flatnonzero((target < 0) | (target >= n_options))
        if len(bad):
            row = int(bad[0])
            raise self._fail(
                row, f"target {int(target[row])} is out of range for {int(n_options[row])} target_options"
            )
        return target

    def same_lengths(self, tokens: pa.Array, labels: pa.Array) -> None:
        import pyarrow.compute as pc

        n_tokens = integers_to_numpy(pc.list_value_length(tokens))
        n_labels = integers_to_numpy(pc.list_value_length(labels))
        bad = np.flatnonzero(n_tokens != n_labels)
        if len(bad):
            row = int(bad[0])
            raise self._fail(
                row, f"{int(n_tokens[row])} input tokens but {int(n_labels[row])} target labels (need one per token)"
            )


def format_examples_with(
    formatter: Callable[[Mapping[str, Any], int], Mapping[str, Any]],
    examples: datasets.Dataset | pa.Table | Mapping[str, Sequence[Any]],
    *,
    random_seed: int = 42,
    split: str = "test",
) -> FormattedExamples:
    """Format examples one by one with a task's own formatter (slow path, for custom formatting).

    ``formatter(example, random_seed)`` returns ``{"formatted_input": str, "formatted_target": str}``, the
    contract of the original framework's ``Task._format_example_for_in_context_learning``, which tasks override.

    Raises:
        PreparationError: the formatter returned something else (the split and example are named).

    >>> def shout(example, seed):
    ...     return {"formatted_input": example["input"].upper() + " = ", "formatted_target": example["target"]}
    >>> formatted = format_examples_with(shout, {"input": ["1+1"], "target": ["2"], "_genbench_idx": [0]})
    >>> formatted.inputs.to_pylist(), formatted.targets.to_pylist()
    (['1+1 = '], ['2'])
    """

    table = _as_arrow_table(examples)
    ids = _example_ids(table, split)
    inputs: list[str] = []
    targets: list[str] = []
    for idx, example in zip(ids.tolist(), table.to_pylist(), strict=True):
        output = formatter(example, random_seed)
        formatted_input = output.get("formatted_input") if isinstance(output, Mapping) else None
        formatted_target = output.get("formatted_target") if isinstance(output, Mapping) else None
        if not isinstance(formatted_input, str) or not isinstance(formatted_target, str):
            raise PreparationError(
                f"split {split!r}, example _genbench_idx={idx}: the task's example formatter must return "
                f"{{'formatted_input': str, 'formatted_target': str}}, got {output!r:.200}"
            )
        inputs.append(formatted_input)
        targets.append(formatted_target)
    return FormattedExamples(split, ids, string_array(inputs), string_array(targets), table)
