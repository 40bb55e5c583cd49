"""Regexes from configs (``free_form_output_regex``), guarded against catastrophic backtracking.

A regex such as ``(a+)+$`` takes time exponential in the length of a prediction that almost matches, so one task
could stall every evaluation. Config regexes are compiled and matched with the ``regex`` package (``re``-compatible
syntax, version 0), which matches that pattern in linear time and stops the rest after ``GENBENCH_REGEX_TIMEOUT``
seconds per prediction with a :class:`~genbench._core.errors.ConfigError`. See docs/config.md#regular-expressions.
"""

from __future__ import annotations

import functools
from typing import Any

from genbench._core.errors import ConfigError, ConfigProblem
from genbench._core.settings import positive_env_number

DEFAULT_TIMEOUT_S = 1.0


def regex_timeout_s() -> float:
    """Seconds one match may take (``GENBENCH_REGEX_TIMEOUT``, default 1)."""
    return positive_env_number("GENBENCH_REGEX_TIMEOUT", DEFAULT_TIMEOUT_S, float)


@functools.lru_cache(maxsize=256)
def compile_config_regex(pattern: str) -> Any:
    """Compile a config regex with the engine that will match it.

    Raises:
        ValueError: the pattern does not compile (the message says why).

    >>> compile_config_regex(r"answer is (\\d+)").search("the answer is 42").group(1)
    '42'
    """
    import regex  # local: only tasks with a regex need it

    try:
        return regex.compile(pattern, flags=regex.VERSION0)
    except regex.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None


def guarded_search(pattern: str, text: str, *, field: str = "free_form_output_regex") -> Any:
    """``regex.search(pattern, text)`` that gives up after :func:`regex_timeout_s`.

    Args:
        pattern: The config's regex.
        text: The text to search (a model's prediction).
        field: The config field the regex comes from, for the message.

    Returns:
        The first match, or None.

    Raises:
        ConfigError: the match took longer than the limit (catastrophic backtracking).

    >>> guarded_search(r"\\d+", "it is 42").group(0)
    '42'
    """
    compiled = compile_config_regex(pattern)
    timeout = regex_timeout_s()
    try:
        return compiled.search(text, timeout=timeout)
    except TimeoutError:
        shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
        raise ConfigError(
            None,
            [
                ConfigProblem(
                    field,
                    f"the regex {shown!r} took longer than {timeout:g} s on a prediction of {len(text)} characters "
                    "and was stopped: it backtracks catastrophically (a repeated group whose alternatives overlap, "
                    "such as (a|aa)+, or nested quantifiers); rewrite it so that each character can be matched one "
                    "way only "
                    "(GENBENCH_REGEX_TIMEOUT sets the limit)",
                )
            ],
        ) from None
