"""Hand-computed cases for every match rule, on the definition and on the embedded index."""

from __future__ import annotations

import pytest

import genbench.contamination._analysis as analysis
from genbench.contamination._analysis import tokenize


def test_analyzer_lowercases_and_splits_on_non_word_characters():
    assert tokenize("Hello, World! it's 3.14") == ["hello", "world", "it", "s", "3", "14"]
    assert tokenize("snake_case and_more") == ["snake_case", "and_more"]
    assert tokenize("") == [] and tokenize(" ,.;! ") == []


def test_analyzer_is_unicode_aware():
    assert tokenize("CAFÉ Café café") == ["café"] * 3
    assert tokenize("東京タワーに行く。") == ["東京タワーに行く"]  # CJK characters are \w: one run, one token
    assert tokenize("Straße ΣΟΦΙΑ") == ["straße", "σοφια"]


def test_repeated_ngrams(text_search):
    # "a b" occurs at 0, 2 and 4: every token is covered.
    assert analysis.field_score(list("ababab"), list("ab"), 2) == 1.0
    assert text_search(["a b"], ["a b a b a b"], ngram_size=2).instances[0].raw_score == 1.0
    # "a b c a b" against "x a b x": windows 0 and 3 match, "c" does not.
    assert analysis.field_score(list("abcab"), list("xabx"), 2) == 0.8
    result = text_search(["x a b x"], ["a b c a b"], ngram_size=2)
    assert result.instances[0].raw_score == 0.8
    assert result.instances[0].matches[0].fields[0]["matched"] == 4


def test_field_shorter_than_n_cannot_match(text_search):
    assert analysis.field_score(["a", "b"], ["a", "b", "c"], 3) == 0.0
    result = text_search(["a b c"], ["a b"], ngram_size=3)
    assert result.instances[0].raw_score == 0.0 and result.instances[0].matches == []


def test_several_fields_score_the_mean(text_search):
    units = ["a b c d", "x y"]
    rows = [("a b c d", "x y")]
    # Against unit 0: 1.0 and 0.0; against unit 1: 0.0 and 1.0; both 0.5, the first unit wins the tie.
    assert analysis.ngram_score([list("abcd"), list("xy")], list("abcd"), 2) == 0.5
    result = text_search(units, rows, ngram_size=2, top_k=2)
    instance = result.instances[0]
    assert instance.raw_score == 0.5
    assert [m.unit_id for m in instance.matches] == [0, 1]
    assert [f["matched"] for f in instance.matches[0].fields] == [4, 0]
    # A field without tokens counts as 0 in the mean.
    assert text_search(units, [("a b c d", "")], ngram_size=2).instances[0].raw_score == 0.5


def test_punctuation_and_case_do_not_matter(text_search):
    result = text_search(["hello world"], ["Hello, WORLD!"])
    assert result.instances[0].score == 1.0


def test_unicode_tokens(text_search):
    result = text_search(
        ["Le CAFÉ est bon", "東京タワー に 行く"], ["le café", "東京タワー に", "東京 に"], ngram_size=2
    )
    assert [i.raw_score for i in result.instances] == [1.0, 1.0, 0.0]
    assert [i.matches[0].unit_id for i in result.instances[:2]] == [0, 1]


def test_threshold_is_strict(text_search):
    # "a b c d" against "a b": 2 of 4 tokens, exactly 0.5.
    at_boundary = text_search(["a b"], ["a b c d"], ngram_size=2, threshold=0.5)
    assert at_boundary.instances[0].raw_score == 0.5
    assert at_boundary.instances[0].score == 0.0
    assert at_boundary.matched_units.tolist() == []
    below = text_search(["a b"], ["a b c d"], ngram_size=2, threshold=0.49)
    assert below.instances[0].score == 1.0
    assert below.matched_units.tolist() == [0]
    assert analysis.apply_threshold(0.5, 0.5) == 0.0


def test_largest_match_and_longest_span(text_search):
    units = ["a b", "a b c d e"]
    result = text_search(units, ["a b c x d e"], ngram_size=2, top_k=2)
    instance = result.instances[0]
    assert instance.raw_score == 5 / 6
    best = instance.matches[0]
    assert best.unit_id == 1
    assert best.fields[0]["span"] == [0, 3] and best.fields[0]["span_text"] == "a b c"
    assert instance.matches[1].unit_id == 0 and instance.matches[1].score == 2 / 6
    assert best.unit_text == "a b c d e"
    mask = analysis.matched_mask(list("abcxde"), list("abcde"), 2)
    assert analysis.longest_run(mask) == (0, 3)


def test_exact_match_needs_every_field_in_one_unit(text_search):
    units = ["a b", "c d", "x a b c d y"]
    result = text_search(units, [("a b", "c d"), ("b a", "c d"), ("a b", ""), ("B, c", "D")], top_k=5)
    assert [i.score for i in result.instances] == [1.0, 0.0, 0.0, 1.0]
    assert [m.unit_id for m in result.instances[0].matches] == [2]
    assert result.matched_units.tolist() == [2]


def test_exact_match_of_long_fields(text_search):
    long_unit = " ".join(f"w{i}" for i in range(30))
    row = " ".join(f"w{i}" for i in range(5, 25))
    assert text_search([long_unit], [row]).instances[0].score == 1.0
    # Both 8-token windows of a 9-token field occur in the unit, but the field itself does not.
    field = [f"t{i}" for i in range(9)]
    split_unit = " ".join(field[:8] + ["x"] + field[1:])
    assert not analysis.contains(field, split_unit.split())
    result = text_search([split_unit, long_unit], [" ".join(field), " ".join(field[1:])])
    assert [i.score for i in result.instances] == [0.0, 1.0]


def test_test_set_score_is_the_mean(text_search):
    result = text_search(["a b c"], ["a b c", "x y z", "a b q", "q r"], ngram_size=2)
    assert [i.raw_score for i in result.instances] == [1.0, 0.0, 2 / 3, 0.0]
    assert result.score == pytest.approx((1 + 2 / 3) / 4)
    assert analysis.test_set_score([]) == 0.0


def test_unknown_tokens_never_match(text_search):
    result = text_search(["a b c"], ["a b zzz c"], ngram_size=2)
    assert result.instances[0].raw_score == 0.5


def test_ngram_size_longer_than_every_unit(text_search):
    result = text_search(["a b c", ""], ["a b c", ""], ngram_size=10, threshold=0.0)
    assert [i.raw_score for i in result.instances] == [0.0, 0.0]
    assert result.matched_units.tolist() == []
