"""Zero- and few-shot prompt datasets over a task's test split: one ``datasets.Dataset`` per number of shots, a row per
test example, the test split's other columns kept. The columns: docs/prompting.md.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench._core.errors import PreparationError
from genbench._core.vocabulary import TaskType, split_name
from genbench.data._arrow_values import integer_array, string_array, string_scalar
from genbench.prompting._few_shot import few_shot_pool, sample_shot_ids
from genbench.prompting._formatting import IDX_COLUMN, FormattedExamples, format_examples, format_examples_with

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa

    from genbench.config._schema import PromptBuilderConfig

logger = logging.getLogger(__name__)

SHOT_IDS_COLUMN = "_genbench_shot_ids"
# Bump when the prompts built for the same inputs change, so that fingerprints of old results no longer match.
BUILDER_VERSION = "1"


def build_prompt_datasets(
    datasets: Mapping[str, datasets.Dataset],
    *,
    task_type: TaskType | str,
    prompt_builder: PromptBuilderConfig,
    shot_list: Sequence[int],
    random_seed: int = 42,
    example_formatter: Callable[[Mapping[str, Any], int], Mapping[str, Any]] | None = None,
) -> dict[int, datasets.Dataset]:
    r"""Build one prompt dataset over the test split for each number of shots.

    Every split is formatted once (vectorised) and reused for all shot counts. Shots come from the train split,
    else the validation split, else the test split with each query excluded from its own shots; every query gets
    exactly ``k`` distinct shots, chosen by a counter-based hash of ``(random_seed, _genbench_idx)``, so the same
    seed gives the same prompts on any machine. Nothing is written to the Hugging Face cache.

    Args:
        datasets: Split name (or :class:`~genbench._core.vocabulary.DatasetSplit`) to formatted dataset, with
            ``input``, ``target``, ``target_options`` (multiple choice) and ``_genbench_idx`` columns.
        task_type: ``free_form``, ``multiple_choice`` or ``sequence_labeling``.
        prompt_builder: The task's prompt builder options.
        shot_list: Numbers of shots, each an int >= 0; a repeated number is built once.
        random_seed: Seed of shot selection and ``permute_choices``.
        example_formatter: A task's own per-example formatter (``(example, random_seed) -> {"formatted_input",
            "formatted_target"}``) replacing the vectorised formatting; used for tasks that override the original
            framework's ``_format_example_for_in_context_learning``.

    Returns:
        Number of shots to dataset, in ``shot_list`` order; the columns are in docs/prompting.md.

    Raises:
        PreparationError: No test split, a bad ``shot_list``, too few examples in the shot pool, or a bad example
            (the message names the split and the example's ``_genbench_idx``).

    >>> from datasets import Dataset
    >>> from genbench.config._schema import PromptBuilderConfig
    >>> splits = {
    ...     "train": Dataset.from_dict({"input": ["1+1"], "target": ["2"], "_genbench_idx": [0]}),
    ...     "test": Dataset.from_dict({"input": ["2+2"], "target": ["4"], "_genbench_idx": [0]}),
    ... }
    >>> prompts = build_prompt_datasets(
    ...     splits, task_type="free_form", prompt_builder=PromptBuilderConfig(), shot_list=[0, 1]
    ... )
    >>> prompts[0][0]["input"]
    'Q: 2+2\nA: '
    >>> prompts[1][0]["input"]
    'Q: 1+1\nA: 2\n\nQ: 2+2\nA: '
    >>> prompts[1][0]["target"], prompts[1][0]["_genbench_shot_ids"]
    ('4', [0])
    """
    splits = {split_name(key): value for key, value in datasets.items()}
    built = build_prompts(
        splits,
        task_type=task_type,
        prompt_builder=prompt_builder,
        shot_list=shot_list,
        random_seed=random_seed,
        example_formatter=example_formatter,
    )
    task_type = TaskType(task_type)
    result: dict[int, Any] = {}  # (the `datasets` parameter shadows the module name here)
    for k, prompts in built.items():
        # A task's own formatter is code we cannot fingerprint: give such results a random fingerprint.
        fingerprint = (
            None
            if example_formatter is not None
            else _fingerprint(
                splits,
                k,
                prompts.pool_split,
                task_type=task_type,
                prompt_builder=prompt_builder,
                random_seed=random_seed,
            )
        )
        result[k] = _to_dataset(splits["test"], prompts, task_type, fingerprint=fingerprint)
    return result


@dataclass(frozen=True)
class Prompts:
    """The prompts of one number of shots, as Arrow arrays aligned with the test split's rows.

    Attributes:
        k: The number of shots.
        test: The formatted test split (its ``ids``, formatted ``targets`` and own columns in ``table``).
        inputs: The prompts (Arrow strings).
        shot_ids: ``k > 0``: each prompt's shots' ``_genbench_idx``, in prompt order (an Arrow list array).
        pool_split: ``k > 0``: the split the shots come from.
        description: Where queries and shots come from, and the seed.
    """

    k: int
    test: FormattedExamples
    inputs: pa.Array
    shot_ids: pa.Array | None
    pool_split: str | None
    description: str


def build_prompts(
    splits: Mapping[str, Any],
    *,
    task_type: TaskType | str,
    prompt_builder: PromptBuilderConfig,
    shot_list: Sequence[int],
    random_seed: int = 42,
    example_formatter: Callable[[Mapping[str, Any], int], Mapping[str, Any]] | None = None,
) -> dict[int, Prompts]:
    """:func:`build_prompt_datasets`' prompts as Arrow arrays, from ``datasets.Dataset`` or ``pyarrow.Table`` splits.

    The same prompts as :func:`build_prompt_datasets`, without building ``datasets.Dataset`` objects (the light
    paths, such as ``genbench-cli show-task`` over ``pyarrow`` tables, never import ``datasets``).

    Raises:
        PreparationError: As :func:`build_prompt_datasets`.

    >>> import pyarrow as pa
    >>> from genbench.config._schema import PromptBuilderConfig
    >>> splits = {"test": pa.table({"input": ["2+2"], "target": ["4"], "_genbench_idx": [0]})}
    >>> prompts = build_prompts(splits, task_type="free_form", prompt_builder=PromptBuilderConfig(), shot_list=[0])
    >>> prompts[0].inputs.to_pylist(), prompts[0].test.targets.to_pylist()
    (['Q: 2+2\\nA: '], ['4'])
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    shot_counts = _validate_shot_list(shot_list)
    task_type = TaskType(task_type)
    splits = {split_name(key): value for key, value in splits.items()}
    if "test" not in splits:
        raise PreparationError(f"prompt-based testing needs a test split, but there are only {sorted(splits)}")

    def format_split(name: str) -> FormattedExamples:
        return format_split_with(splits, name, task_type, prompt_builder, random_seed, example_formatter)

    test = format_split("test")
    pool_split: str | None = None
    exclude_query = False
    pool_ids = np.zeros(0, dtype=np.int64)
    shot_texts = string_array([])
    # Strings reach the compute functions as Arrow scalars: a Python str would make pyarrow import pandas.
    empty = string_scalar("")
    if any(k > 0 for k in shot_counts):
        pool_split, exclude_query = few_shot_pool(splits)
        pool = test if pool_split == "test" else format_split(pool_split)
        pool_ids = pool.ids
        # A shot is its formatted input followed directly by its formatted target.
        shot_texts = pc.binary_join_element_wise(pool.inputs, pool.targets, empty)

    separator = string_scalar(prompt_builder.few_shot_example_separator)
    result: dict[int, Prompts] = {}
    for k in shot_counts:
        if k == 0:
            prompts = pc.binary_join_element_wise(
                string_scalar(prompt_builder.instruction_zero_shot), test.inputs, empty
            )
            shot_ids = None
        else:
            positions = sample_shot_ids(
                test.ids,
                pool_size=len(pool_ids),
                k=k,
                random_seed=random_seed,
                exclude_self=exclude_query,
                # The test split is the pool: a query's own pool position is its row, whatever its id.
                self_positions=np.arange(len(test)) if exclude_query else None,
                pool_split=pool_split,
            ).reshape(-1)
            offsets = np.arange(0, len(positions) + 1, k, dtype=np.int64)
            shots = pa.LargeListArray.from_arrays(integer_array(offsets), shot_texts.take(integer_array(positions)))
            context = pc.binary_join(shots, separator)
            prompts = pc.binary_join_element_wise(
                string_scalar(prompt_builder.instruction_few_shot), context, separator, test.inputs, empty
            )
            shot_ids = pa.ListArray.from_arrays(integer_array(offsets, np.int32), integer_array(pool_ids[positions]))
        description = _describe(k, pool_split, exclude_query, random_seed)
        result[k] = Prompts(
            k=k,
            test=test,
            inputs=prompts.cast(pa.string()),
            shot_ids=shot_ids,
            pool_split=pool_split if k > 0 else None,
            description=description,
        )
        logger.info("Built %d %d-shot prompts (%s).", len(test), k, description)
    return result


def format_split_with(
    splits: Mapping[str, Any],
    name: str,
    task_type: TaskType,
    prompt_builder: PromptBuilderConfig,
    random_seed: int,
    example_formatter: Callable[[Mapping[str, Any], int], Mapping[str, Any]] | None,
) -> FormattedExamples:
    """The split ``name`` formatted by the task's own formatter when it has one, else vectorised."""
    if example_formatter is not None:
        return format_examples_with(example_formatter, splits[name], random_seed=random_seed, split=name)
    return format_examples(
        splits[name], task_type=task_type, prompt_builder=prompt_builder, random_seed=random_seed, split=name
    )


def _validate_shot_list(shot_list: Sequence[int]) -> list[int]:
    if isinstance(shot_list, (str, bytes)) or not isinstance(shot_list, Sequence | np.ndarray):
        raise PreparationError(f"shot_list must be a list of numbers of shots (ints >= 0), got {shot_list!r}")
    counts: list[int] = []
    for value in shot_list:
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise PreparationError(f"shot_list entries must be ints >= 0, got {value!r} in {list(shot_list)!r}")
        if value < 0:
            raise PreparationError(f"shot_list entries must be ints >= 0, got {int(value)} in {list(shot_list)!r}")
        if int(value) not in counts:  # the result is keyed by k: a repeated k would only be built twice
            counts.append(int(value))
    return counts


def _describe(k: int, pool_split: str | None, exclude_query: bool, random_seed: int) -> str:
    text = f"genbench prompts: {k}-shot, queries from the 'test' split"
    if k > 0:
        text += f", shots from the '{pool_split}' split"
        if exclude_query:
            text += " (each query excluded from its own shots)"
    return f"{text}, random_seed={random_seed}"


def _fingerprint(
    splits: Mapping[str, Any],
    k: int,
    pool_split: str | None,
    *,
    task_type: TaskType,
    prompt_builder: PromptBuilderConfig,
    random_seed: int,
) -> str | None:
    """A fingerprint derived from the inputs' fingerprints, as ``datasets`` transforms do.

    Saves ``datasets`` from hashing the whole prompt table. ``None`` (a random fingerprint) when an input is not a
    ``datasets.Dataset``.
    """
    used = ["test"] if k == 0 or pool_split in (None, "test") else ["test", str(pool_split)]
    fingerprints = [getattr(splits[name], "_fingerprint", None) for name in used]
    dump = getattr(prompt_builder, "model_dump", None)
    if any(not isinstance(fp, str) for fp in fingerprints) or dump is None:
        return None
    options = dump(mode="json")
    state = {
        "transform": "genbench.prompting.build_prompt_datasets",
        "version": BUILDER_VERSION,
        "inputs": dict(zip(used, fingerprints, strict=True)),
        "task_type": task_type.value,
        "prompt_builder": options,
        "k": k,
        "random_seed": random_seed,
    }
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()[:16]


def _to_dataset(source: Any, built: Prompts, task_type: TaskType, *, fingerprint: str | None) -> datasets.Dataset:
    """Assemble the prompt table in memory, keeping the test split's own feature types for copied columns."""
    import datasets
    import pyarrow as pa
    from datasets.fingerprint import generate_random_fingerprint
    from datasets.table import InMemoryTable

    test, prompts, shot_ids, description = built.test, built.inputs, built.shot_ids, built.description
    table = test.table
    source_features = getattr(source, "features", None)

    def copied(column: str, as_column: str) -> tuple[str, pa.ChunkedArray, Any]:
        data = table.column(column)
        if source_features is not None and column in source_features:
            feature = source_features[column]
        else:
            feature = datasets.Features.from_arrow_schema(pa.schema([(column, data.type)]))[column]
        return as_column, data, feature

    string = datasets.Value("string")
    columns: list[tuple[str, Any, Any]] = [
        ("input", prompts, string),
        ("target", test.targets, string),
        copied("input", "original_input"),
        copied("target", "original_target"),
    ]
    if task_type is TaskType.MULTIPLE_CHOICE:
        columns.append(copied("target_options", "target_options"))
    columns.append((IDX_COLUMN, pa.array(test.ids, pa.int64()), datasets.Value("int64")))
    if shot_ids is not None:
        columns.append((SHOT_IDS_COLUMN, shot_ids, _int64_list_feature()))
    produced = {name for name, _, _ in columns} | {"input", "target"}
    columns.extend(copied(name, name) for name in table.column_names if name not in produced)

    features = datasets.Features({name: feature for name, _, feature in columns})
    arrow_table = pa.Table.from_arrays([data for _, data, _ in columns], schema=features.arrow_schema)
    info = datasets.DatasetInfo(description=description, features=features)
    return datasets.Dataset(
        InMemoryTable(arrow_table), info=info, fingerprint=fingerprint or generate_random_fingerprint()
    )


def _int64_list_feature() -> Any:
    import datasets

    list_feature = getattr(datasets, "List", None)  # datasets >= 4; Sequence of a Value is the same type before
    return list_feature(datasets.Value("int64")) if list_feature else datasets.Sequence(datasets.Value("int64"))
