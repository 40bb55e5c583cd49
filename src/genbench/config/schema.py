"""The typed schema of a task's ``config.jsonnet`` (and of a TaskDict's).

One definition serves validation, attribute access (``config.preparation_strategies.prompt_based_testing
.prompt_builder.input_prefix``), the JSON Schema (``genbench-cli schema``) and the docs' field table.
Fields, defaults and meanings are those of the original GenBench ``TaskConfig``; new fields are optional.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, field_validator

from genbench.api import TaskType

ID_PATTERN = r"^[a-z0-9_]+$"
SHA256_PATTERN = r"^[0-9a-f]{64}$"
SPLIT_NAMES = ("train", "validation", "test")

NonEmptyStr = Annotated[StrictStr, Field(min_length=1)]
Number = StrictFloat | StrictInt


class _Strict(BaseModel):
    """Base of every config section: unknown keys and type coercions (``"false"`` for a bool) are errors."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=False, use_enum_values=False)


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


class EvaluationMetricConfig(_Strict):
    """One evaluation metric: a Hugging Face ``evaluate`` id, served by a built-in twin where one exists."""

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


# The original framework's spelling of the class name.
PromptBaseTestingConfig = PromptBasedTestingConfig


class PreparationStrategiesConfig(_Strict):
    """The ways a model can be prepared for the task; at least one is required."""

    finetuning: FinetuningStrategyConfig | None = Field(default=None, description="Finetuning recipe.")
    prompt_based_testing: PromptBasedTestingConfig | None = Field(
        default=None, description="Prompt-based testing recipe."
    )


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
        description="'free_form', 'multiple_choice' or 'sequence_labeling'."
    )
    field_mapping: dict[Literal["input", "target", "target_options"], NonEmptyStr] | None = Field(
        default=None,
        description="Data source field for each task field, e.g. {input: 'sentence', target: 'label'}. "
        "Must map 'input' and 'target'; 'target_options' only for multiple choice.",
    )
    split_file: NonEmptyStr | None = Field(
        default=None,
        description="A jsonnet file in the task directory that re-splits the data by 'split:index' entries.",
    )
    free_form_output_regex: StrictStr | None = Field(
        default=None,
        description="Free form: the first match of this regex in a prediction (after `stop_string`) is scored.",
    )
    evaluation_metrics: list[EvaluationMetricConfig] | None = Field(
        default=None, description="Metrics computed by the default `evaluate_predictions`."
    )
    preparation_strategies: PreparationStrategiesConfig = Field(
        description="How a model is prepared: finetuning and/or prompt_based_testing."
    )

    @field_validator("free_form_output_regex")
    @classmethod
    def _regex_compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from None
        return value

    @property
    def prompt_builder(self) -> PromptBuilderConfig:
        """The prompt builder options (defaults when the task has no prompt-based testing)."""
        pbt = self.preparation_strategies.prompt_based_testing
        return pbt.prompt_builder if pbt is not None else PromptBuilderConfig()

    @staticmethod
    def from_jsonnet(jsonnet_str: str | None = None, jsonnet_path: Any = None) -> TaskConfig:
        """Read and validate a config from jsonnet text or a file (exactly one of the two).

        Raises:
            ConfigError: every problem of the file at once, each with field path and expected form.
        """
        from genbench.config.loading import load_task_config

        return load_task_config(jsonnet_str=jsonnet_str, jsonnet_path=jsonnet_path)

    def to_json(self, path: Any) -> None:
        """Write the validated config as JSON (enums as their values)."""
        from pathlib import Path

        Path(path).write_text(self.model_dump_json(indent=4, exclude_none=True))


class TaskDictConfig(_Strict):
    """The configuration of a task with subtasks (the ``config.jsonnet`` next to the subtask directories)."""

    name: NonEmptyStr = Field(description="Name of the task.")
    description: NonEmptyStr | None = Field(
        default=None, description="Description; defaults to the subtasks' descriptions."
    )
    keywords: list[NonEmptyStr] | None = Field(default=None, description="Keywords; defaults to the subtasks'.")
    authors: list[NonEmptyStr] | None = Field(default=None, description="Authors; defaults to the subtasks'.")
    subtasks_order: list[Annotated[StrictStr, Field(pattern=ID_PATTERN)]] | None = Field(
        default=None, description="Order of the subtasks; default: sorted subdirectory names."
    )
