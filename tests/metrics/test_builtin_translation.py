"""sacrebleu, chrf and bleu built-ins against sacreBLEU, plus hand-computed BLEU cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sacrebleu as sacrebleu_lib
from sacrebleu.metrics import CHRF

from genbench._core.errors import MetricError
from genbench.metrics._builtin.translation import bleu, chrf, sacrebleu, tokenize_13a

VOCAB = ["the", "cat", "sat", "on", "mat", "a", "dog", ",", ".", "ran", "3.5", "it's", "(big)"]


def _sentences(seed: int, count: int = 25) -> tuple[list[str], list[str], list[str]]:
    rng = np.random.default_rng(seed)

    def sentence() -> str:
        return " ".join(rng.choice(VOCAB, size=int(rng.integers(1, 14))))

    return [sentence() for _ in range(count)], [sentence() for _ in range(count)], [sentence() for _ in range(count)]


# --- sacrebleu ---


def test_sacrebleu_keys_and_metric_card_examples():
    preds = ["hello there general kenobi", "foo bar foobar"]
    refs = [["hello there general kenobi", "hello there !"], ["foo bar foobar", "foo bar foobar"]]
    result = sacrebleu(preds, refs)
    assert list(result) == ["score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len"]
    assert round(result["score"], 1) == 100.0
    preds = ["hello there general kenobi", "on our way to ankh morpork"]
    refs = [["hello there general kenobi", "hello there !"], ["goodbye ankh morpork", "ankh morpork"]]
    assert round(sacrebleu(preds, refs)["score"], 1) == 39.8


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"smooth_method": "none"},
        {"smooth_method": "floor", "smooth_value": 0.2},
        {"lowercase": True},
        {"tokenize": "char"},
        {"use_effective_order": True},
    ],
)
def test_sacrebleu_parity(seed, kwargs):
    preds, refs_a, refs_b = _sentences(seed)
    result = sacrebleu(preds, [[a, b] for a, b in zip(refs_a, refs_b, strict=True)], **kwargs)
    expected = sacrebleu_lib.corpus_bleu(preds, [refs_a, refs_b], **kwargs)
    assert result["score"] == expected.score
    assert result["counts"] == expected.counts and result["totals"] == expected.totals
    assert result["precisions"] == expected.precisions
    assert (result["bp"], result["sys_len"], result["ref_len"]) == (expected.bp, expected.sys_len, expected.ref_len)


def test_single_reference_strings_are_accepted():
    preds, refs, _ = _sentences(7)
    assert sacrebleu(preds, refs) == sacrebleu(preds, [[r] for r in refs])
    assert chrf(preds, refs) == chrf(preds, [[r] for r in refs])
    assert bleu(preds, refs) == bleu(preds, [[r] for r in refs])


def test_reference_count_must_match_for_sacrebleu_metrics():
    with pytest.raises(MetricError, match="same number of references.*prediction 1 has 1"):
        sacrebleu(["a b", "c d"], [["a b", "a c"], ["c d"]])
    with pytest.raises(MetricError, match="same number of references"):
        chrf(["a b", "c d"], [["a b", "a c"], ["c d"]])
    with pytest.raises(MetricError, match="prediction 0 has no reference"):
        sacrebleu(["a"], [[]])


# --- chrf ---


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"word_order": 2},
        {"char_order": 4, "beta": 3},
        {"lowercase": True, "whitespace": True},
        {"eps_smoothing": True},
    ],
)
def test_chrf_parity(seed, kwargs):
    preds, refs_a, refs_b = _sentences(seed)
    result = chrf(preds, [[a, b] for a, b in zip(refs_a, refs_b, strict=True)], **kwargs)
    expected = CHRF(**kwargs).corpus_score(preds, [refs_a, refs_b])
    assert result == {
        "score": expected.score,
        "char_order": kwargs.get("char_order", 6),
        "word_order": kwargs.get("word_order", 0),
        "beta": kwargs.get("beta", 2),
    }


# --- bleu (evaluate's NMT BLEU) ---


def test_tokenize_13a():
    assert tokenize_13a("Hello, world!") == ["Hello", ",", "world", "!"]
    assert tokenize_13a("costs 3.50 - 4,000 (approx.)") == ["costs", "3.50", "-", "4,000", "(", "approx", ".", ")"]


def test_bleu_metric_card_example_and_keys():
    preds = ["hello there general kenobi", "foo bar foobar"]
    refs = [["hello there general kenobi", "hello there!"], ["foo bar foobar"]]
    result = bleu(preds, refs)
    assert list(result) == [
        "bleu",
        "precisions",
        "brevity_penalty",
        "length_ratio",
        "translation_length",
        "reference_length",
    ]
    assert result["bleu"] == 1.0
    # the shortest reference ("hello there !", 3 tokens) sets the reference length
    assert (result["translation_length"], result["reference_length"]) == (7, 6)
    assert result["length_ratio"] == 7 / 6


def test_bleu_hand_computed():
    # prediction: "the cat the cat" (4 tokens), reference "the cat sat" (3 tokens)
    # 1-grams: the x2 (ref max 1) + cat x2 (ref max 1) -> 2/4; 2-grams: the cat x2 (1), cat the (0) -> 1/3
    # 3-grams: 0/2 -> geometric mean 0
    result = bleu(["the cat the cat"], ["the cat sat"])
    assert result["precisions"] == [0.5, 1 / 3, 0.0, 0.0]
    assert result["bleu"] == 0.0 and result["brevity_penalty"] == 1.0
    smoothed = bleu(["the cat the cat"], ["the cat sat"], smooth=True)
    assert smoothed["precisions"] == [3 / 5, 2 / 4, 1 / 3, 1 / 2]
    assert smoothed["bleu"] == pytest.approx(math.exp(sum(math.log(p) for p in [3 / 5, 2 / 4, 1 / 3, 1 / 2]) / 4))
    # short prediction: brevity penalty exp(1 - 3/2)
    short = bleu(["the cat"], ["the cat sat"], max_order=2)
    assert short["precisions"] == [1.0, 1.0]
    assert short["brevity_penalty"] == pytest.approx(math.exp(1 - 3 / 2))
    assert short["bleu"] == pytest.approx(math.exp(1 - 3 / 2))


def test_bleu_empty_prediction_scores_zero():
    result = bleu([""], ["the cat"])
    assert (result["bleu"], result["brevity_penalty"], result["length_ratio"]) == (0.0, 0.0, 0.0)


def test_bleu_custom_tokenizer():
    assert bleu(["a b c d"], ["a b c d"], tokenizer=str.split)["bleu"] == 1.0
    assert bleu(["abcd"], ["abcd"], tokenizer=list)["translation_length"] == 4


@pytest.mark.parametrize("seed", range(8))
def test_bleu_matches_sacrebleu_without_smoothing_on_single_references(seed):
    preds, refs, _ = _sentences(seed, count=40)
    preds[: len(preds) // 2] = refs[: len(preds) // 2]  # enough matches for a non-zero score
    result = bleu(preds, refs)
    expected = sacrebleu_lib.corpus_bleu(preds, [refs], tokenize="13a", smooth_method="none")
    assert expected.score > 0
    assert result["bleu"] == pytest.approx(expected.score / 100, rel=1e-12)
    assert result["precisions"] == pytest.approx([p / 100 for p in expected.precisions], rel=1e-12)
    assert result["brevity_penalty"] == pytest.approx(expected.bp, rel=1e-12)
    assert (result["translation_length"], result["reference_length"]) == (expected.sys_len, expected.ref_len)
