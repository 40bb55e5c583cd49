"""The :class:`TaskDict`: a task made of subtasks, with merged evaluation results."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from genbench._core import features
from genbench._core.metric_values import is_finite_number
from genbench._core.vocabulary import EvaluationResult
from genbench.config._schema import TaskDictConfig
from genbench.task._task import Task


class TaskDict(OrderedDict):
    """An ordered mapping ``subtask id -> Task`` (order: ``subtasks_order``, else sorted ids).

    A task's ``__init__.py`` may define a subclass to override :meth:`merge_evaluation_results`.

    >>> from genbench import load_task
    >>> task_dict = load_task("negation_consistency")
    >>> list(task_dict)
    ['affirmative', 'negated']
    """

    _config: dict[str, Any]
    _task_id: str

    @classmethod
    def from_config(cls, subtasks_dict: Mapping[str, Task], config: Mapping[str, Any], task_id: str) -> TaskDict:
        """Build a TaskDict from its subtasks and its (validated) config document."""
        obj = cls(subtasks_dict)
        obj._config = dict(config)
        obj._task_id = task_id
        return obj

    @property
    def config(self) -> TaskDictConfig:
        """The TaskDict's validated config."""
        return TaskDictConfig.model_validate(self._config)

    @property
    def task_id(self) -> str:
        return self._task_id

    @property
    def name(self) -> str:
        return self._config["name"]

    @property
    def keywords(self) -> list[str]:
        """The config's keywords, else the union of the subtasks' keywords in subtask order."""
        return self._config.get("keywords") or self._union("keywords")

    @property
    def authors(self) -> list[str]:
        """The config's authors, else the union of the subtasks' authors in subtask order."""
        return self._config.get("authors") or self._union("authors")

    @property
    def description(self) -> str:
        """The config's description, else the subtasks' descriptions under their names."""
        if self._config.get("description"):
            return self._config["description"]
        return "\n\n".join(f"## {t.name} ({t.subtask_id})\n{t.description}" for t in self._tasks())

    def _tasks(self) -> list[Task]:
        self._check_values_type()
        return list(self.values())

    def _check_values_type(self) -> None:
        """Raise TypeError unless every subtask is a Task (the original's name, called by subclasses)."""
        for sid, task in self.items():
            if not isinstance(task, Task):
                raise TypeError(f"Subtask {sid!r} is a {type(task).__name__}, expected a Task.")

    def _union(self, attribute: str) -> list[str]:
        values: list[str] = []
        for task in self._tasks():
            for value in getattr(task.config, attribute):
                if value not in values:
                    values.append(value)
        return values

    def merge_evaluation_results(self, results: Mapping[str, EvaluationResult]) -> EvaluationResult:
        """Merge subtask results: every key prefixed ``{subtask_id}.``, plus the mean per metric.

        The mean of a metric is stored under its unprefixed key, over the subtasks that report it as a finite
        number (booleans and non-numeric values are not averaged).

        >>> td = TaskDict.from_config({}, {"name": "x"}, "x")
        >>> results = {"a": {"hf_accuracy__accuracy": 1.0}, "b": {"hf_accuracy__accuracy": 0.5}}
        >>> dict(td.merge_evaluation_results(results))
        {'a.hf_accuracy__accuracy': 1.0, 'b.hf_accuracy__accuracy': 0.5, 'hf_accuracy__accuracy': 0.75}
        """
        merged: EvaluationResult = OrderedDict()
        per_metric: dict[str, list[float]] = {}
        for subtask_id, result in results.items():
            for key, value in result.items():
                merged[f"{subtask_id}.{key}"] = value
                if is_finite_number(value):
                    per_metric.setdefault(key, []).append(float(value))
        for key, values in per_metric.items():
            merged[key] = sum(values) / len(values)
        return merged

    def __getattr__(self, name: str) -> Task:
        # Attribute access to subtasks (`task_dict.subtask_1`), as in the original framework.
        if not name.startswith("_") and name in self:
            return self[name]
        raise AttributeError(f"{type(self).__name__} has no attribute or subtask {name!r}")

    def _repr_html_(self) -> str:
        """The card of the task and its subtasks in Jupyter (see :func:`genbench.display.task_dict_card_html`)."""
        return features.task_dict_card()(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(task_id={getattr(self, '_task_id', None)!r}, subtasks={list(self)})"
