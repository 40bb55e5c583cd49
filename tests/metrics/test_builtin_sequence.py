"""seqeval built-in against the seqeval library, and evaluate's key layout."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from seqeval.scheme import IOB2

from genbench._core.errors import MetricError
from genbench.metrics._builtin.sequence import seqeval

REFS = [["O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
PREDS = [["O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
TAGS = ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]


def _random_sentences(seed: int, count: int = 30) -> tuple[list[list[str]], list[list[str]]]:
    rng = np.random.default_rng(seed)
    refs, preds = [], []
    for _ in range(count):
        length = int(rng.integers(1, 12))
        refs.append(rng.choice(TAGS, size=length).tolist())
        pred = list(refs[-1])
        for position in rng.choice(length, size=int(rng.integers(0, length + 1)), replace=False):
            pred[position] = str(rng.choice(TAGS))
        preds.append(pred)
    return preds, refs


def test_metric_card_example():
    result = seqeval(PREDS, REFS)
    assert list(result) == ["MISC", "PER", "overall_precision", "overall_recall", "overall_f1", "overall_accuracy"]
    assert result["overall_f1"] == 0.5
    assert result["PER"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "number": 1}
    assert result["MISC"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "number": 1}
    assert result["overall_accuracy"] == 8 / 10  # two tokens of the first sentence differ


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"mode": "strict", "scheme": "IOB2"}, {"zero_division": 1}, {"sample_weight": "random"}],
)
def test_parity_with_seqeval(seed, kwargs):
    from seqeval.metrics import accuracy_score, classification_report

    preds, refs = _random_sentences(seed)
    if kwargs.get("sample_weight") == "random":
        kwargs = {"sample_weight": np.random.default_rng(seed).uniform(0.5, 2, len(refs)).tolist()}
    library_kwargs = dict(kwargs)
    if "scheme" in library_kwargs:
        library_kwargs["scheme"] = IOB2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = seqeval(preds, refs, **kwargs)
        report = classification_report(refs, preds, output_dict=True, **library_kwargs)
    overall = report.pop("micro avg")
    report.pop("macro avg")
    report.pop("weighted avg")
    assert list(result)[: len(report)] == list(report)
    for entity_type, row in report.items():
        assert result[entity_type] == {
            "precision": row["precision"],
            "recall": row["recall"],
            "f1": row["f1-score"],
            "number": row["support"],
        }
    assert result["overall_precision"] == overall["precision"]
    assert result["overall_recall"] == overall["recall"]
    assert result["overall_f1"] == overall["f1-score"]
    assert result["overall_accuracy"] == accuracy_score(refs, preds)


def test_suffix_labels():
    refs = [["PER-B", "PER-I", "O"]]
    assert seqeval(refs, refs, suffix=True)["PER"]["f1"] == 1.0


def test_bad_scheme_and_lengths():
    with pytest.raises(MetricError, match="scheme must be one of IOB1, IOB2"):
        seqeval(PREDS, REFS, scheme="IOB9", mode="strict")
    with pytest.raises(MetricError, match="1 predictions but 2 references"):
        seqeval(PREDS[:1], REFS)
