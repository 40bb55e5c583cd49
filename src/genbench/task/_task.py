"""The :class:`Task` facade: one GenBench task, its data, prompts and evaluation.

The work is done in dedicated modules (``genbench.data`` loads and re-splits, ``genbench.prompting`` builds
prompts, ``genbench.metrics`` scores); this class ties them to a task's config and offers the methods a task
author may override (``format_example``, ``get_datasets_raw``, ``evaluate_predictions``).
"""

from __future__ import annotations

import inspect
import logging
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench._core import features
from genbench._core.errors import GenBenchError, PreparationError, TaskNotFoundError
from genbench._core.vocabulary import DatasetSplit, EvaluationResult, PreparationStrategy, TaskInterface, TaskType
from genbench._registry.directories import get_task_dir
from genbench.config._schema import TaskConfig
from genbench.data import load_data_source, load_split_file, resplit
from genbench.data._columns import apply_field_mapping, with_index_column
from genbench.metrics import evaluate_predictions

__all__ = ["Task"]

if TYPE_CHECKING:
    from collections.abc import Sequence

    from datasets import Dataset
    from typing_extensions import Unpack

    from genbench._core.features import CrossEncoderModel
    from genbench.config._schema import ContaminationCheckConfig
    from genbench.runs._execute import RunOptions, TaskRun
    from genbench.runs.model_runner import ModelRunner

logger = logging.getLogger(__name__)

# Below this many rows a per-example ``format_example`` runs in-process: starting workers costs more.
_PARALLEL_FORMAT_MIN_ROWS = 20_000


