"""The original framework's module-level helpers of ``genbench.task``, kept at that import path.

Task code and the original validator import ``get_data_split_name``, ``resplit_data_source`` and
``make_nshot_dataset`` from ``genbench.task``. They behave as there, except where the original was a bug
(DESIGN section 6): re-splitting may create split names the source lacks, and an n-shot prompt has exactly n shots
taken from train, else validation, else the test set without the query itself (``genbench.prompting``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from genbench._core.vocabulary import TaskType, split_name
from genbench.data._columns import with_index_column
from genbench.data._splits import parse_split_spec, resplit

if TYPE_CHECKING:
    from datasets import Dataset, DatasetDict

    from genbench.config._schema import PromptBuilderConfig


def get_data_split_name(split: str) -> str:
    """A split name as the original framework standardised it: ``dev`` becomes ``validation``.

    A name containing ``dev`` gets ``dev`` replaced and a ``.tsv`` suffix removed; any other name loses its
    extension (everything from the first ``.``).

    >>> get_data_split_name("dev"), get_data_split_name("train.jsonl"), get_data_split_name("dev.tsv")
    ('validation', 'train', 'validation')
    """
    if "dev" in split:
        return split.replace("dev", "validation").replace(".tsv", "")
    return split.split(".")[0]


def resplit_data_source(
    orig_datasets: Mapping[str, Dataset], splitting_info: Mapping[str, Sequence[str]]
) -> DatasetDict:
    """New splits from ``"split:index"`` entries (a ``split.jsonnet`` document), as a ``DatasetDict``.

    Args:
        orig_datasets: The loaded data source, split name to dataset.
        splitting_info: Target split name to its ``"orig_split:orig_index"`` entries.

    Returns:
        Target split name to dataset, sorted by name.

    Raises:
        ConfigError: a malformed entry, or one naming a split or index the source lacks.
    """
    from datasets import DatasetDict

    spec = parse_split_spec(dict(splitting_info), file="splitting_info")
    splits = resplit(dict(orig_datasets), spec, file="splitting_info")
    return DatasetDict({name: splits[name] for name in sorted(splits)})


def make_nshot_dataset(
    formatted_dataset: Mapping[Any, Dataset],
    prompt_builder_config: PromptBuilderConfig,
    shot_formatter: Callable[[Mapping[str, Any], int], Mapping[str, Any]],
    num_shots: int,
    random_seed: int,
    repeat_samples: int = 1,
    num_proc: int = 4,
) -> Dataset:
    """The ``num_shots``-shot prompt dataset over the test split, each example formatted by ``shot_formatter``.

    Args:
        formatted_dataset: Split (name or ``DatasetSplit``) to formatted dataset with ``input`` and ``target``.
        prompt_builder_config: The prompt builder options (instructions and separators).
        shot_formatter: ``(example, random_seed) -> {"formatted_input", "formatted_target"}``.
        num_shots: Shots per prompt (exactly that many).
        random_seed: Seed of shot selection.
        repeat_samples: Repeat each prompt this many times (as the original, for sampling several answers).
        num_proc: Ignored: prompts are built in-process (kept for the original's signature).

    Returns:
        The prompts, with ``input``, ``target``, ``original_input`` and ``original_target`` columns.

    Raises:
        PreparationError: no test split, or too few examples to draw the shots from.
    """
    from genbench.prompting import build_prompt_datasets

    del num_proc
    splits = {}
    for key, dataset in formatted_dataset.items():
        splits[split_name(key)] = dataset if "_genbench_idx" in dataset.column_names else with_index_column(dataset)
    prompts = build_prompt_datasets(
        splits,
        task_type=TaskType.FREE_FORM,  # unused: shot_formatter formats every example
        prompt_builder=prompt_builder_config,
        shot_list=[num_shots],
        random_seed=random_seed,
        example_formatter=shot_formatter,
    )[num_shots]
    if repeat_samples != 1:
        prompts = prompts.select([i for i in range(len(prompts)) for _ in range(repeat_samples)])
    return prompts
