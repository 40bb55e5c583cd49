"""The results document as a typed model: what :func:`genbench.evaluate` returns, field by field.

:class:`ResultsDocument` is the pydantic model of a results file, from which the shipped JSON Schema is generated
(:mod:`genbench.runs._results_schema`). Unknown fields are errors, values are not coerced, and a field that may be
left out is not thereby nullable. ``model_dump(mode="json", exclude_unset=True)`` gives a document back as it was
read. See docs/running_models.md#results-files.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    StringConstraints,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

OMITTABLE = "x-genbench-omittable"
"""Marks a field that may be left out but is not nullable (its Python default is None: "absent")."""


def omittable(description: str | None = None) -> Any:
    """A field that may be left out, never ``null`` (the model refuses ``null``; the schema does not allow it)."""
    return Field(default=None, description=description, json_schema_extra={OMITTABLE: True})


Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""A SHA-256 digest in lowercase hex."""

Number = float
"""A JSON number (an integer is one too)."""


def _integral(value: Any) -> Any:
    return int(value) if type(value) is float and value.is_integer() else value


SchemaInteger = Annotated[int, BeforeValidator(_integral)]
"""An integer as JSON Schema counts one: ``3.0`` is one too (every validator of the shipped schema accepts it),
``true`` and ``3.5`` are not (results files and per-sample lines may come from other tools)."""
# The bound comes before the validator, so that the schema keeps "minimum" (after it, pydantic writes "ge").
NonNegativeInteger = Annotated[int, Field(ge=0), BeforeValidator(_integral)]
PositiveInteger = Annotated[int, Field(ge=1), BeforeValidator(_integral)]

NOT_NULL = "null is not allowed here: leave the field out"


def _unique(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise ValueError("a value is listed twice")
    return values


TaxonomyValues = Annotated[list[str], AfterValidator(_unique), Field(json_schema_extra={"uniqueItems": True})]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _omitted_is_not_null(cls, value: Any, info: ValidationInfo) -> Any:
        extra = cls.model_fields[info.field_name].json_schema_extra if info.field_name else None
        if value is None and isinstance(extra, dict) and extra.get(OMITTABLE):
            raise ValueError(NOT_NULL)
        return value


class Fingerprint(_Record):
    """Two results files of the same task are comparable when their fingerprints are equal."""

    sha256: Sha256 = Field(description="sha256 of the canonical JSON of config_sha256 and data_sha256")
    config_sha256: Sha256 = Field(description="sha256 of the canonical JSON of the validated config")
    data_sha256: dict[str, Sha256] = Field(
        description="split -> sha256 of its formatted examples as canonical JSON lines"
    )


class Taxonomy(_Record):
    """The task's GenBench taxonomy (config taxonomy block), every axis a list of values (empty when not declared)."""

    motivation: TaxonomyValues | None = omittable()
    generalisation_type: TaxonomyValues | None = omittable()
    shift_type: TaxonomyValues | None = omittable()
    shift_source: TaxonomyValues | None = omittable()
    shift_locus: TaxonomyValues | None = omittable()


class TaskRecord(_Record):
    """The task a results file is about."""

    id: str = Field(
        pattern=r"^[a-z0-9_]+(:[a-z0-9_]+)?$",
        description="'task' or 'task:subtask'",
        json_schema_extra={"not": {"pattern": "[\\u0000-\\u001f\\u007f]"}},  # `$` of Python's re: before a newline
    )
    name: str
    task_type: Literal["free_form", "multiple_choice", "sequence_labeling", "reranking"] | None = Field(
        description="null for a task with subtasks"
    )
    keywords: list[str] | None = omittable()
    subtasks: list[str] | None = omittable("a task with subtasks: the ids of the subtasks merged here")
    taxonomy: Taxonomy | None = omittable()
    primary_metric: Annotated[str, StringConstraints(min_length=1)] | None = omittable(
        "the result key of the task's headline score (config primary_metric)"
    )
    metric_directions: dict[str, Literal["higher", "lower", "zero"]] | None = omittable(
        "result keys or glob patterns of keys -> which way the metric is better (config metric_directions)"
    )
    fingerprint: Fingerprint


class ChatRecord(_Record):
    """How a run's prompts became conversations (:mod:`genbench.runs._chat`)."""

    template: str | None = Field(
        description="'default' (the tokenizer's or server's own), a named template of the tokenizer or a template "
        "file's path; null: none (a system instruction only)"
    )
    template_sha256: Sha256 | None = Field(
        description="sha256 of the template's text; null without a template or where the server applies its own"
    )
    system_instruction: str | None
    fewshot_as_multiturn: bool = Field(description="shots as user/assistant turns (true) or in the one user turn")


class CleanSubsetDefinition(_Record):
    """What makes an example contained in a run with shift reports: the corpus index and the threshold."""

    corpus: str = Field(description="the corpus's name")
    index_sha256: Sha256 = Field(description="the checksum of the corpus's index")
    threshold: Number = Field(ge=0, le=1, description="the n-gram hit share from which an example is contained")
    threshold_ngram: PositiveInteger = Field(description="the n of that hit share")


class RunIdentity(_Record):
    """What this file is the result of; key is a short digest of the other fields. Files written before run
    identities lack it."""

    key: str = Field(pattern=r"^[0-9a-f]{12}$")
    model_spec: str
    model_args: dict[str, str]
    model_revision: str | None
    task_id: str
    task_fingerprint: Sha256
    shots: list[NonNegativeInteger | None]
    seed: SchemaInteger
    limit: PositiveInteger | None
    generation: dict[str, Any] | None = Field(
        description="generation settings of a model run (max_new_tokens, decoding); null for predictions and baselines"
    )
    chat: ChatRecord | None = omittable(
        "how prompts became conversations (run --apply-chat-template, --system-instruction, --fewshot-as-multiturn); "
        "absent for plain prompts"
    )
    clean_subset: CleanSubsetDefinition | None = omittable(
        "run with shift reports (run --shift-report): the corpus index and threshold its clean subsets leave out "
        "examples by; absent otherwise"
    )


class MergedFrom(_Record):
    """A subtask's results file merged into the result of its task."""

    task_id: str
    results_file: str
    sha256: Sha256 = Field(description="sha256 of the subtask's results file as written")


class ModelRecord(_Record):
    """The model (or predictions file, or baseline) that answered."""

    spec: str = Field(description="e.g. hf:gpt2, openai:http://localhost:8000/v1, baseline:majority_option, "
                      "predictions:FILE")  # fmt: skip
    kind: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$",
        description="the spec's kind: hf, openai, cross-encoder, sentence-transformers, python, baseline, "
        "predictions, or one an installed package adds (entry points of the group genbench.model_runners)",
    )
    args: dict[str, str] | None = omittable()
    revision: str | None = Field(description="hub commit, sha256 of a local model directory, or null when unknown")
    description: str | None = omittable()


