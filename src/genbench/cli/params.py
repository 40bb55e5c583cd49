"""The checked option types of the CLI: every number an option takes is range-checked here, once.

A value out of range is a usage error (exit 2) that names the option, raised by click before the command runs:

>>> import click
>>> from click.testing import CliRunner
>>> @click.command()
... @click.option("--match_threshold", type=THRESHOLD)
... def search(match_threshold):
...     click.echo(match_threshold)
>>> print(CliRunner().invoke(search, ["--match_threshold", "nan"]).output.splitlines()[-1])
Error: Invalid value for '--match_threshold': 'nan' is not a finite number.
>>> CliRunner().invoke(search, ["--match_threshold", "0.5"]).output
'0.5\\n'

click's own ``FloatRange`` lets ``nan`` through (every comparison with NaN is false), hence
:class:`FiniteFloatRange`.
"""

from __future__ import annotations

import math
from typing import Any

import click


class FiniteFloatRange(click.FloatRange):
    """A float within ``[min, max]`` that is also finite: ``nan``, ``inf`` and ``-inf`` are refused."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return super().convert(number, param, ctx)


class NonEmptyString(click.ParamType):
    """Text that is not empty or blank and has no NUL byte (names of fields, splits, datasets)."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = str(value)
        if not text.strip():
            self.fail("must not be empty.", param, ctx)
        if "\0" in text:
            self.fail("must not contain a NUL byte.", param, ctx)
        return text


THRESHOLD = FiniteFloatRange(0.0, 1.0)
"""A score threshold: a finite number in ``[0, 1]``."""

POSITIVE_INT = click.IntRange(min=1)
"""Sizes, batch sizes, n-gram sizes, cut-offs, ``top_k``: at least 1."""

COUNT = click.IntRange(min=0)
"""Counts that may be zero (numbers of shots)."""

SEED = click.IntRange(min=0, max=2**32 - 1)
"""A random seed: ``0 <= seed < 2**32`` (what ``numpy.random.seed`` accepts, which task code may call)."""

NAME = NonEmptyString()
"""A field, split or dataset name."""
