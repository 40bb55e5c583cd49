"""The features behind :class:`~genbench.Task`'s methods, as typed slots: contamination checks, cross-encoder
evaluation, model runs and notebook cards.

``genbench.task`` imports none of the packages above it; each method calls its slot here, which the package root
fills on first use with the feature's own function, imported then (so ``import genbench`` stays light). Third-party
plug-ins use the entry-point groups of :mod:`genbench._core.plugins`. See docs/architecture.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from genbench._core.errors import GenBenchError

if TYPE_CHECKING:
    from datasets import Dataset
    from typing_extensions import Unpack

    from genbench._core.vocabulary import EvaluationResult
    from genbench.config._schema import ContaminationCheckConfig
    from genbench.runs._execute import RunOptions, TaskRun
    from genbench.runs.model_runner import ModelRunner
    from genbench.task._task import Task
    from genbench.task._task_dict import TaskDict


class PairScorer(Protocol):
    """A model that scores (query, passage) pairs, as ``sentence_transformers.CrossEncoder`` does."""

    def predict(self, sentences: list[list[str]], /, *args: Any, **kwargs: Any) -> Any: ...


CrossEncoderModel = str | os.PathLike[str] | PairScorer
"""A cross-encoder: loaded, or a local path / model id to load."""


class ContaminationScores(Protocol):
    def __call__(
        self,
        task: Task,
        checks: Sequence[ContaminationCheckConfig] | None = None,
        *,
        index_dir: str | Path | None = None,
        progress: bool = False,
    ) -> EvaluationResult: ...


class CleanAndAllEvaluation(Protocol):
    def __call__(
        self,
        task: Task,
        *,
        predictions: list[Mapping[str, Any]],
        gold: Dataset,
        index_dir: str | Path | None = None,
        checks: Sequence[ContaminationCheckConfig] | None = None,
    ) -> EvaluationResult: ...


class CrossEncoderScores(Protocol):
    def __call__(
        self,
        task: Task,
        model: CrossEncoderModel,
        *,
        batch_size: int = 64,
        show_progress_bar: bool = False,
        at_k: int | None = None,
    ) -> dict[str, float]: ...


class ModelRun(Protocol):
    def __call__(self, task: Task, model: str | ModelRunner, **options: Unpack[RunOptions]) -> TaskRun: ...


class TaskCard(Protocol):
    def __call__(self, task: Task) -> str: ...


class TaskDictCard(Protocol):
    def __call__(self, task_dict: TaskDict) -> str: ...


@dataclass
class TaskFeatures:
    """The slots, each None until filled (by :data:`loader`, on first use)."""

    contamination_scores: ContaminationScores | None = None
    clean_and_all: CleanAndAllEvaluation | None = None
    cross_encoder_scores: CrossEncoderScores | None = None
    model_run: ModelRun | None = None
    task_card: TaskCard | None = None
    task_dict_card: TaskDictCard | None = None


FEATURES = TaskFeatures()
FeatureT = TypeVar("FeatureT")
FeatureLoader = Callable[[TaskFeatures, str], None]
_loader: list[FeatureLoader] = []


def set_loader(loader: FeatureLoader) -> None:
    """Set what fills an empty slot: ``loader(FEATURES, slot_name)`` (the package root's, at ``import genbench``)."""
    _loader[:] = [loader]


def _filled(name: str, slot: Callable[[], FeatureT | None]) -> FeatureT:
    """The function in slot ``name``, filled by the loader if it is empty."""
    if slot() is None and _loader:
        _loader[0](FEATURES, name)
    function = slot()
    if function is None:
        raise GenBenchError(f"genbench's {name.replace('_', ' ')} feature is not installed; reinstall genbench.")
    return function


def contamination_scores() -> ContaminationScores:
    """``Task.check_contamination``'s feature
    (:func:`genbench.contamination._task_checks.task_contamination_scores`)."""
    return _filled("contamination_scores", lambda: FEATURES.contamination_scores)


def clean_and_all() -> CleanAndAllEvaluation:
    """``Task.evaluate_predictions_clean_and_all``'s feature
    (:func:`genbench.contamination._task_checks.evaluate_task_clean_and_all`)."""
    return _filled("clean_and_all", lambda: FEATURES.clean_and_all)


def cross_encoder_scores() -> CrossEncoderScores:
    """``Task.evaluate_cross_encoder``'s feature
    (:func:`genbench.reranking._task_evaluation.task_cross_encoder_scores`)."""
    return _filled("cross_encoder_scores", lambda: FEATURES.cross_encoder_scores)


def model_run() -> ModelRun:
    """``Task.run_model``'s feature (:func:`genbench.runs._execute.run_model_on_task`)."""
    return _filled("model_run", lambda: FEATURES.model_run)


def task_card() -> TaskCard:
    """``Task._repr_html_``'s feature (:func:`genbench.display._card.task_card_html`)."""
    return _filled("task_card", lambda: FEATURES.task_card)


def task_dict_card() -> TaskDictCard:
    """``TaskDict._repr_html_``'s feature (:func:`genbench.display._card.task_dict_card_html`)."""
    return _filled("task_dict_card", lambda: FEATURES.task_dict_card)
