"""extract_free_form_answer: stop string first, then the first regex match."""

from __future__ import annotations

import pytest

from genbench.metrics import extract_free_form_answer


@pytest.mark.parametrize(
    ("prediction", "stop_string", "regex", "expected"),
    [
        ("42", None, None, "42"),
        (" 42 \n", None, None, " 42 \n"),  # no stripping
        ("42\n\nQ: 1+1\nA: 2", "\n\n", None, "42"),
        ("42\n\n", "\n\n", None, "42"),
        ("\n\n42", "\n\n", None, ""),
        ("42\nmore", "\n\n", None, "42\nmore"),
        ("a STOP b STOP c", "STOP", None, "a "),
        ("42\n\n7", "", None, "42\n\n7"),  # an empty stop string cuts nothing
        ("The answer is 42, not 7", None, r"\d+", "42"),  # first match, whole match without groups
        ("The answer is 42, not 7", None, r"answer is (\d+)", "42"),  # group 1
        ("x=1 y=2", None, r"(x)=(\d)", "x"),  # group 1 of several
        ("answer: yes", None, r"answer: (\d+)?", ""),  # group 1 did not take part
        ("no digits", None, r"\d+", ""),  # no match
        ("first 1\n\nthen 2", "\n\n", r"\d", "1"),  # cut before searching
        ("text\n\nanswer 3", "\n\n", r"\d", ""),  # the match after the stop string is gone
        ("Answer: B", None, r"(?i)answer:\s*([A-D])", "B"),
    ],
)
def test_extraction(prediction, stop_string, regex, expected):
    assert extract_free_form_answer(prediction, stop_string, regex) == expected
