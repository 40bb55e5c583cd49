"""The ``create-task`` options that fill the config's ``taxonomy`` block: one per axis of the GenBench taxonomy.

``--generalisation-type compositional --shift-locus train-test --shift-locus pretrain-test`` writes
``taxonomy: {generalisation_type: 'compositional', shift_locus: ['train-test', 'pretrain-test']}``; each option's
choices are the axis's values (:mod:`genbench._core.taxonomy`), so a typo is a usage error listing them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click

from genbench._core.taxonomy import AXES


def taxonomy_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--motivation``, ``--generalisation-type``, ``--shift-type``, ``--shift-source`` and ``--shift-locus``
    (the last two-with-lists repeatable) to a click command; they reach it as ``taxonomy_<axis>`` parameters."""
    for axis in reversed(list(AXES.values())):
        flag = "--" + axis.name.replace("_", "-")
        several = " Repeatable: several values make a list." if axis.several else ""
        command = click.option(
            flag,
            f"taxonomy_{axis.name}",
            type=click.Choice(axis.values),
            multiple=axis.several,
            help=f"The task's {axis.title.lower()} on the GenBench taxonomy (docs/taxonomy.md).{several}",
        )(command)
    return command


def taxonomy_from_options(options: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """The ``taxonomy`` values among a command's parameters (those given).

    >>> taxonomy_from_options({"taxonomy_shift_locus": ("train-test",), "taxonomy_motivation": None, "name": "x"})
    {'shift_locus': ['train-test']}
    """
    found: dict[str, str | list[str]] = {}
    for axis in AXES:
        value = options.get(f"taxonomy_{axis}")
        if value:
            found[axis] = list(value) if isinstance(value, tuple | list) else value
    return found
