"""Core vocabulary of genbench: task types, preparation strategies, dataset splits and the task interface.

These names are those of the original GenBench framework, so tasks written for it import them unchanged.
"""

from __future__ import annotations

import abc
from collections import OrderedDict
from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # datasets is heavy: never imported at `import genbench` time
    import datasets


class DatasetSplit(Enum):
    """The three standard splits of a task.

    >>> DatasetSplit("validation")
    <DatasetSplit.VALIDATION: 'validation'>
    """

    TRAIN = "train"
    VALIDATION = "validation"
    TEST = "test"


class TaskType(Enum):
    """What kind of output a task expects from a model."""

    FREE_FORM = "free_form"
    MULTIPLE_CHOICE = "multiple_choice"
    SEQUENCE_LABELING = "sequence_labeling"
    # input: the query; target: the relevant documents; target_options: the candidates; predictions: one score
    # per candidate (see docs/reranking.md).
    RERANKING = "reranking"


class PreparationStrategy(Enum):
    """How a model is prepared for a task: finetuned on its train set, or prompted (zero/few-shot)."""

    FINETUNING = "finetuning"
    PROMPT_BASED_TESTING = "prompt_based_testing"


def split_name(key: str | DatasetSplit) -> str:
    """The plain name of a split key (``DatasetSplit.TRAIN`` and ``"train"`` both give ``"train"``).

    >>> split_name(DatasetSplit.VALIDATION)
    'validation'
    """
    return key.value if isinstance(key, DatasetSplit) else str(key)


# An ordered mapping from metric key (e.g. ``hf_exact_match__exact_match``) to its value.
EvaluationResult = OrderedDict[str, Any]


class TaskInterface(abc.ABC):
    """The methods every GenBench task provides; :class:`genbench.Task` implements them all.

    A task author overrides any of them in the task's ``task.py``.
    """

    @abc.abstractmethod
    def format_example(self, example: Mapping[str, Any]) -> Mapping[str, Any]:
        """Map one raw example of the data source to the task's fields (``input``, ``target``, ...)."""

    @abc.abstractmethod
    def evaluate_predictions(
        self,
        *,
        predictions: list[Mapping[str, Any]] | None = None,
        gold: datasets.Dataset | None = None,
    ) -> EvaluationResult:
        """Score ``predictions`` (one mapping per gold example, with a ``target`` key) against ``gold``."""

    @abc.abstractmethod
    def get_datasets_raw(self) -> Mapping[str, datasets.Dataset]:
        """Load the data source, re-split it if the config asks, and format every example."""

    @abc.abstractmethod
    def get_prepared_datasets(
        self,
        preparation_strategy: PreparationStrategy,
        shot_list: list[int] | None = None,
        random_seed: int = 42,
    ) -> Mapping[str, datasets.Dataset] | Mapping[int, datasets.Dataset]:
        """Prepare the datasets for finetuning (``{split: Dataset}``) or prompting (``{n_shots: Dataset}``)."""


__all__ = ["DatasetSplit", "EvaluationResult", "PreparationStrategy", "TaskInterface", "TaskType"]
