"""The results document as a typed model: what :func:`genbench.evaluate` returns, field by field.

:class:`ResultsDocument` is the pydantic model of a results file (``genbench-cli schema --results``); unknown fields
are errors (``extra="forbid"``) and values are not coerced (the string ``"1"`` is not an integer).
``ResultsDocument.model_validate(document)`` reads a document written by any genbench command; ``model_dump(mode=
"json", exclude_unset=True)`` gives the document back as it was. See docs/running_models.md.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""A SHA-256 digest in lowercase hex."""

Number = float
"""A JSON number (an integer is one too)."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Fingerprint(_Record):
    """What makes two results files of a task comparable: their fingerprints are equal."""

    sha256: Sha256
    config_sha256: Sha256
    data_sha256: dict[str, Sha256]


class Taxonomy(_Record):
    """The task's GenBench taxonomy: every axis a list of values (empty when not declared)."""

    motivation: list[str] = Field(default_factory=list)
    generalisation_type: list[str] = Field(default_factory=list)
    shift_type: list[str] = Field(default_factory=list)
    shift_source: list[str] = Field(default_factory=list)
    shift_locus: list[str] = Field(default_factory=list)


class TaskRecord(_Record):
    """The task a results file is about."""

    id: Annotated[str, StringConstraints(pattern=r"^[a-z0-9_]+(:[a-z0-9_]+)?\z")]
    name: str
    task_type: Literal["free_form", "multiple_choice", "sequence_labeling", "reranking"] | None
    fingerprint: Fingerprint
    keywords: list[str] = Field(default_factory=list)
    subtasks: list[str] | None = None
    taxonomy: Taxonomy | None = None
    primary_metric: Annotated[str, StringConstraints(min_length=1)] | None = None
    metric_directions: dict[str, Literal["higher", "lower", "zero"]] | None = None


class RunIdentity(_Record):
    """What a results file is the result of; ``key`` is a short digest of the other fields."""

    key: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{12}$")]
    model_spec: str
    model_args: dict[str, str]
    model_revision: str | None
    task_id: str
    task_fingerprint: Sha256
    shots: list[Annotated[int, Field(ge=0)] | None]
    seed: int
    limit: Annotated[int, Field(ge=1)] | None
    generation: dict[str, object] | None


class MergedFrom(_Record):
    """A subtask's results file merged into a task's merged document."""

    task_id: str
    results_file: str
    sha256: Sha256


class ModelRecord(_Record):
    """The model (or predictions file, or baseline) that answered."""

    spec: str
    kind: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")]
    revision: str | None
    args: dict[str, str] | None = None
    description: str | None = None


class BootstrapRecord(_Record):
    """How the 95% intervals were resampled."""

    confidence: Annotated[Number, Field(gt=0, lt=1)]
    resamples: Annotated[int, Field(ge=1)]
    statistic_resamples: Annotated[int, Field(ge=1)]
    seed: int


MetricValue = Number | None | list[Number | None] | dict[str, Number | None]
"""A number, a list or mapping of numbers (per-class values), or None (with a reason) when undefined."""


class Metric(_Record):
    """One metric's value and its bootstrap interval."""

    value: MetricValue
    ci: Annotated[list[Number], Field(min_length=2, max_length=2)] | None
    reason: str | None = None
    ci_method: Literal["bootstrap_mean", "bootstrap_statistic", "bootstrap_merged"] | None = None

    @model_validator(mode="after")
    def _null_value_has_reason(self) -> Metric:
        if self.value is None and self.reason is None:
            raise ValueError("a metric whose value is null says why (reason)")
        return self


class CacheRecord(_Record):
    """Answers of an evaluation taken from the request cache (``hits``) and asked of the model (``computed``)."""

    hits: Annotated[int, Field(ge=0)] | None = None
    computed: Annotated[int, Field(ge=0)] | None = None


class Evaluation(_Record):
    """The scores of one setting (number of shots) of a task."""

    shots: Annotated[int, Field(ge=0)] | None
    num_examples: Annotated[int, Field(ge=0)]
    prompt_builder_sha256: str | None
    primary_metric: str | None
    metrics: dict[str, Metric]
    shot_source: str | None = None
    multiple_choice_method: Literal["loglikelihood", "generation"] | None = None
    cache: CacheRecord | None = None
    run_seconds: Annotated[Number, Field(ge=0)] | None = None
    bootstrap_pairing: Literal["paired", "independent"] | None = None


class ResultsDocument(_Record):
    """One model's results on one task (schema version 1), as ``genbench-cli run``, ``evaluate`` and ``demo`` write.

    >>> from genbench.runs.results_model import ResultsDocument
    >>> sorted(ResultsDocument.model_fields)[:4]
    ['bootstrap', 'created', 'evaluations', 'genbench_version']
    """

    schema_version: Literal[1]
    task: TaskRecord
    genbench_version: str
    model: ModelRecord
    preparation_strategy: Literal["prompt_based_testing", "finetuning"]
    seed: int
    bootstrap: BootstrapRecord
    evaluations: Annotated[list[Evaluation], Field(min_length=1)]
    run_seconds: Annotated[Number, Field(ge=0)]
    created: str
    run_identity: RunIdentity | None = None
    merged_from: Annotated[list[MergedFrom], Field(min_length=1)] | None = None
    limit: Annotated[int, Field(ge=1)] | None = None
    samples_file: str | None = None
    samples_sha256: Sha256 | None = None
    samples_count: Annotated[int, Field(ge=0)] | None = None

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
