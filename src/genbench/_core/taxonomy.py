"""The GenBench generalisation taxonomy: its five axes and their values, as typed task metadata.

A task names one motivation, one generalisation type and one shift source, and one or several shift types and shift
loci; :func:`check_value` and :func:`suggest_from_keywords` help authors fill them in. Sources and the rules:
docs/taxonomy.md.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

SOURCE_CITATION = (
    'D. Hupkes et al., "A taxonomy and review of generalization research in NLP", '
    "Nature Machine Intelligence 5, 1161-1174 (2023)"
)
SOURCE_URL = "https://genbench.org/taxonomy/"
EVAL_CARDS_URL = "https://genbench.org/eval_cards/"


@dataclass(frozen=True)
class Axis:
    """One axis of the taxonomy.

    Attributes:
        name: The field of the ``taxonomy`` block (``shift_locus``).
        title: The axis as the evaluation card heads it (``Shift locus``).
        values: The allowed values, in the card's order (genbench.org's ids).
        labels: Each value's column label on the card (``Task`` for ``across_task``).
        titles: Each value spelt out, for lists and groupings (``Across tasks``).
        several: Whether a task may name several values (a list).
        aliases: Other spellings (normalised with :func:`normalise`) of a value, for did-you-mean messages and for
            recognising values among a task's keywords.
    """

    name: str
    title: str
    values: tuple[str, ...]
    labels: tuple[str, ...]
    titles: tuple[str, ...]
    several: bool
    aliases: dict[str, str] = field(default_factory=dict)

    def label(self, value: str) -> str:
        """The card's column label of a value."""
        return self.labels[self.values.index(value)]

    def value_title(self, value: str) -> str:
        """A value spelt out (``Across tasks``)."""
        return self.titles[self.values.index(value)]


AXES: dict[str, Axis] = {
    axis.name: axis
    for axis in (
        Axis(
            "motivation",
            "Motivation",
            ("practical", "cognitive", "intrinsic", "fairness_inclusivity"),
            ("Practical", "Cognitive", "Intrinsic", "Fairness"),
            ("Practical", "Cognitive", "Intrinsic", "Fairness and inclusivity"),
            several=False,
            aliases={
                "fairness": "fairness_inclusivity",
                "inclusivity": "fairness_inclusivity",
                "fairness_and_inclusivity": "fairness_inclusivity",
            },
        ),
        Axis(
            "generalisation_type",
            "Generalisation type",
            ("compositional", "structural", "across_task", "across_language", "across_domain", "robustness"),
            ("Compositional", "Structural", "Task", "Language", "Domain", "Robustness"),
            ("Compositional", "Structural", "Across tasks", "Across languages", "Across domains", "Robustness"),
            several=False,
            aliases={
                "compositionality": "compositional",
                "systematicity": "compositional",
                "syntactic": "structural",
                "morphological": "structural",
                "cross_task": "across_task",
                "across_tasks": "across_task",
                "task": "across_task",
                "cross_language": "across_language",
                "across_languages": "across_language",
                "cross_lingual": "across_language",
                "crosslingual": "across_language",
                "multilingual": "across_language",
                "multilinguality": "across_language",
                "language": "across_language",
                "cross_domain": "across_domain",
                "across_domains": "across_domain",
                "domain": "across_domain",
                "out_of_domain": "across_domain",
                "domain_shift": "across_domain",
                "robust": "robustness",
            },
        ),  # fmt: skip
        Axis(
            "shift_type",
            "Shift type",
            ("covariate", "label", "full", "assumed"),
            ("Covariate", "Label", "Full", "Assumed"),
            ("Covariate shift", "Label shift", "Full shift", "Assumed shift"),
            several=True,
        ),
        Axis(
            "shift_source",
            "Shift source",
            ("naturally_occurring", "partitioned_natural_data", "generated_shifts", "fully_generated_data"),
            ("Naturally occurring", "Partitioned natural", "Generated shift", "Fully generated"),
            ("Naturally occurring shift", "Partitioned natural data", "Generated shift", "Fully generated data"),
            several=False,
            aliases={
                "natural": "naturally_occurring",
                "natural_shifts": "naturally_occurring",
                "naturally_occuring": "naturally_occurring",
                "partitioned_natural": "partitioned_natural_data",
                "natural_data_splits": "partitioned_natural_data",
                "generated": "generated_shifts",
                "generated_shift": "generated_shifts",
                "fully_generated": "fully_generated_data",
                "synthetic": "fully_generated_data",
            },
        ),  # fmt: skip
        Axis(
            "shift_locus",
            "Shift locus",
            ("train-test", "finetune_train-test", "pretrain-train", "pretrain-test"),
            ("Train–test", "Finetune train–test", "Pretrain–train", "Pretrain–test"),
            ("Train–test", "Finetune train–test", "Pretrain–train", "Pretrain–test"),
            several=True,
            aliases={"finetune_train_test": "finetune_train-test", "finetuning": "finetune_train-test"},
        ),
    )
}
AXIS_NAMES = tuple(AXES)

