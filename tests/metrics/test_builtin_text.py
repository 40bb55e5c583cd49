"""exact_match: hand cases for every option (numbers of the evaluate metric card) and a reference model."""

from __future__ import annotations

import math
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genbench._core.errors import MetricError
from genbench.metrics._builtin.text import exact_match

REFS = ["the cat", "theater", "YELLING", "agent007"]
PREDS = ["cat?", "theater", "yelling", "agent"]


def test_metric_card_examples():
    assert exact_match(PREDS, REFS) == {"exact_match": 0.25}
    kwargs = {"ignore_case": True, "ignore_punctuation": True}
    assert exact_match(PREDS, REFS, regexes_to_ignore=["the ", "yell"], **kwargs) == {"exact_match": 0.5}
    assert exact_match(PREDS, REFS, regexes_to_ignore=["the ", "yell", "YELL"], **kwargs) == {"exact_match": 0.75}
    assert exact_match(PREDS, REFS, regexes_to_ignore=["the ", "yell", "YELL"], ignore_numbers=True, **kwargs) == {
        "exact_match": 1.0
    }
    refs = ["The cat sat on the mat.", "Theaters are great.", "It's like comparing oranges and apples."]
    preds = ["The cat sat on the mat?", "Theaters are great.", "It's like comparing apples and oranges."]
    assert exact_match(preds, refs)["exact_match"] == pytest.approx(1 / 3)


def test_each_option_alone():
    assert exact_match(["Paris"], ["paris"]) == {"exact_match": 0.0}
    assert exact_match(["Paris"], ["paris"], ignore_case=True) == {"exact_match": 1.0}
    assert exact_match(["Paris!"], ["Paris"]) == {"exact_match": 0.0}
    assert exact_match(["Paris!"], ["Paris"], ignore_punctuation=True) == {"exact_match": 1.0}
    assert exact_match(["Route 66"], ["Route "], ignore_numbers=True) == {"exact_match": 1.0}
    assert exact_match(["the answer: 4"], ["4"], regexes_to_ignore=[r"^the answer: "]) == {"exact_match": 1.0}
    # whitespace matters; punctuation removal is ASCII only
    assert exact_match(["Paris "], ["Paris"], ignore_punctuation=True) == {"exact_match": 0.0}
    assert exact_match(["Paris\u00bf"], ["Paris"], ignore_punctuation=True) == {"exact_match": 0.0}


def test_regexes_run_before_lowercasing():
    assert exact_match(["YELL"], [""], regexes_to_ignore=["yell"], ignore_case=True) == {"exact_match": 0.0}
    assert exact_match(["YELL!"], ["!"], regexes_to_ignore=["YELL"]) == {"exact_match": 1.0}


def test_strings_emptied_by_normalisation_match_only_if_identical():
    assert exact_match(["?"], ["!"], ignore_punctuation=True) == {"exact_match": 0.0}
    assert exact_match(["?"], ["?"], ignore_punctuation=True) == {"exact_match": 1.0}
    assert exact_match([""], [""]) == {"exact_match": 1.0}
    assert exact_match(["123"], ["45"], ignore_numbers=True) == {"exact_match": 0.0}


def test_non_strings_compare_as_strings_and_empty_input_is_nan():
    assert exact_match([1, 2], ["1", 3]) == {"exact_match": 0.5}
    assert math.isnan(exact_match([], [])["exact_match"])


def test_bad_options():
    with pytest.raises(MetricError, match=r"regexes_to_ignore must be a list.*\['the '\]"):
        exact_match(["a"], ["a"], regexes_to_ignore="the ")
    with pytest.raises(MetricError, match="does not compile"):
        exact_match(["a"], ["a"], regexes_to_ignore=["("])
    with pytest.raises(MetricError, match="2 predictions but 1 references"):
        exact_match(["a", "b"], ["a"])


def _reference_exact_match(preds, refs, regexes, ignore_case, ignore_punctuation, ignore_numbers):
    """A second, straightforward statement of the rule, to compare against."""
    hits = []
    for p, r in zip(preds, refs, strict=True):
        np_, nr = p, r
        for regex in regexes:
            np_, nr = re.sub(regex, "", np_), re.sub(regex, "", nr)
        if ignore_case:
            np_, nr = np_.lower(), nr.lower()
        for flag, chars in ((ignore_punctuation, string.punctuation), (ignore_numbers, string.digits)):
            if flag:
                np_ = "".join(c for c in np_ if c not in chars)
                nr = "".join(c for c in nr if c not in chars)
        hits.append(np_ == nr and (np_ != "" or p == r))
    return sum(hits) / len(hits)


texts = st.text(alphabet="aAbB1 .,!?", max_size=6)


@settings(max_examples=150, deadline=None)
@given(
    pairs=st.lists(st.tuples(texts, texts), min_size=1, max_size=10),
    regexes=st.lists(st.sampled_from(["a", "B+", r"\s", "1"]), max_size=2),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans()),
)
def test_against_reference_model(pairs, regexes, flags):
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    ignore_case, ignore_punctuation, ignore_numbers = flags
    ours = exact_match(
        preds,
        refs,
        regexes_to_ignore=regexes,
        ignore_case=ignore_case,
        ignore_punctuation=ignore_punctuation,
        ignore_numbers=ignore_numbers,
    )["exact_match"]
    assert ours == _reference_exact_match(preds, refs, regexes, *flags)
    assert 0.0 <= ours <= 1.0
