"""The typed schema of a task's ``config.jsonnet`` (and of a TaskDict's).

One definition serves validation, attribute access (``config.preparation_strategies.prompt_based_testing
.prompt_builder.input_prefix``), the JSON Schema (``genbench-cli schema``) and the docs' field table.
Fields, defaults and meanings are those of the original GenBench ``TaskConfig``; new fields are optional.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from genbench._core.errors import ConfigProblem, GenbenchConfigWarning, UnknownPluginError
from genbench._core.metric_direction import Direction
from genbench._core.plugins import CONTAMINATION_BACKENDS
from genbench._core.vocabulary import TaskType
from genbench.config._regex_guard import compile_config_regex
from genbench.config._taxonomy_block import TaxonomyConfig
from genbench.config._unknown_fields import compute_kwargs_hint, unknown_field_message

ID_PATTERN = r"^[a-z0-9_]+$"
SHA256_PATTERN = r"^[0-9a-f]{64}$"
SPLIT_NAMES = ("train", "validation", "test")

# Validation context key set by the loader, which has reported the unknown keys already (with file and line).
UNKNOWN_KEYS_REPORTED = "genbench_unknown_keys_reported"

NonEmptyStr = Annotated[StrictStr, Field(min_length=1)]
MetricDirections = dict[NonEmptyStr, Direction]
"""Result keys or glob patterns of keys -> ``'higher'``, ``'lower'`` or ``'zero'`` (closer to zero is better; see
:mod:`genbench._core.metric_direction`)."""
Number = StrictFloat | StrictInt


class _Strict(BaseModel):
    """Base of every config section: unknown keys and type coercions (``"false"`` for a bool) are errors."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=False, use_enum_values=False)


class _KeepsExtras(_Strict):
    """A section whose unknown keys stay on the model (``model_extra``) because code written for the original
    framework may read them; the loader warns about each (the JSON Schema still lists only the known fields)."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"additionalProperties": False})


class DataSourceConfig(_Strict):
    """Where the task's examples come from: a Hugging Face dataset (``hf``) or JSONL files (``manual``)."""

    type: Literal["hf", "manual"] = Field(description="Type of the data source: 'hf' or 'manual'.")
    hf_id: NonEmptyStr | Annotated[list[NonEmptyStr], Field(min_length=1, max_length=2)] | None = Field(
        default=None,
        description="Hugging Face dataset id, e.g. 'snli', or [path, config name], e.g. ['glue', 'cola']. "
        "A local dataset directory also works. Only for type 'hf'.",
    )
    git_commit_sha: NonEmptyStr | None = Field(
        default=None,
        description="Commit of the Hugging Face dataset repository, so the data never changes under the task. "
        "Required for type 'hf'.",
    )
    test: NonEmptyStr | None = Field(
        default=None,
        description="Test set JSONL: an https://, http:// or file:// URI, or a path relative to the task directory. "
        "Required for type 'manual'.",
    )
    validation: NonEmptyStr | None = Field(default=None, description="Validation set JSONL (as `test`).")
    train: NonEmptyStr | None = Field(default=None, description="Train set JSONL (as `test`).")
    sha256: (
        dict[Literal["train", "validation", "test"], Annotated[StrictStr, Field(pattern=SHA256_PATTERN)]] | None
    ) = Field(
        default=None,
        description="Optional SHA-256 (64 lowercase hex digits) per split file of a 'manual' source; "
        "a download that does not match is rejected.",
    )

    def split_uris(self) -> dict[str, str]:
        """The declared split files of a ``manual`` source, in train/validation/test order."""
        return {s: getattr(self, s) for s in SPLIT_NAMES if getattr(self, s) is not None}