class Task(TaskInterface):
    """A GenBench task, configured by its ``config.jsonnet``.

    Args:
        config: The validated config.
        root_task_id: The task's id (for a subtask, the id of its parent TaskDict).
        subtask_id: The subtask's id, or None.
        task_dir: The task's directory (relative data paths and ``split_file`` resolve against it). Default: the
            directory of the module defining the task class, else the registry's directory for the id.

    >>> from genbench import load_task
    >>> from genbench.api import PreparationStrategy
    >>> task = load_task("arithmetic_length")
    >>> prompts = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0])[0]
    >>> prompts[0]["input"].startswith(task.config.prompt_builder.instruction_zero_shot)
    True
    """

    config: TaskConfig

    def __init__(
        self,
        config: TaskConfig,
        root_task_id: str,
        subtask_id: str | None = None,
        task_dir: str | Path | None = None,
    ):
        super().__init__()
        self.config = config
        self.root_task_id = root_task_id
        self.subtask_id = subtask_id
        self._task_dir = Path(task_dir) if task_dir is not None else None
        # Kept from the original framework: tasks and tests set these.
        self.dataset_format_num_proc = 4
        self.dataset_format_batched = False
        self._raw_datasets: dict[str, Dataset] | None = None
        self._label_set: frozenset[str] | None = None

    @classmethod
    def register(cls, _name: str) -> Callable[[type], type]:
        """No-op decorator kept for tasks written with the original framework's ``@Task.register("id")``."""
        warnings.warn("`Task.register` is not needed: tasks are found by directory.", DeprecationWarning, 2)
        return lambda task_class: task_class

    @property
    def task_id(self) -> str:
        """``"id"``, or ``"id:subtask"`` for a subtask."""
        return self.root_task_id if self.subtask_id is None else f"{self.root_task_id}:{self.subtask_id}"

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def description(self) -> str:
        return self.config.description

    @property
    def authors(self) -> list[str]:
        return self.config.authors

    @property
    def keywords(self) -> list[str]:
        return self.config.keywords

    @property
    def task_dir(self) -> Path:
        """The task's directory."""
        if self._task_dir is None:
            self._task_dir = self._find_task_dir()
        return self._task_dir

    def _find_task_dir(self) -> Path:
        if type(self) is not Task:
            try:
                return Path(inspect.getfile(type(self))).resolve().parent
            except (TypeError, OSError):  # a module executed from a spec without registering it in sys.modules
                pass
        try:
            return get_task_dir(self.root_task_id, self.subtask_id)
        except TaskNotFoundError:
            # Not in the registry (a task built in a notebook or test): relative paths resolve against the cwd.
            return Path.cwd()

    # ----------------------------------------------------------------- data
    def _load_data_source(self) -> dict[str, Dataset]:
        """Load the config's data source as ``{split: Dataset}`` (before re-splitting and formatting)."""
        return load_data_source(self.config.data_source, self.task_dir)

    def get_datasets_raw(self) -> dict[str, Dataset]:
        """Load, re-split (``split_file``) and format the data; every example gets a stable ``_genbench_idx``.

        The result is computed once per task object.
        """
        if self._raw_datasets is None:
            data = self._load_data_source()
            if self.config.split_file is not None:
                split_path = self.task_dir / self.config.split_file
                data = resplit(data, load_split_file(split_path, root=self.task_dir), file=str(split_path))
            self._raw_datasets = {split: self._format_split(split, ds) for split, ds in data.items()}
        return dict(self._raw_datasets)

    def label_set(self) -> frozenset[str] | None:
        """A sequence-labeling task's labels: every label of the gold targets of its splits (None for other types).

        Predicted labels outside this set are scored as ``"O"`` and counted (``out_of_set_label_rate`` in results
        files), never as entity types of their own.
        """
        if TaskType(self.config.task_type) is not TaskType.SEQUENCE_LABELING:
            return None
        if getattr(self, "_label_set", None) is None:
            separator = self.config.prompt_builder.sequence_labeling_separator
            labels: set[str] = set()
            for dataset in self.get_datasets_raw().values():
                for row in dataset["target"] if "target" in dataset.column_names else ():
                    row_labels = row.split(separator) if isinstance(row, str) and separator else row
                    labels.update(str(label).strip() for label in row_labels or ())
            self._label_set = frozenset(labels)
        return self._label_set

    def _format_split(self, split: str, dataset: Dataset) -> Dataset:
        if type(self).format_example is Task.format_example:
            formatted = apply_field_mapping(dataset, self.config.field_mapping, self.config.task_type, split=split)
        else:
            num_proc = self.dataset_format_num_proc if len(dataset) >= _PARALLEL_FORMAT_MIN_ROWS else None
            formatted = dataset.map(
                self.format_example,
                num_proc=num_proc,
                batched=self.dataset_format_batched,
                desc=f"Formatting `{split}` examples",
            )
        missing = [c for c in ("input", "target") if c not in formatted.column_names]
        if missing:
            raise PreparationError(
                f"Task {self.task_id!r}, split {split!r}: formatted examples lack {', '.join(missing)} "
                f"(columns: {', '.join(formatted.column_names)}). Map them with `field_mapping` in config.jsonnet "
                "or return them from `format_example`."
            )
        return with_index_column(formatted)

    def format_example(self, example: Mapping[str, Any]) -> Mapping[str, Any]:
        """Map one raw example to the task's fields using ``field_mapping`` (identity without one).

        Override it for custom formatting; it then runs once per example through ``Dataset.map``.
        """
        mapping = self.config.field_mapping
        if mapping is None:
            return {}
        return {field: example[source] for field, source in mapping.items()}

    # ----------------------------------------------------------- preparation
    def get_prepared_datasets(
        self,
        preparation_strategy: PreparationStrategy,
        shot_list: list[int] | None = None,
        random_seed: int = 42,
    ) -> dict[Any, Dataset]:
        """Prepare datasets for finetuning (``{split: Dataset}``) or prompting (``{n_shots: Dataset}``).

        Args:
            preparation_strategy: ``FINETUNING`` or ``PROMPT_BASED_TESTING``.
            shot_list: Prompting only: the numbers of shots, e.g. ``[0, 5]``.
            random_seed: Prompting only: seeds shot selection and choice permutation.

        Raises:
            PreparationError: the task does not support the strategy, or ``shot_list`` is missing.
        """
        strategy = PreparationStrategy(preparation_strategy)
        strategies = self.config.preparation_strategies
        if strategy is PreparationStrategy.FINETUNING:
            if strategies.finetuning is None:
                raise PreparationError(
                    f"Task {self.task_id!r} does not support finetuning "
                    "(preparation_strategies.finetuning is not in its config)."
                )
            return self.get_datasets_raw()
        if strategies.prompt_based_testing is None:
            raise PreparationError(
                f"Task {self.task_id!r} does not support prompt-based testing "
                "(preparation_strategies.prompt_based_testing is not in its config)."
            )
        if shot_list is None:
            raise PreparationError("`shot_list` is required for prompt-based testing, e.g. shot_list=[0, 5].")
        from genbench.prompting import build_prompt_datasets

        custom_formatter = (
            type(self)._format_example_for_in_context_learning is not Task._format_example_for_in_context_learning
        )
        return build_prompt_datasets(
            self.get_datasets_raw(),
            task_type=self.config.task_type,
            prompt_builder=strategies.prompt_based_testing.prompt_builder,
            shot_list=shot_list,
            random_seed=random_seed,
            example_formatter=self._format_example_for_in_context_learning if custom_formatter else None,
        )

    def _format_example_for_in_context_learning(self, example: Mapping[str, Any], random_seed: int) -> dict[str, str]:
        """One example's ``formatted_input`` and ``formatted_target`` (the original framework's hook).

        Tasks written for the original framework override it to customise prompts; when overridden, prompts are
        built by calling it once per example (slower than the default vectorised formatting).
        """
        from genbench.prompting import format_examples

        columns = {key: [value] for key, value in example.items()}
        columns.setdefault("_genbench_idx", [0])
        formatted = format_examples(
            columns,
            task_type=self.config.task_type,
            prompt_builder=self.config.prompt_builder,
            random_seed=random_seed,
        )
        return {"formatted_input": formatted.inputs[0].as_py(), "formatted_target": formatted.targets[0].as_py()}

    # ------------------------------------------------------------ evaluation
    def evaluate_predictions(
        self,
        *,
        predictions: list[Mapping[str, Any]] | None = None,
        gold: Dataset | None = None,
    ) -> EvaluationResult:
        """Score predictions with the config's ``evaluation_metrics``.

        Args:
            predictions: One mapping per gold example with a ``target`` key.
            gold: The gold examples: a prepared dataset (prompt or finetuning) or a raw split.

        Returns:
            Metric values keyed ``hf_{metric id}__{key}``, e.g. ``hf_exact_match__exact_match``.

        Raises:
            PredictionError: predictions do not match the gold set (the message says which one and why).
            MetricError: a metric cannot be loaded or computed.
        """
        if gold is None:
            gold = self.get_datasets_raw()[DatasetSplit.TEST.value]
        labels = None
        if TaskType(self.config.task_type) is TaskType.SEQUENCE_LABELING:
            try:
                labels = self.label_set()
            except GenBenchError:  # the task's data cannot be loaded here: the given gold set's labels are the set
                logger.debug("Task %s: no label set from its data; using the gold set's labels", self.task_id)
        return evaluate_predictions(
            predictions=predictions,
            gold=gold,
            task_type=TaskType(self.config.task_type),
            metrics=self.config.evaluation_metrics,
            prompt_builder=self.config.answer_prompt_builder,
            free_form_output_regex=self.config.free_form_output_regex,
            labels=labels,
        )

    # --------------------------------------------------------- contamination
    def check_contamination(
        self,
        *,
        index_dir: str | Path | None = None,
        checks: Sequence[ContaminationCheckConfig] | None = None,
        progress: bool = False,
    ) -> EvaluationResult:
        """Search the test set in the training datasets of the config's ``contamination_checks``.

        The training datasets must be indexed first (``genbench-cli contamination index --dataset ...``).

        Returns:
            ``contamination__{dataset}__{mode}`` → the test-set contamination score, and
            ``contamination__clean_fraction`` → the share of test instances no check flags.

        Raises:
            ContaminationError: the task declares no checks, or an index is missing.
        """
        return features.contamination_scores()(self, checks, index_dir=index_dir, progress=progress)

    def evaluate_predictions_clean_and_all(
        self,
        *,
        predictions: list[Mapping[str, Any]],
        gold: Dataset,
        index_dir: str | Path | None = None,
        checks: Sequence[ContaminationCheckConfig] | None = None,
    ) -> EvaluationResult:
        """Evaluate on the whole test set and on its clean subset (the instances no contamination check flags).

        Returns:
            The usual metric keys (all instances), the same keys prefixed ``clean.`` (clean subset),
            ``clean.num_examples``, and the contamination scores of :meth:`check_contamination`.
        """
        return features.clean_and_all()(self, predictions=predictions, gold=gold, index_dir=index_dir, checks=checks)

    def evaluate_cross_encoder(
        self,
        model: CrossEncoderModel,
        *,
        batch_size: int = 64,
        show_progress_bar: bool = False,
        at_k: int | None = None,
    ) -> dict[str, float]:
        """Run a ``sentence_transformers.CrossEncoder`` over the test set with ``genbench.reranking``'s evaluators.

        Reranking tasks use ``CrossEncoderRerankingEvaluator`` (options from the ``cross_encoder_reranking``
        metric); tasks with text-pair inputs use the classification or correlation evaluator, as their metric says.

        Args:
            model: A ``CrossEncoder`` (or anything with its ``predict``), or a local path / model id. A local
                sentence-transformers bi-encoder directory is scored by cosine similarity.
            batch_size: Batch size of ``model.predict``.
            show_progress_bar: Show the progress bar of ``model.predict``.
            at_k: Reranking cut-off; default: the metric's ``at_k``.

        Returns:
            The evaluator's results (e.g. ``map``, ``mrr@10``, ``ndcg@10`` and ``base_*``).
        """
        scores = features.cross_encoder_scores()
        return scores(self, model, batch_size=batch_size, show_progress_bar=show_progress_bar, at_k=at_k)

    # ------------------------------------------------------------ model runs
    def run_model(self, model: str | ModelRunner, **options: Unpack[RunOptions]) -> TaskRun:
        """Run a model over this task and score it (see :func:`genbench.runs.run_model_on_task`).

        Args:
            model: A model spec such as ``"hf:gpt2"``, ``"openai:http://localhost:8000/v1"`` or
                ``"python:my_module:predict"``.
            **options: ``shots``, ``seed``, ``limit``, ``model_args``, ``cache_dir``, ``output_dir``, ... (see
                :class:`genbench.runs._execute.RunOptions`).

        Returns:
            The run's :class:`genbench.runs.TaskRun` (results document, per-sample records, output paths).
        """
        return features.model_run()(self, model, **options)

    def _repr_html_(self) -> str:
        """The task's card in Jupyter (see :func:`genbench.display.task_card_html`); it loads no data."""
        return features.task_card()(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(task_id={self.task_id!r}, task_type={self.config.task_type.value!r})"