class BootstrapRecord(_Record):
    """How the 95% intervals were resampled."""

    confidence: Number = Field(gt=0, lt=1)
    resamples: PositiveInteger = Field(description="for metrics that are the mean of their per-sample scores")
    statistic_resamples: PositiveInteger = Field(description="for other metrics, recomputed on each resample")
    seed: SchemaInteger


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _metric_value(value: Any) -> Any:
    """One check, one message, for the four forms of a metric value (pydantic's union would report each form's)."""
    if value is None or _is_number(value):
        return value
    if isinstance(value, list) and all(v is None or _is_number(v) for v in value):
        return value
    if isinstance(value, dict) and all(isinstance(k, str) and (v is None or _is_number(v)) for k, v in value.items()):
        return value
    raise ValueError(f"{value!r} is not a number, a list or object of numbers (or nulls), nor null")


_NUMBER_OR_NULL = {"type": ["number", "null"]}
MetricValue = Annotated[
    Number | list[Number | None] | dict[str, Number | None] | None,
    PlainValidator(_metric_value),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "number"},
                {"type": "array", "items": _NUMBER_OR_NULL},
                {"type": "object", "additionalProperties": _NUMBER_OR_NULL},
                {"type": "null"},
            ]
        }
    ),
]
"""A number, a list or mapping of numbers (per-class values), or None (with a reason) when undefined."""


class Metric(_Record):
    """One metric's value and its bootstrap interval."""

    model_config = ConfigDict(
        json_schema_extra={"if": {"properties": {"value": {"type": "null"}}}, "then": {"required": ["reason"]}}
    )

    value: MetricValue = Field(
        description="a number, or a list/object of numbers for per-class values, or null (with a reason) when "
        "undefined"
    )
    reason: str | None = omittable("why the value is null")
    ci: Annotated[list[Number], Field(min_length=2, max_length=2)] | None = Field(
        description="[low, high] bootstrap interval"
    )
    ci_method: Literal["bootstrap_mean", "bootstrap_statistic", "bootstrap_merged"] | None = Field(
        default=None,
        description="bootstrap_merged: the merge re-applied to each joint resample of the subtasks' examples",
    )

    @model_validator(mode="after")
    def _null_value_has_reason(self) -> Metric:
        if self.value is None and self.reason is None:
            raise ValueError("a metric whose value is null says why: 'reason' is required")
        return self


class CacheRecord(_Record):
    """Answers of an evaluation taken from the request cache (hits) and asked of the model (computed)."""

    hits: NonNegativeInteger | None = omittable()
    computed: NonNegativeInteger | None = omittable()


class CleanSubset(_Record):
    """The scores of one setting on the examples a shift report does not flag as contained in its corpus."""

    num_examples: NonNegativeInteger = Field(description="examples scored: all of the setting's, less those excluded")
    excluded: NonNegativeInteger = Field(description="examples the report flags as contained in its corpus")
    primary_metric: str | None
    metrics: dict[str, Metric]


