"""The ``taxonomy`` block of a task's config: where the task sits on the GenBench taxonomy's five axes.

The axes and their values are defined once, in :mod:`genbench._core.taxonomy` (with their source); this module makes
them a typed config section, so that the JSON Schema lists the values for editor completion and a wrong value is an
error with a did-you-mean.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from genbench._core.taxonomy import AXES, AXIS_NAMES, EVAL_CARDS_URL, check_value

# Literal types built from the one list of values (mypy cannot follow a Literal of a runtime tuple).
Motivation = Literal[AXES["motivation"].values]  # type: ignore[valid-type]
GeneralisationType = Literal[AXES["generalisation_type"].values]  # type: ignore[valid-type]
ShiftType = Literal[AXES["shift_type"].values]  # type: ignore[valid-type]
ShiftSource = Literal[AXES["shift_source"].values]  # type: ignore[valid-type]
ShiftLocus = Literal[AXES["shift_locus"].values]  # type: ignore[valid-type]


def _several(kind: Any) -> Any:
    return kind | Annotated[list[kind], Field(min_length=1)] | None


def _describe(name: str, text: str) -> str:
    axis = AXES[name]
    several = " One value, or a list of several." if axis.several else ""
    return f"{text}{several}"


class TaxonomyConfig(BaseModel):
    """Where the task sits on the GenBench generalisation taxonomy (genbench.org/taxonomy); shown on its
    evaluation card and used to group leaderboard scores. Every axis is optional; name at least one."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"minProperties": 1})

    motivation: Motivation | None = Field(  # type: ignore[valid-type]
        default=None,
        description=_describe(
            "motivation",
            "Why generalisation is tested: to apply or improve models (practical), to learn about humans "
            "(cognitive), to understand the models themselves (intrinsic), or for models that generalise fairly "
            "(fairness_inclusivity).",
        ),
    )
    generalisation_type: GeneralisationType | None = Field(  # type: ignore[valid-type]
        default=None,
        description=_describe(
            "generalisation_type",
            "What the model must generalise: compose known parts into new meanings (compositional), to new "
            "syntactic or morphological structures (structural), to another task, language or domain, or to other "
            "input distributions of the same task (robustness).",
        ),
    )
    shift_type: _several(ShiftType) = Field(  # type: ignore[valid-type]
        default=None,
        description=_describe(
            "shift_type",
            "Which distribution differs between the data: the inputs (covariate), the outputs given the inputs "
            "(label), both (full), or a shift assumed but not checked (assumed).",
        ),
    )
    shift_source: ShiftSource | None = Field(  # type: ignore[valid-type]
        default=None,
        description=_describe(
            "shift_source",
            "How the shift arises: naturally different corpora (naturally_occurring), natural data split along "
            "an unnatural dimension (partitioned_natural_data), natural training data and generated test data or "
            "the reverse (generated_shifts), or data generated throughout (fully_generated_data).",
        ),
    )
    shift_locus: _several(ShiftLocus) = Field(  # type: ignore[valid-type]
        default=None,
        description=_describe(
            "shift_locus",
            "Between which stages of the modelling pipeline the shift lies: training and test data (train-test), "
            "finetuning and test data of a pretrained model (finetune_train-test), pretraining and training data "
            "(pretrain-train), or pretraining and test data of a model not finetuned (pretrain-test).",
        ),
    )

    @field_validator(*AXIS_NAMES, mode="before")
    @classmethod
    def _known_values(cls, value: Any, info: Any) -> Any:
        name = info.field_name
        axis = AXES[name]
        if value is None:
            return value
        if isinstance(value, list):
            if not axis.several:
                raise ValueError(
                    f"takes one value (the review behind the taxonomy records one {name} per experiment); "
                    "a task testing several is several experiments: make them subtasks, each with its own taxonomy"
                )
            if len(set(map(str, value))) != len(value):
                raise ValueError("lists a value twice")
            items = value
        else:
            items = [value]
        found = [
            check_value(name, item) if isinstance(item, str) else f"expected a string, got {item!r}" for item in items
        ]
        problems = [p for p in found if p]
        if problems:
            raise ValueError("; ".join(problems) + f" (the values: {EVAL_CARDS_URL})")
        return value

    @model_validator(mode="after")
    def _names_one_axis(self) -> TaxonomyConfig:
        if all(getattr(self, axis) is None for axis in AXIS_NAMES):
            raise ValueError(f"names no axis: give at least one of {', '.join(AXIS_NAMES)}, or leave the block out")
        return self

    def values(self, axis: str) -> list[str]:
        """The axis's values as a list (empty when the axis is not given)."""
        value = getattr(self, axis)
        if value is None:
            return []
        return list(value) if isinstance(value, list) else [value]

    def as_lists(self) -> dict[str, list[str]]:
        """Every axis as a list of values (``[]`` when not given), in the taxonomy's order: the form results files
        and the leaderboard read.

        >>> values = {"generalisation_type": "compositional", "shift_locus": "train-test"}
        >>> block = TaxonomyConfig.model_validate(values)
        >>> block.as_lists()["shift_locus"], block.as_lists()["motivation"]
        (['train-test'], [])
        """
        return {axis: self.values(axis) for axis in AXIS_NAMES}
