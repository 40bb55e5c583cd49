"""Extract the answer from a free-form model output before it is scored."""

from __future__ import annotations


def extract_free_form_answer(prediction: str, stop_string: str | None, output_regex: str | None) -> str:
    """The part of a free-form prediction that is scored.

    The prediction is cut at the first occurrence of ``stop_string`` (when it is not empty); then, when
    ``output_regex`` is given, the answer is its first ``re.search`` match in what remains: capture group 1 when
    the regex has capture groups (``""`` if that group did not take part in the match), else the whole match.
    No match gives ``""``. Nothing else is done: no stripping, no case change. An empty regex is ignored (it
    would match the empty string in every prediction; the config loader warns about it). The regex is matched
    with a time limit (:func:`genbench.config._regex_guard.guarded_search`), so a catastrophically backtracking
    regex is a ``ConfigError``, not a stalled evaluation.

    Args:
        prediction: The model's output.
        stop_string: The prompt builder's ``stop_string`` (default ``"\\n\\n"``), or None.
        output_regex: The task's ``free_form_output_regex``, or None.

    Returns:
        The answer to score.

    Raises:
        ConfigError: the regex took longer than ``GENBENCH_REGEX_TIMEOUT`` seconds (catastrophic backtracking).

    >>> extract_free_form_answer("42\\n\\nQ: next question", "\\n\\n", None)
    '42'
    >>> extract_free_form_answer("The answer is 42.\\n\\nQ: 1+1", "\\n\\n", r"answer is (\\d+)")
    '42'
    >>> extract_free_form_answer("no number here", None, r"\\d+")
    ''
    """
    if stop_string:
        prediction = prediction.split(stop_string, 1)[0]
    if not output_regex:
        return prediction
    from genbench.config._regex_guard import guarded_search

    match = guarded_search(output_regex, prediction)
    if match is None:
        return ""
    answer = match.group(1) if match.re.groups else match.group(0)
    return answer if answer is not None else ""


def finds_answer(prediction: str, stop_string: str | None, output_regex: str | None) -> bool:
    """Whether :func:`extract_free_form_answer` finds an answer: always without a regex, else when it matches.

    >>> finds_answer("The answer is 42.", None, r"answer is (\\d+)"), finds_answer("no idea", None, r"\\d+")
    (True, False)
    """
    if stop_string:
        prediction = prediction.split(stop_string, 1)[0]
    if not output_regex:
        return True
    from genbench.config._regex_guard import guarded_search

    return guarded_search(output_regex, prediction) is not None
