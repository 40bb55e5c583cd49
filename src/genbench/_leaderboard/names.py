"""Human names for metric keys and taxonomy axes (the raw key stays on hover and in ``leaderboard.json``).

How a key is read: :func:`parse_metric_key`; examples of the names: docs/leaderboard.md.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from genbench._core.metric_direction import Direction, declared_direction
from genbench._core.taxonomy import AXES as AXES_OF_TAXONOMY

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
SOURCES = {
    "cross_encoder_reranking": "reranked",
    "cross_encoder_classification": "",
    "cross_encoder_correlation": "",
}
"""Metric sources other than ``hf_<library>`` -> the note they add ("" for none)."""
QUALIFIERS = {("cross_encoder_reranking", "base"): "first-stage ranking"}
"""(source, qualifier) -> a note that replaces the source's (the base order is not reranked)."""
ENTITY_SOURCES = {"hf_seqeval"}
"""Sources whose middle parts are entity classes (``hf_seqeval__LOC__f1``: "F1, LOC entities")."""
LENGTH_NORMALISED = "length_normalised"
MERGES = {"negation_gap": "Negation gap"}
"""Prefixes a TaskDict's merge adds (``negation_gap__<key>``) -> their name; others are named from their words."""
DIFFERENCE_WORDS = ("gap", "difference", "delta", "drop", "change")
WORDS = {"out_of_set": "out-of-set"}
PROPER_NAMES = ("Spearman", "Pearson")
AXES = {
    "motivation": "Motivation",
    "generalisation_type": "Generalisation type",
    "shift_type": "Shift type",
    "shift_source": "Shift source",
    "shift_locus": "Shift locus",
}
LOWER_IS_BETTER = re.compile(
    r"(^|[_.])(gap|loss|error|perplexity|distance|ter|wer|cer)(@\d+)?($|[_.])"
    # the answer-checking rates (runs/_scoring.py's OUT_OF_SET_METRICS): how many answers were outside what the task
    # allows; a bare "rate" says nothing (a success rate is better high)
    r"|(^|[_.])(out_of_set|unmatched)_[a-z_]*rate($|[_.])"
)
DIRECTION_PHRASES: dict[str, str] = {
    "higher": "higher is better",
    "lower": "lower is better",
    "zero": "|x| lower is better (closer to zero)",
}
DIRECTION_MARKS: dict[str, str] = {"higher": "", "lower": "↓", "zero": "|x|↓"}


@dataclass
class MetricKey:
    """A result key taken apart (see :func:`parse_metric_key`)."""

    subtasks: list[str] = field(default_factory=list)
    merges: list[str] = field(default_factory=list)
    """Merge prefixes, outermost first."""
    length_normalised: bool = False
    source: str = ""
    middle: list[str] = field(default_factory=list)
    qualifier: str = ""
    measure: str = ""


def words(raw: str) -> str:
    """``out_of_set_answer_rate`` -> ``out-of-set answer rate``: underscores to spaces, known phrases hyphenated."""
    text = f"_{raw}_"
    for phrase, written in WORDS.items():
        text = text.replace(f"_{phrase}_", f"_{written}_")
    return text[1:-1].replace("_", " ")


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def in_sentence(label: str) -> str:
    """A label as it reads after other words: ``Accuracy`` -> ``accuracy``; ``F1``, ``nDCG``, ``Spearman ρ`` stay."""
    if len(label) > 1 and label[0].isupper() and label[1].islower() and not label.startswith(PROPER_NAMES):
        return label[0].lower() + label[1:]
    return label


def measure_name(name: str) -> str:
    """``ndcg@10`` -> ``nDCG@10``; ``exact_match`` -> ``Exact match``; ``out_of_set_answer_rate`` ->
    ``Out-of-set answer rate``."""
    base, at, cutoff = name.partition("@")
    label = MEASURES.get(base.lower(), capitalised(words(base)))
    return label + (f"@{cutoff}" if at else "")