class EvaluationMetricConfig(_KeepsExtras):
    """One evaluation metric: a Hugging Face ``evaluate`` id, served by a built-in twin where one exists.

    Unknown keys of an entry (``average: 'macro'``) are kept in ``model_extra`` but not passed to the metric, as in
    the original framework; ``compute_extra_kwargs`` is what reaches its ``compute``. Each is reported with the
    loader's :class:`~genbench._core.errors.GenbenchConfigWarning` (field, problem, fix), also when the entry is
    validated by itself (``EvaluationMetricConfig.model_validate``, ``compute_metric`` with a mapping).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     metric = EvaluationMetricConfig.model_validate({"hf_id": "f1", "average": "macro"})
    >>> metric.model_extra
    {'average': 'macro'}
    >>> print(caught[0].message)
    <config>: average: unknown field, kept on the config, but not used; to pass it to the metric's compute, write \
compute_extra_kwargs: {average: "macro"}
    """

    type: Literal["hf"] = Field(
        default="hf", description="'hf' (the default, may be left out): a Hugging Face `evaluate` metric."
    )
    hf_id: NonEmptyStr | Annotated[list[NonEmptyStr], Field(min_length=1, max_length=2)] = Field(
        description="Metric id, e.g. 'accuracy' or 'exact_match' (built in, no Hub access), or any "
        "`evaluate.load` id; [path, config name] for metrics with configurations."
    )
    git_commit_sha: NonEmptyStr | None = Field(
        default=None, description="Revision of the metric passed to `evaluate.load` (unused by built-in metrics)."
    )
    best_score: Number | None = Field(
        default=None, description="The score of a perfect prediction set, checked by `genbench-cli test-task`."
    )
    compute_extra_kwargs: dict[str, Any] | None = Field(
        default=None,
        description="Extra keyword arguments for the metric's compute, e.g. {average: 'macro'} or "
        "{ignore_case: true}.",
    )

    @model_validator(mode="before")
    @classmethod
    def _warn_unknown_keys(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict) and not (info.context or {}).get(UNKNOWN_KEYS_REPORTED):
            for key in [k for k in data if k not in cls.model_fields]:
                message = unknown_field_message(
                    str(key),
                    cls.model_fields,
                    kept=True,
                    home=FIELD_HOMES.get(str(key)),
                    advice=compute_kwargs_hint(str(key), data[key]),
                )
                warnings.warn(GenbenchConfigWarning.from_problem(None, ConfigProblem(str(key), message)), stacklevel=2)
        return data


class CrossEncoderRerankingMetricConfig(_Strict):
    """MAP, MRR@k and NDCG@k of a reranking task's per-candidate scores (``genbench.reranking``'s metric core)."""

    type: Literal["cross_encoder_reranking"] = Field(description="'cross_encoder_reranking'.")
    at_k: Annotated[StrictInt, Field(ge=1)] = Field(default=10, description="Cut-off of MRR@k and NDCG@k.")
    first_stage_ranking: StrictBool = Field(
        default=False,
        description="The candidates (target_options) are a first-stage ranking, best first: also report its "
        "base_* metrics, as sentence-transformers does for `documents` samples.",
    )
    always_rerank_positives: StrictBool = Field(
        default=True,
        description="With first_stage_ranking: also count the positives missing from the candidates as reranked "
        "(they must then be among target_options), or only the candidates (false).",
    )
    penalize_missing_positives: StrictBool = Field(
        default=False,
        description="With first_stage_ranking: a positive missing from the candidates counts as relevant but "
        "never retrieved (genbench's fix of sentence-transformers' inflated numbers).",
    )
    best_score: Number | None = Field(
        default=None, description="The NDCG@k of perfect scores, checked by `genbench-cli test-task`."
    )


class CrossEncoderClassificationMetricConfig(_Strict):
    """Classification metrics of scores: a float per example (binary, labels 0/1) or logits (multi-class)."""

    type: Literal["cross_encoder_classification"] = Field(description="'cross_encoder_classification'.")
    best_score: Number | None = Field(
        default=None,
        description="The main score (binary: average_precision; multi-class: f1_macro) of perfect scores.",
    )


class CrossEncoderCorrelationMetricConfig(_Strict):
    """Pearson and Spearman correlation of predicted and gold float scores."""

    type: Literal["cross_encoder_correlation"] = Field(description="'cross_encoder_correlation'.")
    best_score: Number | None = Field(default=None, description="The Spearman correlation of perfect scores (1.0).")


CROSS_ENCODER_METRIC_TYPES = ("cross_encoder_reranking", "cross_encoder_classification", "cross_encoder_correlation")


def _metric_type(value: Any) -> str:
    """The discriminator of an ``evaluation_metrics`` entry: its ``type``, 'hf' when left out."""
    kind = value.get("type", "hf") if isinstance(value, dict) else getattr(value, "type", "hf")
    return kind if isinstance(kind, str) else "invalid"


