"""``genbench-cli models``: models to try genbench with, made locally (``models make-tiny DIR``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from genbench.cli._output import display_path
from genbench.runs._tiny_model import SHAPES, build_model


@click.group("models")
def models() -> None:
    """Make models to try genbench with, without any download."""


@models.command("make-tiny")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--shape",
    type=click.Choice(list(SHAPES)),
    default="tiny",
    show_default=True,
    help="tiny: 2 layers, width 32; tiny-bos: the same with a BOS token; gpt2-small: GPT-2 small's shape (124M).",
)
@click.option(
    "--weights-seed",
    "seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Seed of the random weights.",
)
def make_tiny(directory: Path, shape: str, seed: int) -> None:
    """Write a GPT-2 initialised at random, with a word-level tokenizer, to DIRECTORY (no download).

    Run it like any local model (`--model hf:DIRECTORY`). Its answers are those of a random model:
    it is for trying the commands offline, not for scores. Needs genbench[hf].

    \b
    Examples:
      genbench-cli models make-tiny models/tiny-gpt2
      genbench-cli run --model hf:models/tiny-gpt2 --task arithmetic_length --limit 20 --output-dir results
    """
    if directory.exists() and any(directory.iterdir()):
        raise click.BadParameter(f"{display_path(directory)} is not empty: give a new or empty folder.")
    if not sys.stderr.isatty():  # transformers' "Writing model shards" bar, drawn line by line into a log
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
    build_model(shape, directory, seed=seed)
    shown = display_path(directory)
    target = shown if Path(shown).is_absolute() else f"./{shown}"
    click.echo(f"Wrote {shown}: run it with --model hf:{target}")
