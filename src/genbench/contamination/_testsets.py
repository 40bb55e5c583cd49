"""Test sets to check for contamination: the tasks of the registry, or any dataset's fields.

A :class:`TestSet` is a name, the names of its fields, and the text of each field for each instance. The tasks of
the registry give their test split's ``input`` (a sequence-labelling input, a list of tokens, is joined with
spaces); a task with subtasks gives one test set per subtask, named ``task:subtask``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from genbench._registry.directories import discover_tasks
from genbench.contamination._errors import ContaminationError
from genbench.contamination._training_data import load_training_dataset

if TYPE_CHECKING:
    from genbench.task._task import Task
    from genbench.task._task_dict import TaskDict

logger = logging.getLogger(__name__)


@dataclass
class TestSet:
    """Instances to look up in the training data.

    Attributes:
        name: How reports name it (a task id, ``task:subtask``, or the dataset's name).
        fields: The field names.
        rows: For each instance, the text of each field (in ``fields`` order).
    """

    __test__ = False  # not a pytest test class despite its name

    name: str
    fields: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.fields = tuple(self.fields)
        if not self.fields:
            raise ContaminationError(f"Test set {self.name!r} has no fields to search.")

    def __len__(self) -> int:
        return len(self.rows)

    @classmethod
    def from_texts(cls, name: str, texts: Iterable[str], field_name: str = "text") -> TestSet:
        """A one-field test set from plain strings.

        >>> test_set = TestSet.from_texts("questions", ["What is 2+2?", "Name a bird."])
        >>> test_set.name, test_set.fields, len(test_set)
        ('questions', ('text',), 2)
        """
        return cls(name, (field_name,), [(str(text),) for text in texts])

    def query(self, row: int) -> dict[str, str]:
        """The fields of one instance as a dict."""
        return dict(zip(self.fields, self.rows[row], strict=True))


def as_text(value: Any) -> str:
    """A field value as text: lists joined with spaces, ``None`` as the empty string.

    >>> as_text(["New", "York"]), as_text(None), as_text(3)
    ('New York', '', '3')
    """
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(as_text(item) for item in value)
    return str(value)


def dataset_test_set(name: str, *, split: str = "test", fields: Sequence[str] = ("input",)) -> TestSet:
    """The ``fields`` of a dataset's ``split`` (a JSONL/Parquet file, a dataset folder, or a cached Hub id).

    Raises:
        ContaminationError: the dataset cannot be loaded or lacks a field.
    """
    loaded = load_training_dataset(name, split)
    columns = loaded.column_names
    missing = [f for f in fields if f not in columns]
    if missing:
        raise ContaminationError(
            f"The test dataset {name!r} (split {split!r}) has no field {missing[0]!r}; its fields are {columns}."
        )
    table = loaded.slice(0, loaded.num_rows)
    return _from_columns(name, [table.column(f).to_pylist() for f in fields], fields)


def _from_dataset(name: str, dataset: Any, fields: Sequence[str]) -> TestSet:
    return _from_columns(name, [list(dataset[f]) for f in fields], fields)


def _from_columns(name: str, columns: list[list[Any]], fields: Sequence[str]) -> TestSet:
    rows = [tuple(as_text(value) for value in values) for values in zip(*columns, strict=True)]
    return TestSet(name, tuple(fields), rows)


def task_test_sets(task_ids: Sequence[str] | None = None) -> list[TestSet]:
    """The test sets of registry tasks (all of them by default): each task's test split, field ``input``.

    Tasks without a test split are skipped with a warning.

    Raises:
        TaskNotFoundError: an id is not in the registry.
    """
    from genbench.task._factory import load_task

    ids = list(task_ids) if task_ids is not None else sorted(discover_tasks())
    return [test_set for task_id in ids for test_set in loaded_task_test_sets(load_task(task_id))]


def loaded_task_test_sets(task: Task | TaskDict) -> list[TestSet]:
    """The test sets of a loaded ``Task`` (one) or ``TaskDict`` (one per subtask, named ``task:subtask``).

    A task without a test split gives none, with a warning.
    """
    from genbench.task._task_dict import TaskDict

    members = (
        [(f"{task.task_id}:{sub_id}", sub) for sub_id, sub in task.items()]
        if isinstance(task, TaskDict)
        else [(task.task_id, task)]
    )
    test_sets = []
    for name, member in members:
        splits = member.get_datasets_raw()
        if "test" not in splits:
            logger.warning("Task %s has no test split; it is not checked for contamination.", name)
            continue
        test_sets.append(_from_dataset(name, splits["test"], ["input"]))
    return test_sets
