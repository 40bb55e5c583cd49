"""Settings read from environment variables, checked before use."""

from __future__ import annotations

import os
from typing import TypeVar

from genbench._core.errors import ConfigError, ConfigProblem

NumberT = TypeVar("NumberT", int, float)


def positive_env_number(name: str, default: NumberT, kind: type[NumberT]) -> NumberT:
    """The positive number in the environment variable ``name`` (``default`` when it is unset or empty).

    Raises:
        ConfigError: the variable is set but not a positive number of that ``kind``.

    >>> positive_env_number("GENBENCH_NO_SUCH_SETTING", 5, int)
    5
    """
    text = os.environ.get(name)
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = kind(0)
    if not value > 0:
        raise ConfigError(None, [ConfigProblem("", f"environment variable {name}={text!r} is not a positive number")])
    return value
