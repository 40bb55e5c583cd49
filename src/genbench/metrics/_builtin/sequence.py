"""Sequence labeling: the twin of the ``evaluate`` metric ``seqeval`` (entity-level scores from ``seqeval``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genbench._core.errors import MetricError
from genbench.metrics._builtin._common import check_same_length

# The tagging schemes of seqeval.scheme, by the names evaluate's seqeval accepts.
SCHEMES = ("IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")


def _scheme_class(scheme: Any) -> Any:
    if scheme is None or not isinstance(scheme, str):
        return scheme  # None, or a seqeval scheme class given from Python
    if scheme not in SCHEMES:
        raise MetricError(f"seqeval: scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")
    import seqeval.scheme

    return getattr(seqeval.scheme, scheme)


def seqeval(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    suffix: bool = False,
    scheme: str | None = None,
    mode: str | None = None,
    sample_weight: Sequence[float] | None = None,
    zero_division: str | int = "warn",
) -> dict[str, Any]:
    """Entity-level precision, recall and F1 per entity type and overall, plus token accuracy.

    Args:
        predictions: One list of predicted labels (``"B-PER"``, ``"O"``, ...) per sentence.
        references: One list of gold labels per sentence, each as long as its prediction.
        suffix: Labels carry their chunk tag as a suffix (``"PER-B"``).
        scheme: ``"IOB1"``, ``"IOB2"``, ``"IOE1"``, ``"IOE2"``, ``"IOBES"`` or ``"BILOU"``; used with
            ``mode="strict"``.
        mode: ``"strict"`` for strict entity matching under ``scheme``; default: conlleval-style.
        sample_weight: One weight per sentence.
        zero_division: Value when a score divides by zero: ``"warn"`` (0 with a warning), 0 or 1.

    Returns:
        ``{entity_type: {"precision", "recall", "f1", "number"}, ..., "overall_precision", "overall_recall",
        "overall_f1", "overall_accuracy"}``, entity types in seqeval's (sorted) order, as ``evaluate`` returns.

    >>> refs = [["O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    >>> preds = [["O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    >>> scores = seqeval(preds, refs)
    >>> list(scores)
    ['MISC', 'PER', 'overall_precision', 'overall_recall', 'overall_f1', 'overall_accuracy']
    >>> scores["PER"]
    {'precision': 1.0, 'recall': 1.0, 'f1': 1.0, 'number': 1}
    >>> scores["overall_f1"]
    0.5
    """
    from seqeval.metrics import accuracy_score, classification_report

    check_same_length("seqeval", predictions, references)
    # evaluate stores the labels in an Arrow string column before scoring; convert them the same way.
    predictions = [[str(label) for label in labels] for labels in predictions]
    references = [[str(label) for label in labels] for labels in references]
    report = classification_report(
        y_true=references,
        y_pred=predictions,
        suffix=suffix,
        output_dict=True,
        scheme=_scheme_class(scheme),
        mode=mode,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )
    overall = report.pop("micro avg")
    report.pop("macro avg", None)
    report.pop("weighted avg", None)

    scores: dict[str, Any] = {
        entity_type: {
            "precision": float(row["precision"]),
            "recall": float(row["recall"]),
            "f1": float(row["f1-score"]),
            "number": int(row["support"]),
        }
        for entity_type, row in report.items()
    }
    scores["overall_precision"] = float(overall["precision"])
    scores["overall_recall"] = float(overall["recall"])
    scores["overall_f1"] = float(overall["f1-score"])
    scores["overall_accuracy"] = float(accuracy_score(y_true=references, y_pred=predictions))
    return scores