MetricConfig = Annotated[
    Annotated[EvaluationMetricConfig, Tag("hf")]
    | Annotated[CrossEncoderRerankingMetricConfig, Tag("cross_encoder_reranking")]
    | Annotated[CrossEncoderClassificationMetricConfig, Tag("cross_encoder_classification")]
    | Annotated[CrossEncoderCorrelationMetricConfig, Tag("cross_encoder_correlation")],
    Discriminator(
        _metric_type,
        custom_error_type="invalid_metric_type",
        custom_error_message="unknown metric type: expected 'hf' (or no type), 'cross_encoder_reranking', "
        "'cross_encoder_classification' or 'cross_encoder_correlation'",
    ),
]


class ContaminationCheckConfig(_Strict):
    """A contamination check the task declares: is its test set in this training dataset?"""

    train_dataset: NonEmptyStr = Field(
        description="The training dataset as indexed with `genbench-cli contamination index` (name or path)."
    )
    mode: Literal["exact", "ngram", "embedding"] = Field(
        default="ngram", description="How test instances are matched against training units."
    )
    ngram_size: Annotated[StrictInt, Field(ge=1)] | None = Field(
        default=None, description="N-gram mode: the n (default 8)."
    )
    match_threshold: Annotated[Number, Field(ge=0, le=1)] | None = Field(
        default=None,
        description="N-gram and embedding modes: an instance is contaminated when its score is strictly above it "
        "(required for those modes).",
    )
    fields: Annotated[list[NonEmptyStr], Field(min_length=1)] = Field(
        default_factory=lambda: ["input"], description="Test example fields searched (joined per field)."
    )
    model: NonEmptyStr | None = Field(
        default=None, description="Embedding mode: the sentence-transformers model the index was built with."
    )
    backend: NonEmptyStr = Field(
        default="embedded",
        description="Index backend holding the index: `embedded` (files) or `elasticsearch` (server at "
        "`GENBENCH_ES_URL`).",
    )

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, value: str) -> str:
        try:  # the names come from entry points: the schema imports no backend
            CONTAMINATION_BACKENDS.target(value)
        except UnknownPluginError as error:
            raise ValueError(str(error)[0].lower() + str(error)[1:]) from None
        return value

    @property
    def label(self) -> str:
        """``exact``, ``ngram{n}`` or ``embedding``: the mode part of result keys."""
        return f"ngram{self.ngram_size or 8}" if self.mode == "ngram" else self.mode


class FinetuningStrategyConfig(_Strict):
    """Finetune on the train set, evaluate on the test set."""

    objective: Literal["maximum_likelihood"] = Field(description="Finetuning objective.")


class PromptBuilderConfig(_Strict):
    """How prompts are built from examples (BIG-bench style options)."""

    instruction_zero_shot: StrictStr = Field(default="", description="Text before a zero-shot query.")
    instruction_few_shot: StrictStr = Field(default="", description="Text before the shots of a few-shot query.")
    input_prefix: StrictStr = Field(default="Q: ", description="Text before each example's input.")
    output_prefix: StrictStr = Field(default="\nA: ", description="Text after each example's input.")
    append_choices_to_input: StrictBool = Field(
        default=True, description="Multiple choice: list the options after the input."
    )
    choices_prefix: StrictStr = Field(default="\nchoices: \n", description="Text before the list of options.")
    choice_item_postfix: StrictStr = Field(default="\n", description="Text after each option.")
    choice_item_prefix: StrictStr = Field(default="- ", description="Text before each option.")
    sequence_labeling_separator: StrictStr = Field(
        default=",", description="Sequence labeling: separator joining the labels of the target."
    )
    permute_choices: StrictBool = Field(
        default=False, description="Multiple choice: shuffle the listed options per example (seeded)."
    )
    few_shot_example_separator: StrictStr = Field(default="\n\n", description="Text between shots (and the query).")
    stop_string: StrictStr = Field(
        default="\n\n", description="Free form: a prediction is cut at the first occurrence of this string."
    )


class PromptBasedTestingConfig(_Strict):
    """Prepare the model by prompting it, zero- or few-shot."""

    prompt_builder: PromptBuilderConfig = Field(
        default_factory=PromptBuilderConfig, description="Prompt construction options."
    )


class PreparationStrategiesConfig(_Strict):
    """The ways a model can be prepared for the task; at least one is required."""

    finetuning: FinetuningStrategyConfig | None = Field(default=None, description="Finetuning recipe.")
    prompt_based_testing: PromptBasedTestingConfig | None = Field(
        default=None, description="Prompt-based testing recipe."
    )


