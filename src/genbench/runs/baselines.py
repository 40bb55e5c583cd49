"""Simple, deterministic baseline predictors, one per task type: the floor any model should beat.

Each is fitted on a pool of gold examples (:func:`training_pool`), never reads the example's gold target, and
ignores the prompt. What each predicts: docs/getting_started.md#what-make-demo-does.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from genbench._core.vocabulary import TaskType

if TYPE_CHECKING:
    from datasets import Dataset

    from genbench.task import Task

OUTSIDE_LABEL = "O"


def _raw_input(example: Mapping[str, Any]) -> Any:
    """The example's input before prompt formatting (prompt datasets keep it as ``original_input``)."""
    return example["original_input"] if "original_input" in example else example["input"]


def _raw_target(example: Mapping[str, Any]) -> Any:
    """The example's gold target before prompt formatting (prompt datasets keep it as ``original_target``)."""
    return example["original_target"] if "original_target" in example else example["target"]


def _gold_option_index(example: Mapping[str, Any]) -> int | None:
    """The index of the correct option of a pool example (its target may be an index or the option text)."""
    options = list(example.get("target_options") or [])
    target = _raw_target(example)
    if isinstance(target, bool):
        return None
    if isinstance(target, int):
        return target if 0 <= target < len(options) else None
    if isinstance(target, str) and target in options:
        return options.index(target)
    return None


class MajorityOptionBaseline:
    """Multiple choice: the option most often correct in the pool, else the most often correct position.

    >>> from datasets import Dataset
    >>> pool = Dataset.from_dict({"input": ["a", "b", "c"], "target": [1, 1, 0], "target_options": [["x", "y"]] * 3})
    >>> MajorityOptionBaseline(pool).predict_one(["y", "x", "z"])
    'y'
    """

    name = "majority_option"
    description = (
        "the option most often correct in the training pool; else the most often correct position; "
        "else the first option"
    )

    def __init__(self, pool: Iterable[Mapping[str, Any]] | None):
        self.text_counts: Counter[str] = Counter()
        self.index_counts: Counter[int] = Counter()
        for example in pool or ():
            index = _gold_option_index(example)
            if index is not None:
                self.text_counts[str(example["target_options"][index])] += 1
                self.index_counts[index] += 1
        # Ties between positions go to the smaller index, so the choice never depends on the pool's order.
        self.majority_index = min(self.index_counts, key=lambda i: (-self.index_counts[i], i), default=0)

    def predict_one(self, options: Sequence[str]) -> str:
        if not options:
            raise ValueError("A multiple-choice example has no options.")
        counts = [self.text_counts.get(str(option), 0) for option in options]
        best = max(counts)
        if best > 0:
            return options[counts.index(best)]
        return options[self.majority_index] if self.majority_index < len(options) else options[0]

    def predict(self, dataset: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [{"target": self.predict_one(list(example["target_options"]))} for example in dataset]


class MostFrequentTargetBaseline:
    """Free form: the pool's most frequent target, or the input's last token when there is no pool.

    >>> MostFrequentTargetBaseline(None).predict_one("12 + 30")
    '30'
    """

    name = "most_frequent_target"
    description = "the most frequent target of the training pool; with no pool, the input's last token"

    def __init__(self, pool: Iterable[Mapping[str, Any]] | None):
        counts = Counter(str(_raw_target(example)) for example in pool or ())
        # Counter.most_common keeps first-seen order among equal counts: deterministic for a fixed pool.
        self.majority_target = counts.most_common(1)[0][0] if counts else None

    def predict_one(self, raw_input: Any) -> str:
        if self.majority_target is not None:
            return self.majority_target
        tokens = str(raw_input).split()
        return tokens[-1] if tokens else ""

    def predict(self, dataset: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [{"target": self.predict_one(_raw_input(example))} for example in dataset]


class TokenMajorityLabelBaseline:
    """Sequence labeling: each token's most frequent label in the pool, ``"O"`` for unseen tokens."""

    name = "token_majority_label"
    description = "each token's most frequent label in the training pool; 'O' for unseen tokens"

    def __init__(self, pool: Iterable[Mapping[str, Any]] | None):
        counts: defaultdict[str, Counter[str]] = defaultdict(Counter)
        for example in pool or ():
            tokens = _raw_input(example)
            labels = _raw_target(example)
            if isinstance(tokens, str) or isinstance(labels, str):
                continue  # not a token/label list: nothing to learn from
            for token, label in zip(tokens, labels, strict=False):
                counts[str(token)][str(label)] += 1
        self.label_of = {token: c.most_common(1)[0][0] for token, c in counts.items()}

    def predict_one(self, tokens: Sequence[str]) -> list[str]:
        return [self.label_of.get(str(token), OUTSIDE_LABEL) for token in tokens]

    def predict(self, dataset: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        predictions = []
        for example in dataset:
            tokens = _raw_input(example)
            if isinstance(tokens, str):
                tokens = tokens.split()
            predictions.append({"target": self.predict_one(tokens)})
        return predictions


class BaseOrderBaseline:
    """Reranking: keep the candidates' given (first-stage) order, ``score = -rank``."""

    name = "base_order"
    description = "the candidates' given order: the i-th of target_options scores -i"

    def __init__(self, pool: Iterable[Mapping[str, Any]] | None):
        del pool  # the order needs no training data

    def predict_one(self, options: Sequence[str]) -> list[float]:
        return [-float(rank) for rank in range(len(options))]

    def predict(self, dataset: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [{"target": self.predict_one(list(example["target_options"]))} for example in dataset]


Baseline = MajorityOptionBaseline | MostFrequentTargetBaseline | TokenMajorityLabelBaseline | BaseOrderBaseline
BASELINES: dict[TaskType, type[Baseline]] = {
    TaskType.MULTIPLE_CHOICE: MajorityOptionBaseline,
    TaskType.FREE_FORM: MostFrequentTargetBaseline,
    TaskType.SEQUENCE_LABELING: TokenMajorityLabelBaseline,
    TaskType.RERANKING: BaseOrderBaseline,
}


def training_pool(task: Task) -> Dataset | None:
    """The gold examples a baseline may learn from: the task's train split, else validation, else None."""
    raw = task.get_datasets_raw()
    for split in ("train", "validation"):
        if split in raw and len(raw[split]) > 0:
            return raw[split]
    return None


def baseline_for(task: Task, pool: Iterable[Mapping[str, Any]] | None = None) -> Baseline:
    """The baseline for the task's type, fitted on ``pool``."""
    return BASELINES[TaskType(task.config.task_type)](pool)


def predict(
    task: Task, prepared_dataset: Iterable[Mapping[str, Any]], pool_dataset: Iterable[Mapping[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Baseline predictions for every example of a prepared (prompt or finetuning) or raw dataset.

    Args:
        task: The task (its type picks the baseline).
        prepared_dataset: The examples to predict.
        pool_dataset: Gold examples to learn from, e.g. :func:`training_pool`; None for no pool.

    Returns:
        One ``{"target": prediction}`` per example, ready for ``task.evaluate_predictions``: an option text
        (multiple choice), a string (free form), a list of labels (sequence labeling) or one score per candidate
        (reranking).
    """
    return baseline_for(task, pool_dataset).predict(prepared_dataset)
