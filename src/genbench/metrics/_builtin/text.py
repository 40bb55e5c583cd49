"""String matching: the twin of the ``evaluate`` metric ``exact_match``.

Written by hand (no library computes it): ``evaluate``'s script does the same steps with NumPy string arrays, in
the same order: remove each ignored regex, lowercase, remove ASCII punctuation, remove digits, compare.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import Any

from genbench._core.errors import MetricError
from genbench.metrics._builtin._common import check_same_length

_NO_PUNCTUATION = str.maketrans("", "", string.punctuation)
_NO_DIGITS = str.maketrans("", "", string.digits)


def exact_match(
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    regexes_to_ignore: Sequence[str] | None = None,
    ignore_case: bool = False,
    ignore_punctuation: bool = False,
    ignore_numbers: bool = False,
) -> dict[str, Any]:
    """Fraction of predictions that equal their reference, after optional normalisation.

    Normalisation runs in this order: every regex of ``regexes_to_ignore`` is removed (so regexes see the original
    case), then lowercasing, then removal of ASCII punctuation, then removal of digits. When normalisation empties
    both strings, the pair matches only if the original strings were identical (``evaluate``'s current rule, so
    that ``"?"`` does not match ``"!"`` under ``ignore_punctuation``). Values that are not strings are compared as
    ``str(value)``, as ``evaluate`` stores them in a string column.

    Args:
        predictions: Predicted texts.
        references: Reference texts, one per prediction.
        regexes_to_ignore: Regular expressions whose matches are removed before comparing (a list; a lone
            string is refused, as ``evaluate`` would remove each of its characters).
        ignore_case: Compare lowercased texts.
        ignore_punctuation: Remove ASCII punctuation (``string.punctuation``) before comparing.
        ignore_numbers: Remove the digits 0-9 before comparing.

    Returns:
        ``{"exact_match": float}`` in [0, 1] (NaN for no examples, like ``numpy.mean([])``).

    Raises:
        MetricError: ``regexes_to_ignore`` is a string, or a regex does not compile.

    >>> refs = ["the cat", "theater", "YELLING", "agent007"]
    >>> preds = ["cat?", "theater", "yelling", "agent"]
    >>> exact_match(preds, refs)
    {'exact_match': 0.25}
    >>> exact_match(preds, refs, regexes_to_ignore=["the ", "yell", "YELL"], ignore_case=True,
    ...             ignore_punctuation=True, ignore_numbers=True)
    {'exact_match': 1.0}
    """
    check_same_length("exact_match", predictions, references)
    if isinstance(regexes_to_ignore, str):
        raise MetricError(
            f"exact_match: regexes_to_ignore must be a list of regular expressions, got the string "
            f"{regexes_to_ignore!r}; write [{regexes_to_ignore!r}]"
        )
    try:
        patterns = [re.compile(regex) for regex in regexes_to_ignore or ()]
    except re.error as exc:
        raise MetricError(f"exact_match: a regex of regexes_to_ignore does not compile: {exc}") from None

    def normalise(text: str) -> str:
        for pattern in patterns:
            text = pattern.sub("", text)
        if ignore_case:
            text = text.lower()
        if ignore_punctuation:
            text = text.translate(_NO_PUNCTUATION)
        if ignore_numbers:
            text = text.translate(_NO_DIGITS)
        return text

    hits = 0
    for prediction, reference in zip(predictions, references, strict=True):
        original_prediction, original_reference = str(prediction), str(reference)
        normalised_prediction = normalise(original_prediction)
        if normalised_prediction == normalise(original_reference) and (
            normalised_prediction != "" or original_prediction == original_reference
        ):
            hits += 1
    return {"exact_match": hits / len(predictions) if predictions else float("nan")}