class ShiftReportRecord(_Record):
    """The shift report whose flagged examples the clean subsets leave out (genbench-cli shift measure)."""

    file: str = Field(description="the report's file name")
    sha256: Sha256 = Field(description="sha256 of the report file's bytes")
    corpus: str = Field(description="the corpus's name")
    index_sha256: Sha256 = Field(description="the checksum of the corpus's index")
    threshold: Number = Field(ge=0, le=1, description="the n-gram hit share from which an example is contained")
    threshold_ngram: PositiveInteger = Field(description="the n of that hit share")


class Evaluation(_Record):
    """The scores of one setting (number of shots) of a task."""

    shots: NonNegativeInteger | None = Field(description="null: evaluated on the finetuning test split, unprompted")
    num_examples: NonNegativeInteger
    prompt_builder_sha256: str | None = Field(
        description="sha256 of the prompt builder options and prompt-builder version; null without prompts"
    )
    shot_source: str | None = Field(
        default=None, description="where the shots came from (the prompt dataset's description)"
    )
    multiple_choice_method: Literal["loglikelihood", "generation"] | None = Field(
        default=None, description="how multiple-choice answers were chosen"
    )
    primary_metric: str | None
    metrics: dict[str, Metric]
    cache: CacheRecord | None = omittable()
    run_seconds: Annotated[Number, Field(ge=0)] | None = omittable()
    bootstrap_pairing: Literal["paired", "independent"] | None = omittable(
        "merged documents: whether the subtasks were resampled with the same example indices (they hold the same "
        "_genbench_idx values) or each on its own"
    )
    clean: CleanSubset | None = omittable(
        "run with a shift report: the scores on the examples it does not flag as contained in its corpus"
    )


class Sample(BaseModel):
    """One line of a per-sample log (more fields allowed: a task's own)."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)

    shots: SchemaInteger | None
    genbench_idx: SchemaInteger = Field(alias="_genbench_idx")
    prompt: str | None
    raw_output: Any
    prediction: Any
    prediction_length_normalised: Any = omittable()
    target: Any
    metrics: dict[str, Number | None]
    contained: bool | None = omittable(
        "run with a shift report: whether the report flags this example as contained in its corpus (the clean "
        "subset is the examples with false)"
    )

    @field_validator("contained", mode="before")
    @classmethod
    def _contained_is_not_null(cls, value: Any) -> Any:
        # Only this field: `_Record`'s check of every field would cost a call per field of every line of a log.
        if value is None:
            raise ValueError(NOT_NULL)
        return value


class ResultsDocument(_Record):
    """One model's results on one task (schema_version 1). Written by `genbench-cli run`, `evaluate` and `demo`.
    Per-sample logs, when written, are the JSONL file named by samples_file, next to this file, one `sample` object
    per line. A task with subtasks has a merged document (task.subtasks, merged_from) next to its subtasks' files.

    >>> from genbench.runs._results_model import ResultsDocument
    >>> sorted(ResultsDocument.model_fields)[:4]
    ['bootstrap', 'created', 'evaluations', 'genbench_version']
    """

    schema_version: Literal[1]
    task: TaskRecord
    run_identity: RunIdentity | None = omittable()
    merged_from: Annotated[list[MergedFrom], Field(min_length=1)] | None = omittable(
        "a task with subtasks: the subtasks' results files merged here (names relative to this file's folder)"
    )
    genbench_version: str
    model: ModelRecord
    preparation_strategy: Literal["prompt_based_testing", "finetuning"]
    seed: SchemaInteger = Field(description="seeds shot selection, choice permutation and the bootstrap")
    limit: PositiveInteger | None = Field(default=None, description="only the first N test examples were run")
    bootstrap: BootstrapRecord
    evaluations: list[Evaluation] = Field(min_length=1)
    samples_file: str | None = Field(
        default=None, description="file name of the per-sample JSONL log, next to this file"
    )
    samples_sha256: Sha256 | None = Field(
        default=None, description="sha256 of the per-sample log's bytes, checked when the results are read"
    )
    samples_count: NonNegativeInteger | None = Field(default=None, description="number of rows of the per-sample log")
    run_seconds: Number = Field(ge=0)
    created: str = Field(description="UTC time, ISO 8601")
    shift_report: ShiftReportRecord | None = omittable(
        "run with a shift report: the report the evaluations' clean subsets are measured against"
    )

    def evaluation(self, shots: int | None = 0) -> Evaluation:
        """The evaluation of ``shots`` few-shot examples (None: the unprompted one).

        Raises:
            KeyError: no evaluation of that many shots.
        """
        for evaluation in self.evaluations:
            if evaluation.shots == shots:
                return evaluation
        raise KeyError(f"{self.task.id}: no {shots}-shot evaluation (has {[e.shots for e in self.evaluations]})")

    def score(self, shots: int | None = 0) -> Metric | None:
        """The headline metric of an evaluation (its ``primary_metric``), or None when it has none."""
        evaluation = self.evaluation(shots)
        key = evaluation.primary_metric
        return evaluation.metrics.get(key) if key is not None else None