def _is_source(head: str) -> bool:
    return head.startswith("hf_") or head in SOURCES


def _is_merge(head: str, tail: str) -> bool:
    """Whether ``head__tail`` is a merged metric over the key ``tail`` rather than a key of the source ``head``."""
    if head in MERGES:
        return True
    if _is_source(head):
        return False
    return "__" in tail or "." in tail or head.rsplit("_", 1)[-1] in DIFFERENCE_WORDS


def parse_metric_key(key: str) -> MetricKey:
    """Take a result key apart.

    A key is ``<source>__<name>`` (``hf_seqeval__overall_f1``, ``cross_encoder_reranking__ndcg@10``), with seqeval's
    per-entity keys one part longer (``hf_seqeval__LOC__f1``) and the answer-checking rates bare
    (``out_of_set_answer_rate``). Prefixes qualify it: a subtask of a merged TaskDict result (``affirmative.``), the
    length-normalised scoring of multiple choice (``length_normalised.``) and a TaskDict's own merged metrics
    (``negation_gap__``), in any nesting. The name's last word is the measure (F1, accuracy, nDCG@10); words before it
    qualify it (``overall``); the source is named only when the measure does not say it.

    >>> parsed = parse_metric_key("negation_gap__length_normalised.hf_f1__f1")
    >>> parsed.merges, parsed.length_normalised, parsed.source, parsed.measure
    (['negation_gap'], True, 'hf_f1', 'f1')
    >>> parse_metric_key("affirmative.out_of_set_answer_rate").subtasks
    ['affirmative']
    """
    parsed = MetricKey()
    rest = key
    while True:
        head, dot, tail = rest.partition(".")
        if dot and head and tail and "__" not in head:
            if head == LENGTH_NORMALISED:
                parsed.length_normalised = True
            else:
                parsed.subtasks.append(head)
            rest = tail
            continue
        head, sep, tail = rest.partition("__")
        if sep and head and tail and _is_merge(head, tail):
            parsed.merges.append(head)
            rest = tail
            continue
        break
    parts = rest.split("__")
    if len(parts) > 1:
        parsed.source, parsed.middle, name = parts[0], parts[1:-1], parts[-1]
    else:
        name = parts[0]
    base = name.partition("@")[0]
    parsed.measure = name
    for known in sorted(MEASURES, key=len, reverse=True):
        if base.lower() == known or base.lower().endswith("_" + known):
            cut = len(base) - len(known)
            parsed.qualifier, parsed.measure = name[:cut].rstrip("_"), name[cut:]
            break
    return parsed


def metric_label(key: str) -> str:
    """A metric key as a reader would name it.

    >>> metric_label("hf_accuracy__accuracy"), metric_label("affirmative.hf_accuracy__accuracy")
    ('Accuracy', 'Accuracy, affirmative subtask')
    >>> metric_label("length_normalised.hf_accuracy__accuracy")
    'Accuracy (length-normalised)'
    >>> metric_label("negation_gap__hf_accuracy__accuracy")
    'Negation gap in accuracy'
    >>> metric_label("hf_seqeval__LOC__f1"), metric_label("hf_seqeval__overall_f1")
    ('F1, LOC entities', 'Overall F1')
    >>> metric_label("cross_encoder_reranking__ndcg@10"), metric_label("cross_encoder_reranking__base_map")
    ('nDCG@10 (reranked)', 'MAP (first-stage ranking)')
    >>> metric_label("negated.out_of_set_answer_rate")
    'Out-of-set answer rate, negated subtask'
    """
    parsed = parse_metric_key(key)
    label = measure_name(parsed.measure)
    notes = []
    qualifier_note = QUALIFIERS.get((parsed.source, parsed.qualifier))
    if qualifier_note is not None:
        notes.append(qualifier_note)
    elif parsed.qualifier:
        label = f"{capitalised(words(parsed.qualifier))} {in_sentence(label)}"
    if parsed.source.startswith("hf_"):
        library = parsed.source[3:]
        same = library.lower() == parsed.measure.partition("@")[0].lower()
        if not same and parsed.source not in ENTITY_SOURCES:
            notes.append(words(library))
    elif qualifier_note is None and parsed.source:
        notes.append(SOURCES.get(parsed.source, words(parsed.source)))
    if parsed.length_normalised:
        notes.append("length-normalised")
    notes = [note for note in notes if note]
    if notes:
        label += f" ({', '.join(notes)})"
    for merge in reversed(parsed.merges):
        name = MERGES.get(merge) or capitalised(words(merge))
        joint = "in" if merge.rsplit("_", 1)[-1] in DIFFERENCE_WORDS else "of"
        label = f"{name} {joint} {in_sentence(label)}"
    entities = parsed.source in ENTITY_SOURCES
    details = [f"{part} entities" if entities else words(part) for part in parsed.middle]
    details += [f"{words(subtask)} subtask" for subtask in reversed(parsed.subtasks)]
    return ", ".join([label, *details])