# The config document reader (genbench.config._documents.load_task_config), behind TaskConfig.from_jsonnet. The reader
# builds TaskConfig objects, so it imports this module; it registers itself here when imported (the package's
# __init__ imports it), instead of this module importing it back.
_document_loader: Callable[..., TaskConfig] | None = None


def register_document_loader(loader: Callable[..., TaskConfig]) -> None:
    """Set the function behind :meth:`TaskConfig.from_jsonnet` (called by :mod:`genbench.config._documents`)."""
    global _document_loader
    _document_loader = loader


class TaskConfig(_Strict):
    """The configuration of one task, read from its ``config.jsonnet``.

    >>> config = TaskConfig.from_jsonnet(jsonnet_str='''{
    ...   name: 'Addition', description: 'Add two numbers.', keywords: ['math'], authors: ['Ada'],
    ...   data_source: {type: 'manual', test: 'test.jsonl'},
    ...   task_type: 'free_form',
    ...   evaluation_metrics: [{hf_id: 'exact_match', best_score: 1.0}],
    ...   preparation_strategies: {prompt_based_testing: {prompt_builder: {instruction_zero_shot: 'Add.\\n'}}},
    ... }''')
    >>> config.task_type
    <TaskType.FREE_FORM: 'free_form'>
    >>> config.preparation_strategies.prompt_based_testing.prompt_builder.input_prefix
    'Q: '
    """

    name: NonEmptyStr = Field(description="Name of the task, e.g. 'Addition'.")
    description: NonEmptyStr = Field(description="A short description of the task.")
    keywords: Annotated[list[NonEmptyStr], Field(min_length=1)] = Field(
        description="Keywords, preferably GenBench taxonomy values."
    )
    authors: Annotated[list[NonEmptyStr], Field(min_length=1)] = Field(description="Authors of the task.")
    data_source: DataSourceConfig = Field(description="Where the examples come from.")
    has_validation_set: StrictBool = Field(default=False, description="Whether the task provides a validation set.")
    has_train_set: StrictBool = Field(default=False, description="Whether the task provides a train set.")
    task_type: Annotated[TaskType, Field(strict=False)] = Field(
        description="'free_form', 'multiple_choice', 'sequence_labeling' or 'reranking'."
    )
    field_mapping: dict[Literal["input", "target", "target_options"], NonEmptyStr] | None = Field(
        default=None,
        description="Data source field for each task field, e.g. {input: 'sentence', target: 'label'}. "
        "Must map 'input' and 'target'; 'target_options' only for multiple choice and reranking.",
    )
    split_file: NonEmptyStr | None = Field(
        default=None,
        description="A jsonnet file in the task directory that re-splits the data by 'split:index' entries.",
    )
    free_form_output_regex: StrictStr | None = Field(
        default=None,
        description="Free form: the first match of this regex in a prediction (after `stop_string`) is scored.",
    )
    evaluation_metrics: list[MetricConfig] | None = Field(
        default=None,
        description="Metrics computed by the default `evaluate_predictions`: {hf_id: ...} entries, or typed "
        "entries {type: 'cross_encoder_reranking' | 'cross_encoder_classification' | 'cross_encoder_correlation'}.",
    )
    preparation_strategies: PreparationStrategiesConfig = Field(
        description="How a model is prepared: finetuning and/or prompt_based_testing."
    )
    contamination_checks: list[ContaminationCheckConfig] | None = Field(
        default=None,
        description="Training datasets to check the test set against (`task.check_contamination()`); results are "
        "keyed contamination__{dataset}__{mode}.",
    )
    taxonomy: TaxonomyConfig | None = Field(
        default=None,
        description="Where the task sits on the GenBench generalisation taxonomy (docs/taxonomy.md): its evaluation "
        "card (`genbench-cli eval-card`) and the leaderboard's groupings.",
    )
    primary_metric: NonEmptyStr | None = Field(
        default=None,
        description="The result key of the task's headline score, e.g. 'hf_exact_match__exact_match' (checked by "
        "`genbench-cli test-task` against the keys the task's evaluation gives); the leaderboard ranks by it.",
    )
    metric_directions: MetricDirections | None = Field(
        default=None,
        description="Which way a metric is better: result keys or glob patterns of keys -> 'higher', 'lower' or "
        "'zero' (closer to zero is better: a signed gap), e.g. {'hf_wer__wer': 'lower'} (each checked by "
        "`genbench-cli test-task` to match a key of the results). The leaderboard uses it before guessing from the "
        "metric's name.",
    )

    @field_validator("free_form_output_regex")
    @classmethod
    def _regex_compiles(cls, value: str | None) -> str | None:
        if value is not None:
            compile_config_regex(value)  # raises ValueError with the reason
        return value

    @property
    def prompt_builder(self) -> PromptBuilderConfig:
        """The prompt builder options (defaults when the task has no prompt-based testing)."""
        pbt = self.preparation_strategies.prompt_based_testing
        return pbt.prompt_builder if pbt is not None else PromptBuilderConfig()

    @property
    def answer_prompt_builder(self) -> PromptBuilderConfig | None:
        """The prompt builder options that apply when answers are read (``stop_string``,
        ``sequence_labeling_separator``); None when the task has no prompt-based testing (answers are read as given).
        """
        pbt = self.preparation_strategies.prompt_based_testing
        return pbt.prompt_builder if pbt is not None else None

    @staticmethod
    def from_jsonnet(jsonnet_str: str | None = None, jsonnet_path: str | os.PathLike[str] | None = None) -> TaskConfig:
        """Read and validate a config from jsonnet text or a file (exactly one of the two).

        Raises:
            ConfigError: every problem of the file at once, each with field path and expected form.
        """
        if _document_loader is None:  # pragma: no cover - genbench.config's __init__ registers it
            raise RuntimeError("genbench.config._documents was not imported")
        return _document_loader(jsonnet_str=jsonnet_str, jsonnet_path=jsonnet_path)

    def to_json(self, path: str | os.PathLike[str]) -> None:
        """Write the validated config as JSON (enums as their values)."""
        from pathlib import Path

        Path(path).write_text(self.model_dump_json(indent=4, exclude_none=True))