# Spelt-out suffixes that a keyword or a value may carry ("covariate shift", "train-test locus").
_SUFFIXES = ("_generalisation", "_generalization", "_shifts", "_shift", "_locus", "_motivation", "_data")
# What several values, the review's own categories, mean in the block.
_SEVERAL = {
    ("shift_type", "double"): "a double shift is written as a list of the shift types, e.g. [covariate, label]",
    ("shift_type", "multiple"): "several shifts are written as a list of the shift types, e.g. [covariate, label]",
    ("shift_locus", "multiple"): "several loci are written as a list, e.g. [pretrain-train, finetune_train-test]",
}


def normalise(text: str) -> str:
    """A spelling-insensitive key: lower case, runs of spaces, dashes, dots and underscores as one ``_``.

    >>> normalise("Finetune train–test"), normalise("o.o.d. generalisation")
    ('finetune_train_test', 'o_o_d_generalisation')
    """
    return re.sub(r"[\s_\-–—./]+", "_", text.strip().lower()).strip("_")


def _lookup(axis: Axis, text: str) -> str | None:
    """The value a spelling names on an axis (exact id, alias or a spelt-out form), else None."""
    key = normalise(text)
    candidates = [key] + [key[: -len(s)] for s in _SUFFIXES if key.endswith(s)]
    if key.startswith("across_") or key.startswith("cross_"):
        candidates += [c.replace("_generalisation", "").replace("_generalization", "") for c in candidates]
    by_key = {normalise(value): value for value in axis.values}
    for candidate in candidates:
        if candidate in by_key:
            return by_key[candidate]
        if candidate in axis.aliases:
            return axis.aliases[candidate]
    return None


def check_value(axis_name: str, value: str) -> str | None:
    """What is wrong with a value of an axis, with a did-you-mean; None when it is one of the axis's values.

    >>> check_value("shift_type", "covariate") is None
    True
    >>> check_value("shift_source", "generated shift")
    "unknown shift_source 'generated shift'; did you mean 'generated_shifts'?"
    >>> check_value("motivation", "pratcical")
    "unknown motivation 'pratcical'; did you mean 'practical'?"
    >>> check_value("generalisation_type", "cross-lingual")
    "unknown generalisation_type 'cross-lingual'; did you mean 'across_language'?"
    >>> AXES["shift_locus"].values
    ('train-test', 'finetune_train-test', 'pretrain-train', 'pretrain-test')
    """
    axis = AXES[axis_name]
    if value in axis.values:
        return None
    known = ", ".join(repr(v) for v in axis.values)
    meant = _lookup(axis, value)
    if meant is None:
        for (name, word), advice in _SEVERAL.items():
            if name == axis_name and normalise(value).startswith(word):
                return f"unknown {axis_name} {value!r}: {advice}; the values are {known}"
        close = difflib.get_close_matches(normalise(value), [normalise(v) for v in axis.values], n=1, cutoff=0.6)
        meant = next((v for v in axis.values if close and normalise(v) == close[0]), None)
    hint = f"; did you mean {meant!r}?" if meant is not None else f"; expected one of {known}"
    return f"unknown {axis_name} {value!r}{hint}"


@dataclass(frozen=True)
class Suggestion:
    """A taxonomy value recognised in a task's keywords: ``taxonomy.{field}: {value}`` (from ``keyword``)."""

    field: str
    value: str
    keyword: str


# Keywords that say a task tests generalisation, without naming a value of the taxonomy.
_GENERIC = re.compile(r"^(o_?o_?d|out_of_distribution|generali[sz]ation|distribution_shift)(_generali[sz]ation)?$")


def suggest_from_keywords(keywords: Iterable[str]) -> list[Suggestion]:
    """The taxonomy values a task's keywords name, in keyword order (one per axis and value).

    Keywords are free text: "compositional generalisation", "covariate shift", "train-test locus",
    "Multilinguality" and "cross-lingual" are recognised; "o.o.d. generalisation" names no axis value (see
    :func:`mentions_generalisation`).
    Only a caller that shows the suggestions to the author should use them: nothing is filled in from keywords.

    >>> [(s.field, s.value) for s in suggest_from_keywords(["covariate shift", "train-test locus", "math"])]
    [('shift_type', 'covariate'), ('shift_locus', 'train-test')]
    >>> [(s.field, s.value) for s in suggest_from_keywords(["Multilinguality", "robustness"])]
    [('generalisation_type', 'across_language'), ('generalisation_type', 'robustness')]
    """
    found: list[Suggestion] = []
    for keyword in keywords:
        for axis in AXES.values():
            value = _lookup(axis, keyword)
            # A bare one-word alias such as "task" or "language" is too vague to be taken from a keyword.
            vague = normalise(keyword) in {"task", "language", "domain", "natural"}
            if value is not None and not vague and not any(s.field == axis.name and s.value == value for s in found):
                found.append(Suggestion(axis.name, value, keyword))
    return found


def mentions_generalisation(keywords: Iterable[str]) -> list[str]:
    """The keywords that say the task is about generalisation without naming an axis value (``o.o.d.``).

    >>> mentions_generalisation(["o.o.d. generalisation", "math"])
    ['o.o.d. generalisation']
    """
    return [k for k in keywords if _GENERIC.match(normalise(k))]