def axis_label(axis: str) -> str:
    """``shift_locus`` -> ``Shift locus``."""
    return AXES.get(axis, axis.replace("_", " ").capitalize())


def shots_label(shots: int | None) -> str:
    """``3`` -> ``'3-shot'``; ``None`` (evaluated without prompts) -> ``'unprompted'``."""
    return "unprompted" if shots is None else f"{shots}-shot"


def lower_is_better(key: str) -> bool:
    """Whether a smaller value of the metric is better (a gap, a loss, an error rate), guessed from its name: the
    fallback of :func:`metric_direction` for a task that does not declare the metric's direction.

    >>> lower_is_better("negation_gap__hf_accuracy__accuracy"), lower_is_better("hf_accuracy__accuracy")
    (True, False)
    >>> lower_is_better("affirmative.out_of_set_answer_rate"), lower_is_better("success_rate")
    (True, False)
    """
    return bool(LOWER_IS_BETTER.search(key.lower()))


DECLARED = "declared by the task"
BY_NAME = "guessed from its name"


def metric_direction(key: str, declared: Mapping[str, str] | None = None) -> tuple[Direction, str]:
    """``(which way it is better, where that comes from)``: the task's own ``metric_directions`` first
    (:data:`DECLARED`), else the name rule of :func:`lower_is_better` (:data:`BY_NAME`), which never says
    ``"zero"``.

    >>> metric_direction("negation_gap__hf_accuracy__accuracy", {"negation_gap__*": "zero"})
    ('zero', 'declared by the task')
    >>> metric_direction("error_detection__f1", {"error_detection__*": "higher"})
    ('higher', 'declared by the task')
    >>> metric_direction("hf_wer__wer")
    ('lower', 'guessed from its name')
    """
    direction = declared_direction(key, declared)
    if direction is not None:
        return direction, DECLARED
    return ("lower" if lower_is_better(key) else "higher"), BY_NAME


def direction_note(key: str, declared: Mapping[str, str] | None = None) -> str:
    """``lower is better (declared by the task)``, ``|x| lower is better (closer to zero) (declared by the task)``,
    ``higher is better (guessed from its name)``, ..."""
    direction, source = metric_direction(key, declared)
    return f"{DIRECTION_PHRASES[direction]} ({source})"


def taxonomy_value_label(axis: str, value: str) -> str:
    """A taxonomy value as the taxonomy spells it out (``across_domain`` -> ``Across domains``); a value the
    taxonomy does not have (results written before values were checked) stays as written.

    >>> taxonomy_value_label("generalisation_type", "across_domain"), taxonomy_value_label("shift_locus", "x-y")
    ('Across domains', 'x-y')
    """
    known = AXES_OF_TAXONOMY.get(axis)
    return known.value_title(value) if known is not None and value in known.values else value


SEPARATORS = "/:"
"""Where a model's name may be cut: between path parts and after its kind (``hf:``)."""


