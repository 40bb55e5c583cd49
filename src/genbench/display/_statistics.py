"""Data statistics of a task for the task viewer: lengths, label distributions and train/test n-gram overlap.

Tokens and n-grams are the contamination checks' own (``genbench.contamination._analysis``), so an overlap shown
here means what it means there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from genbench.contamination._analysis import ngrams, tokenize


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence):
        return " ".join(_text(v) for v in value)
    return str(value)


def lengths_in_tokens(values: Iterable[Any]) -> list[int]:
    """The number of tokens of each value (lists, e.g. of words or labels, are joined by spaces).

    >>> lengths_in_tokens(["Q: 1 + 2", ["New", "York"]])
    [3, 2]
    """
    return [len(tokenize(_text(value))) for value in values]


def label_counts(examples: Iterable[Mapping[str, Any]], task_type: str) -> Counter[str]:
    """How often each gold answer occurs: the gold option's text (multiple choice), each label (sequence labeling),
    the target (free form); reranking tasks have no labels (empty).

    >>> label_counts([{"target": 1, "target_options": ["no", "yes"]}, {"target": 0, "target_options": ["no", "yes"]}],
    ...              "multiple_choice")
    Counter({'yes': 1, 'no': 1})
    """
    counts: Counter[str] = Counter()
    for example in examples:
        target = example["target"]
        if task_type == "multiple_choice":
            options = example.get("target_options")
            counts[str(options[target]) if options and isinstance(target, int) else str(target)] += 1
        elif task_type == "sequence_labeling":
            counts.update(str(label) for label in target)
        elif task_type == "free_form":
            counts[_text(target)] += 1
    return counts


def ngram_overlap(train_texts: Iterable[Any], test_texts: Iterable[Any], n: int) -> float:
    """Among the test texts long enough to have a token n-gram, the share with an n-gram also in the train texts
    (0.0 when none is long enough).

    >>> ngram_overlap(["the cat sat", "a dog"], ["the cat ran", "birds fly", "x"], 2)
    0.5
    """
    seen = {gram for text in train_texts for gram in ngrams(tokenize(_text(text)), n)}
    test_grams = [set(ngrams(tokenize(_text(text)), n)) for text in test_texts]
    with_grams = [grams for grams in test_grams if grams]
    if not with_grams:
        return 0.0
    return sum(1 for grams in with_grams if grams & seen) / len(with_grams)
