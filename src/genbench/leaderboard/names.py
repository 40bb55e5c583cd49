"""Human names for metric keys and taxonomy axes (the raw key stays on hover and in ``leaderboard.json``).

A metric key is ``<source>__<name>`` (``hf_seqeval__overall_f1``, ``cross_encoder_reranking__ndcg@10``), possibly
prefixed (``length_normalised.``, ``negation_gap__``). The name's last word is the measure (F1, accuracy, nDCG@10);
words before it qualify it (``overall``, an entity class); the source says where it comes from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from genbench.core.metric_direction import declared_direction

MEASURES = {
    "f1": "F1",
    "accuracy": "Accuracy",
    "precision": "Precision",
    "recall": "Recall",
    "exact_match": "Exact match",
    "map": "MAP",
    "mrr": "MRR",
    "ndcg": "nDCG",
    "spearman": "Spearman ρ",
    "pearson": "Pearson r",
    "matthews_correlation": "MCC",
    "bleu": "BLEU",
    "rouge": "ROUGE",
}
SOURCES = {"hf": "", "cross_encoder_reranking": "cross-encoder reranking"}
PREFIXES = {"length_normalised.": "length-normalised", "negation_gap__": "negation gap"}
AXES = {
    "motivation": "Motivation",
    "generalisation_type": "Generalisation type",
    "shift_type": "Shift type",
    "shift_source": "Shift source",
    "shift_locus": "Shift locus",
}
LOWER_IS_BETTER = re.compile(r"(^|[_.])(gap|loss|error|perplexity|distance|ter|wer|cer)(@\d+)?($|[_.])")


def measure_name(name: str) -> str:
    """``ndcg@10`` -> ``nDCG@10``; ``exact_match`` -> ``Exact match``; unknown words keep their spelling."""
    base, at, cutoff = name.partition("@")
    label = MEASURES.get(base.lower(), base.replace("_", " "))
    return label + (f"@{cutoff}" if at else "")


def metric_label(key: str) -> str:
    """A metric key as a reader would name it.

    >>> metric_label("hf_seqeval__overall_f1")
    'F1 (seqeval, overall)'
    >>> metric_label("hf_accuracy__accuracy")
    'Accuracy'
    >>> metric_label("cross_encoder_reranking__ndcg@10")
    'nDCG@10 (cross-encoder reranking)'
    >>> metric_label("negation_gap__hf_accuracy__accuracy")
    'Accuracy (negation gap)'
    >>> metric_label("hf_seqeval__PER__f1")
    'F1 (seqeval, PER)'
    """
    notes: list[str] = []
    for prefix, note in PREFIXES.items():
        if key.startswith(prefix):
            key = key[len(prefix) :]
            notes.append(note)
    parts = key.split("__")
    source, middle, name = (parts[0], parts[1:-1], parts[-1]) if len(parts) > 1 else ("", [], parts[0])
    base = name.partition("@")[0]
    measure, qualifier = name, ""
    for known in sorted(MEASURES, key=len, reverse=True):
        if base.lower() == known or base.lower().endswith("_" + known):
            cut = len(base) - len(known)
            qualifier, measure = name[:cut].rstrip("_"), name[cut:]
            break
    if source.startswith("hf_"):
        library = source[3:]
        source_note = "" if library.lower() == measure.partition("@")[0].lower() else library
    else:
        source_note = SOURCES.get(source, source)
    described = [source_note, *middle, qualifier]
    notes = [part.replace("_", " ") for part in described if part] + notes
    label = measure_name(measure)
    return f"{label} ({', '.join(notes)})" if notes else label


def axis_label(axis: str) -> str:
    """``shift_locus`` -> ``Shift locus``."""
    return AXES.get(axis, axis.replace("_", " ").capitalize())


def lower_is_better(key: str) -> bool:
    """Whether a smaller value of the metric is better (a gap, a loss, an error rate), guessed from its name: the
    fallback of :func:`metric_direction` for a task that does not declare the metric's direction.

    >>> lower_is_better("negation_gap__hf_accuracy__accuracy"), lower_is_better("hf_accuracy__accuracy")
    (True, False)
    """
    return bool(LOWER_IS_BETTER.search(key.lower()))


DECLARED = "declared by the task"
BY_NAME = "guessed from its name"


def metric_direction(key: str, declared: Mapping[str, str] | None = None) -> tuple[bool, str]:
    """``(lower is better, where that comes from)``: the task's own ``metric_directions`` first (:data:`DECLARED`),
    else the name rule of :func:`lower_is_better` (:data:`BY_NAME`).

    >>> metric_direction("negation_gap__hf_accuracy__accuracy", {"negation_gap__*": "lower"})
    (True, 'declared by the task')
    >>> metric_direction("error_detection__f1", {"error_detection__*": "higher"})
    (False, 'declared by the task')
    >>> metric_direction("hf_wer__wer")
    (True, 'guessed from its name')
    """
    direction = declared_direction(key, declared)
    if direction is not None:
        return direction == "lower", DECLARED
    return lower_is_better(key), BY_NAME


def direction_note(key: str, declared: Mapping[str, str] | None = None) -> str:
    """``lower is better (declared by the task)``, ``higher is better (guessed from its name)``, ..."""
    lower, source = metric_direction(key, declared)
    return f"{'lower' if lower else 'higher'} is better ({source})"