def short_model_labels(labels: Iterable[str], limit: int = 18) -> dict[str, str]:
    """Each label shortened for a narrow column, keeping what tells it apart from the others: the start the labels
    share becomes ``…`` (cut at a ``/``; a shared kind such as ``hf:`` is dropped); when that is still longer than
    ``limit``, a window of ``limit`` characters from just before the first character that differs. A label alone
    keeps its kind and its last path part. Labels that would still look the same keep their full name.

    >>> short_model_labels(["hf:/models/tiny-gpt2-a", "hf:/models/tiny-gpt2-b"])
    {'hf:/models/tiny-gpt2-a': '…/tiny-gpt2-a', 'hf:/models/tiny-gpt2-b': '…/tiny-gpt2-b'}
    >>> short_model_labels(["hf:/m/tiny-gpt2-finetuned-a", "hf:/m/tiny-gpt2-finetuned-b"])
    {'hf:/m/tiny-gpt2-finetuned-a': '…-gpt2-finetuned-a', 'hf:/m/tiny-gpt2-finetuned-b': '…-gpt2-finetuned-b'}
    >>> short_model_labels(["hf:/m/organisation/run-1/checkpoint-final", "hf:/m/organisation/run-2/checkpoint-final"])
    {'hf:/m/organisation/run-1/checkpoint-final': '…/run-1/checkpoin…', \
'hf:/m/organisation/run-2/checkpoint-final': '…/run-2/checkpoin…'}
    >>> short_model_labels(["hf:/tmp/lb/before/tiny-gpt2"]), short_model_labels(["hf:gpt2", "hf:/m/org/ckpt-final9"])
    ({'hf:/tmp/lb/before/tiny-gpt2': 'hf:…/tiny-gpt2'}, {'hf:gpt2': 'gpt2', 'hf:/m/org/ckpt-final9': '…/ckpt-final9'})
    """
    labels = list(dict.fromkeys(labels))
    if len(labels) == 1:
        (label,) = labels
        kind, colon, rest = label.partition(":")
        head, slash, last = rest.rpartition("/")
        short = f"{kind}:…/{last}" if colon and slash and head and len(label) > limit else label
        return {label: middle_ellipsis(short, limit)}
    common = os.path.commonprefix(labels)
    cut = common.rfind("/") if "/" in common else common.find(":") + 1

    def window(label: str) -> str:
        """``limit`` characters from a few before the first difference: the part that tells the labels apart."""
        start = max(cut, min(len(common) - limit // 3, len(label) - (limit - 1)))
        rest = label[start:]
        return "…" + rest if len(rest) <= limit - 1 else "…" + rest[: limit - 2] + "…"

    texts = {label: ("…" if cut > 0 and label[cut] == "/" else "") + label[cut:] for label in labels}
    # Where they differ from the start, the end (a path's last part) says most; else the window at the difference.
    differ_early = len(common) - cut < limit // 3
    shorts = {
        label: text if len(text) <= limit else middle_ellipsis(text, limit) if differ_early else window(label)
        for label, text in texts.items()
    }
    seen = Counter(shorts.values())
    shorts = {label: text if seen[text] == 1 else window(label) for label, text in shorts.items()}
    seen = Counter(shorts.values())
    return {label: text if seen[text] == 1 else label for label, text in shorts.items()}


def middle_ellipsis(name: str, limit: int = 22) -> str:
    """A name that fits ``limit`` characters: ``…/`` and its last path part when that fits, else its start and end
    around an ellipsis.

    >>> middle_ellipsis("python:/a/very/long/path/to/predictors.py:shortest_option", 30)
    'python:/a/….py:shortest_option'
    >>> middle_ellipsis("/models/organisation/a-long-name/checkpoint-final", 20)
    '…/checkpoint-final'
    """
    if len(name) <= limit:
        return name
    last = name.rpartition("/")[2]
    if "/" in name and len(last) + 2 <= limit:
        return "…/" + last
    return name[: limit // 3] + "…" + name[-(limit - limit // 3 - 1) :]