class TaskDictConfig(_KeepsExtras):
    """The configuration of a task with subtasks (the ``config.jsonnet`` next to the subtask directories).

    Other keys (task fields such as ``data_source`` given as shared information) are kept in ``model_extra``.
    """

    name: NonEmptyStr = Field(description="Name of the task.")
    description: NonEmptyStr | None = Field(
        default=None, description="Description; defaults to the subtasks' descriptions."
    )
    keywords: list[NonEmptyStr] | None = Field(default=None, description="Keywords; defaults to the subtasks'.")
    authors: list[NonEmptyStr] | None = Field(default=None, description="Authors; defaults to the subtasks'.")
    subtasks_order: list[Annotated[StrictStr, Field(pattern=ID_PATTERN)]] | None = Field(
        default=None, description="Order of the subtasks; default: sorted subdirectory names."
    )
    taxonomy: TaxonomyConfig | None = Field(
        default=None,
        description="The GenBench taxonomy of the task as a whole; each subtask may declare its own "
        "(docs/taxonomy.md).",
    )
    primary_metric: NonEmptyStr | None = Field(
        default=None,
        description="The key of the headline score in the merged results, e.g. the mean over subtasks "
        "'hf_accuracy__accuracy' or a key the TaskDict's own merge_evaluation_results adds.",
    )
    metric_directions: MetricDirections | None = Field(
        default=None,
        description="Which way a metric of the merged results is better: keys or glob patterns of keys -> "
        "'higher', 'lower' or 'zero' (closer to zero is better: a signed gap), e.g. {'negation_gap__*': 'zero'}.",
    )


_SECTIONS: dict[str, type[BaseModel]] = {
    "": TaskConfig,
    "data_source": DataSourceConfig,
    "preparation_strategies": PreparationStrategiesConfig,
    "preparation_strategies.finetuning": FinetuningStrategyConfig,
    "preparation_strategies.prompt_based_testing": PromptBasedTestingConfig,
    "preparation_strategies.prompt_based_testing.prompt_builder": PromptBuilderConfig,
    "taxonomy": TaxonomyConfig,
}
FIELD_HOMES = {name: section for section, model in reversed(list(_SECTIONS.items())) for name in model.model_fields}
"""Where each field of a task config lives (dotted section, ``""`` the top level), to tell an author who put one at
the wrong level where it belongs."""
