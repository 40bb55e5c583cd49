"""Translation metrics: twins of the ``evaluate`` metrics ``sacrebleu``, ``chrf`` and ``bleu``.

``sacrebleu`` and ``chrf`` call sacreBLEU as ``evaluate`` does. ``bleu`` is ``evaluate``'s other BLEU: the
TensorFlow NMT ``compute_bleu`` (clipped n-gram counts against the union of the references, brevity penalty from
the *shortest* reference, optional add-one smoothing) over sacreBLEU's ``13a`` tokens; it is written out here
because no installed library implements that variant.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from genbench._core.errors import MetricError
from genbench.metrics._builtin._common import check_same_length


def _references_per_prediction(metric: str, references: Sequence[Any]) -> list[list[str]]:
    """References as one list per prediction; a plain string is a single reference (as in ``evaluate``)."""
    lists = [[reference] if isinstance(reference, str) else list(reference) for reference in references]
    for index, refs in enumerate(lists):
        if not refs:
            raise MetricError(f"{metric}: prediction {index} has no reference")
    return lists


def _reference_streams(metric: str, references: Sequence[Any]) -> list[list[str]]:
    """sacreBLEU wants one stream per reference position, each with one entry per prediction."""
    lists = _references_per_prediction(metric, references)
    count = len(lists[0]) if lists else 1
    for index, refs in enumerate(lists):
        if len(refs) != count:
            raise MetricError(
                f"{metric}: sacreBLEU needs the same number of references for every prediction; prediction 0 has "
                f"{count}, prediction {index} has {len(refs)}"
            )
    return [[refs[position] for refs in lists] for position in range(count)]


def sacrebleu(
    predictions: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    force: bool = False,
    lowercase: bool = False,
    tokenize: str | None = None,
    use_effective_order: bool = False,
) -> dict[str, Any]:
    """Corpus BLEU as computed by sacreBLEU (``sacrebleu.corpus_bleu``), on a 0-100 scale.

    Args:
        predictions: Predicted (detokenized) texts.
        references: One reference or a list of references per prediction (the same number for each).
        smooth_method: ``"exp"``, ``"floor"``, ``"add-k"`` or ``"none"``.
        smooth_value: Smoothing value for ``"floor"`` (default 0.1) and ``"add-k"`` (default 1).
        force: Accept input that looks tokenized.
        lowercase: Lowercase before scoring.
        tokenize: sacreBLEU tokenizer name (``"13a"``, ``"intl"``, ``"char"``, ``"none"``, ...); default ``"13a"``.
        use_effective_order: Skip n-gram orders with no match (for sentence-level BLEU).

    Returns:
        ``{"score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len"}``.

    >>> result = sacrebleu(["hello there general kenobi", "foo bar foobar"],
    ...                    [["hello there general kenobi", "hello there !"], ["foo bar foobar", "foo bar foobar"]])
    >>> round(result["score"], 1), result["sys_len"], result["ref_len"]
    (100.0, 7, 7)
    """
    import sacrebleu as sacrebleu_lib

    check_same_length("sacrebleu", predictions, references)
    output = sacrebleu_lib.corpus_bleu(
        list(predictions),
        _reference_streams("sacrebleu", references),
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        force=force,
        lowercase=lowercase,
        use_effective_order=use_effective_order,
        **({"tokenize": tokenize} if tokenize else {}),
    )
    return {
        "score": output.score,
        "counts": output.counts,
        "totals": output.totals,
        "precisions": output.precisions,
        "bp": output.bp,
        "sys_len": output.sys_len,
        "ref_len": output.ref_len,
    }


def chrf(
    predictions: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> dict[str, Any]:
    """Corpus chrF (``word_order=2``: chrF++) as computed by sacreBLEU, on a 0-100 scale.

    Args:
        predictions: Predicted texts.
        references: A list of references per prediction (the same number for each); a plain string per
            prediction is taken as its single reference.
        char_order: Character n-gram order.
        word_order: Word n-gram order (2 gives chrF++).
        beta: Weight of recall relative to precision.
        lowercase: Lowercase before scoring.
        whitespace: Keep whitespace when extracting character n-grams.
        eps_smoothing: Smooth as the reference chrF++.py, NLTK and Moses do, instead of sacreBLEU's default.

    Returns:
        ``{"score", "char_order", "word_order", "beta"}``.

    >>> chrf(["The cat sat on the mat."], [["The cat sat on the mat."]])
    {'score': 100.0, 'char_order': 6, 'word_order': 0, 'beta': 2}
    """
    from sacrebleu.metrics import CHRF

    check_same_length("chrf", predictions, references)
    scorer = CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
    output = scorer.corpus_score(list(predictions), _reference_streams("chrf", references))
    return {
        "score": output.score,
        "char_order": output.char_order,
        "word_order": output.word_order,
        "beta": output.beta,
    }


def tokenize_13a(text: str) -> list[str]:
    """Tokens of ``text`` under sacreBLEU's ``13a`` (mteval-v13a) tokenizer, the default tokenizer of ``bleu``.

    >>> tokenize_13a("Hello, world! It costs 3.50 &amp; more.")
    ['Hello', ',', 'world', '!', 'It', 'costs', '3.50', '&', 'more', '.']
    """
    return _tokenizer_13a()(text).split()


@functools.lru_cache(maxsize=1)
def _tokenizer_13a() -> Any:
    # One instance per process: it memoises the lines it has tokenized.
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def _ngram_counts(tokens: Sequence[str], max_order: int) -> Counter[tuple[str, ...]]:
    counts: Counter[tuple[str, ...]] = Counter()
    for order in range(1, max_order + 1):
        for start in range(len(tokens) - order + 1):
            counts[tuple(tokens[start : start + order])] += 1
    return counts


def bleu(
    predictions: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    *,
    tokenizer: Callable[[str], Sequence[str]] | None = None,
    max_order: int = 4,
    smooth: bool = False,
) -> dict[str, Any]:
    """Corpus BLEU as ``evaluate``'s ``bleu`` computes it (TensorFlow NMT ``compute_bleu``), on a 0-1 scale.

    Unlike sacreBLEU, the brevity penalty uses the shortest reference of each prediction, and references may
    differ in number between predictions. With one reference each and no smoothing, the score is sacreBLEU's
    (``tokenize="13a"``, ``smooth_method="none"``) divided by 100.

    Args:
        predictions: Predicted texts.
        references: One reference or a list of references per prediction.
        tokenizer: Turns a text into tokens; default: :func:`tokenize_13a`.
        max_order: Longest n-gram counted.
        smooth: Add-one smoothing of every n-gram precision (Lin and Och, 2004).

    Returns:
        ``{"bleu", "precisions", "brevity_penalty", "length_ratio", "translation_length", "reference_length"}``.

    >>> result = bleu(["hello there general kenobi", "foo bar foobar"],
    ...               [["hello there general kenobi", "hello there!"], ["foo bar foobar"]])
    >>> result["bleu"], result["brevity_penalty"], result["translation_length"], result["reference_length"]
    (1.0, 1.0, 7, 6)
    """
    check_same_length("bleu", predictions, references)
    if max_order < 1:
        raise MetricError(f"bleu: max_order must be at least 1, got {max_order}")
    tokenize = tokenizer if tokenizer is not None else tokenize_13a
    matches_by_order = [0] * max_order
    possible_matches_by_order = [0] * max_order
    translation_length = 0
    reference_length = 0
    for prediction, refs in zip(predictions, _references_per_prediction("bleu", references), strict=True):
        translation = list(tokenize(prediction))
        tokenized_refs = [list(tokenize(reference)) for reference in refs]
        translation_length += len(translation)
        reference_length += min(len(tokens) for tokens in tokenized_refs)

        # An n-gram counts at most as often as in the reference where it is most frequent.
        max_reference_counts: Counter[tuple[str, ...]] = Counter()
        for tokens in tokenized_refs:
            max_reference_counts |= _ngram_counts(tokens, max_order)
        for ngram, count in (_ngram_counts(translation, max_order) & max_reference_counts).items():
            matches_by_order[len(ngram) - 1] += count
        for order in range(1, max_order + 1):
            possible_matches_by_order[order - 1] += max(len(translation) - order + 1, 0)

    if smooth:
        precisions = [(m + 1.0) / (p + 1.0) for m, p in zip(matches_by_order, possible_matches_by_order, strict=True)]
    else:
        precisions = [
            m / p if p > 0 else 0.0 for m, p in zip(matches_by_order, possible_matches_by_order, strict=True)
        ]
    geo_mean = math.exp(sum((1.0 / max_order) * math.log(p) for p in precisions)) if min(precisions) > 0 else 0.0

    if reference_length == 0 or translation_length == 0:
        # No ratio exists; evaluate's bleu then reports a ratio and a penalty of 0 (and the score is 0).
        ratio, brevity_penalty = 0.0, 0.0
    else:
        ratio = translation_length / reference_length
        brevity_penalty = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
    return {
        "bleu": geo_mean * brevity_penalty,
        "precisions": precisions,
        "brevity_penalty": brevity_penalty,
        "length_ratio": ratio,
        "translation_length": translation_length,
        "reference_length": reference_length,
    }
