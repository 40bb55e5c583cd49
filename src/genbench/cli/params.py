"""The options every command shares, in one place: the option vocabulary and the checked option types.

Each concept has one name (:data:`VOCABULARY`; former spellings stay as hidden aliases), and every number an option
takes is range-checked here, once: a value out of range is a usage error (exit 2) naming the option.
See docs/cli.md#one-option-vocabulary.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from genbench._core.progress import progress_bars


class FiniteFloatRange(click.FloatRange):
    """A float within ``[min, max]`` that is also finite: ``nan``, ``inf`` and ``-inf`` are refused.

    click's own ``FloatRange`` lets ``nan`` through (every comparison with NaN is false). A value out of range is a
    usage error (exit 2) that names the option, raised by click before the command runs:

    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @click.option("--match-threshold", type=THRESHOLD)
    ... def search(match_threshold):
    ...     click.echo(match_threshold)
    >>> print(CliRunner().invoke(search, ["--match-threshold", "nan"]).output.splitlines()[-1])
    Error: Invalid value for '--match-threshold': 'nan' is not a finite number.
    >>> CliRunner().invoke(search, ["--match-threshold", "0.5"]).output
    '0.5\\n'
    """

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

SEED = click.IntRange(min=0, max=2**32 - 1)
"""A random seed: ``0 <= seed < 2**32`` (what ``numpy.random.seed`` accepts, which task code may call)."""

NAME = NonEmptyString()
"""A field, split or dataset name."""


# --- The option vocabulary: one name, short form and meaning per concept, for every command -------------------------

VOCABULARY: dict[str, tuple[str, ...]] = {
    "task": ("-t", "--task"),
    "output_dir": ("-o", "--output-dir"),
    "output_file": ("--output-file",),
    "shots": ("--shots",),
    "seed": ("--seed",),
    "model": ("-m", "--model"),
    "json": ("--json",),
    "bootstrap_resamples": ("--bootstrap-resamples",),
}
"""Concept -> its spellings. A command that takes one of these concepts takes it under exactly these spellings (a
test walks every command and checks it): ``-t/--task`` selects tasks (``id``, ``id:subtask``; several, repeated or
comma-separated, and ``all`` where the command runs several), ``-o/--output-dir`` is always a folder and
``--output-file`` always a file, ``--shots`` counts few-shot examples, ``--seed`` seeds every random choice,
``-m/--model`` names the model, ``--json`` prints the command's results as JSON on stdout instead of a table and
``--bootstrap-resamples`` counts the resamples of a bootstrap."""

DEPRECATED_SPELLINGS: frozenset[str] = frozenset({"-i", "--id", "--tasks", "--output", "--resamples"})
"""Former spellings of the vocabulary's concepts, accepted for one release as hidden aliases that print a note."""


class SharedOption(click.Option):
    """An option of the vocabulary, with hidden extra spellings: silent aliases and deprecated ones (with a note).

    The extra spellings are parsed but not listed by ``--help``; a deprecated one prints one line on stderr naming
    the current spelling (not under ``--quiet``).
    """

    def __init__(
        self,
        param_decls: list[str],
        *,
        concept: str | None = None,
        aliases: tuple[str, ...] = (),
        deprecated: tuple[str, ...] = (),
        **kwargs: Any,
    ):
        super().__init__(param_decls, **kwargs)
        self.concept = concept
        self.aliases = tuple(aliases)
        self.deprecated_spellings = tuple(deprecated)

    def _hidden_spellings(self) -> tuple[str, ...]:
        return (*self.aliases, *self.deprecated_spellings)

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        super().add_to_parser(parser, ctx)
        action = "append" if self.multiple else "store"
        for spelling in self._hidden_spellings():
            # Each hidden spelling writes to its own slot, so that consume_value knows which one was used.
            dest = f"{self.name}\0{spelling}"
            if self.is_flag:
                const = getattr(self, "flag_activation_value", self.flag_value)
                parser.add_option(obj=self, opts=[spelling], dest=dest, action=f"{action}_const", const=const)
            else:
                parser.add_option(obj=self, opts=[spelling], dest=dest, action=action, nargs=self.nargs)

    def consume_value(self, ctx: click.Context, opts: Any) -> Any:
        merged = dict(opts)
        for spelling in self._hidden_spellings():
            key = f"{self.name}\0{spelling}"
            if key not in opts:
                continue
            if spelling in self.deprecated_spellings:
                deprecation_note(spelling, "/".join(self.opts))
            if self.multiple:
                merged[self.name] = [*merged.get(self.name, []), *opts[key]]
            else:
                merged.setdefault(self.name, opts[key])
        return super().consume_value(ctx, merged)


def deprecation_note(old: str, new: str) -> None:
    """Print ``Note: OLD is deprecated; use NEW`` on stderr (not under ``--quiet``)."""
    if not global_setting("quiet"):
        click.echo(f"Note: {old} is deprecated and goes in the next release; use {new}.", err=True)


def global_setting(name: str) -> bool:
    """A global option of ``genbench-cli`` (``debug``, ``quiet``, ``progress``) in the running command, else its
    default (``progress`` True, the others False)."""
    ctx = click.get_current_context(silent=True)
    settings = (ctx.find_root().obj if ctx is not None else None) or {}
    if not isinstance(settings, dict):
        settings = {}
    return bool(settings.get(name, name == "progress"))


class TaskIdType(click.ParamType):
    """A task id (``id`` or ``id:subtask``); with ``several``, a comma-separated list of them or ``all``."""

    name = "task"

    def __init__(self, *, several: bool):
        self.several = several

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, list):
            return value
        ids = [part.strip() for part in str(value).split(",")]
        if any(not part or any(char.isspace() or char == "\0" for char in part) for part in ids):
            self.fail(f"{value!r} is not a task id, nor a comma-separated list of task ids.", param, ctx)
        if not self.several and (len(ids) > 1 or ids == ["all"]):
            command = ctx.info_name if ctx is not None else "this command"
            self.fail(f"{command} takes one task ('id' or 'id:subtask'), not {value!r}.", param, ctx)
        return ids if self.several else ids[0]


def _task_selection(ctx: click.Context, param: click.Parameter, value: Any) -> tuple[str, ...] | None:
    """Flatten ``-t a,b -t c`` into ``('a', 'b', 'c')``; ``all`` (or nothing, when optional) is None: every task."""
    ids = [task_id for group in value or () for task_id in group]
    if "all" in ids:
        if len(ids) > 1:
            raise click.BadParameter("'all' selects every task: give it alone.", ctx, param)
        return None
    return tuple(dict.fromkeys(ids)) or None


Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def kebab_case_option(*param_decls: str, aliases: tuple[str, ...] = (), **kwargs: Any) -> Decorator:
    """An option spelt in kebab-case (``--ngram-size``), whose snake_case spellings (``--ngram_size``, those of the
    original GenBench scripts) are hidden aliases: parsed, not listed by ``--help``, and silent (the same word, with
    no other meaning to warn about).

    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @kebab_case_option("--ngram-size", type=int)
    ... def index(ngram_size):
    ...     click.echo(ngram_size)
    >>> CliRunner().invoke(index, ["--ngram_size", "8"]).output
    '8\\n'
    >>> "ngram_size" in CliRunner().invoke(index, ["--help"]).output
    False
    """
    snake = tuple(
        "--" + decl[2:].replace("-", "_") for decl in param_decls if decl.startswith("--") and "-" in decl[2:]
    )
    return click.option(*param_decls, cls=SharedOption, aliases=(*snake, *aliases), **kwargs)


def task_option(
    *, several: bool = False, required: bool = True, deprecated: tuple[str, ...] = ("-i", "--id"), help: str = ""
) -> Decorator:
    """``-t/--task``: one task id, or with ``several`` ids repeated or comma-separated and ``all`` (None: all).

    The command receives ``task_id`` (one id), or ``task_ids`` (a tuple of ids, None for every task).
    """
    if several:
        default_help = "Task ids: repeat -t or separate them with commas; 'all' for every task."
        if not required:
            default_help += " Default: every task."
        return click.option(
            *VOCABULARY["task"],
            "task_ids",
            cls=SharedOption,
            concept="task",
            deprecated=deprecated,
            type=TaskIdType(several=True),
            multiple=True,
            required=required,
            callback=_task_selection,
            metavar="ID[,ID...]",
            help=help or default_help,
        )
    return click.option(
        *VOCABULARY["task"],
        "task_id",
        cls=SharedOption,
        concept="task",
        deprecated=deprecated,
        type=TaskIdType(several=False),
        required=required,
        metavar="ID",
        help=help or "Task id: 'id', or 'id:subtask' for one subtask.",
    )


def output_dir_option(
    *, help: str, aliases: tuple[str, ...] = (), deprecated: tuple[str, ...] = (), **kwargs: Any
) -> Decorator:
    """``-o/--output-dir``: a folder the command writes into (``output_dir``, a Path)."""
    return click.option(
        *VOCABULARY["output_dir"],
        "output_dir",
        cls=SharedOption,
        concept="output_dir",
        aliases=aliases,
        deprecated=deprecated,
        type=click.Path(file_okay=False, path_type=Path),
        metavar="DIR",
        help=help,
        **kwargs,
    )


def output_file_option(*, help: str, deprecated: tuple[str, ...] = ("-o", "--output"), **kwargs: Any) -> Decorator:
    """``--output-file``: the one file the command writes (``output_file``, a Path)."""
    return click.option(
        *VOCABULARY["output_file"],
        "output_file",
        cls=SharedOption,
        concept="output_file",
        deprecated=deprecated,
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="FILE",
        help=help,
        **kwargs,
    )


class ShotListType(click.ParamType):
    """Distinct non-negative numbers of few-shot examples, comma-separated (``0,3``)."""

    name = "shots"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, list):
            return value
        try:
            shots = [int(part) for part in str(value).split(",") if part.strip()]
        except ValueError:
            shots = []
        if not shots or any(n < 0 for n in shots) or len(set(shots)) != len(shots):
            self.fail(f"{value!r}: give distinct non-negative integers, e.g. 0,5.", param, ctx)
        return shots


SHOT_LIST = ShotListType()


def _one_setting(ctx: click.Context, param: click.Parameter, value: list[int] | None) -> int | None:
    if value is not None and len(value) != 1:
        given = ",".join(map(str, value))
        raise click.BadParameter(f"{ctx.info_name} takes one number of shots, not {given}.", ctx, param)
    return None if value is None else value[0]


def shots_option(*, several: bool = False, help: str, **kwargs: Any) -> Decorator:
    """``--shots``: numbers of few-shot examples, ``N[,N...]``, in every command (``shots``: a list of ints).

    A command that takes one setting (the predictions of ``evaluate`` answer one; the leaderboard ranks one) declares
    it without ``several``: it parses the same text and receives one int, and several numbers are a usage error.
    """
    return click.option(
        *VOCABULARY["shots"],
        "shots",
        cls=SharedOption,
        concept="shots",
        type=SHOT_LIST,
        metavar="N[,N...]" if several else "N",
        callback=None if several else _one_setting,
        help=help,
        **kwargs,
    )


def seed_option(*, help: str = "Random seed of the few-shot selection.", default: int = 42) -> Decorator:
    """``--seed``: the random seed (``seed``), 42 unless given."""
    return click.option(
        *VOCABULARY["seed"], "seed", cls=SharedOption, concept="seed", type=SEED, default=default, show_default=True,
        help=help,
    )  # fmt: skip


def bootstrap_resamples_option(*, help: str, deprecated: tuple[str, ...] = ()) -> Decorator:
    """``--bootstrap-resamples``: the resamples of a bootstrap (``bootstrap_resamples``), at least 10, 1000 unless
    given."""
    return click.option(
        *VOCABULARY["bootstrap_resamples"], "bootstrap_resamples", cls=SharedOption, concept="bootstrap_resamples",
        deprecated=deprecated, type=click.IntRange(min=10), default=1000, show_default=True, help=help,
    )  # fmt: skip


def model_option(*, help: str, metavar: str = "SPEC", aliases: tuple[str, ...] = (), **kwargs: Any) -> Decorator:
    """``-m/--model``: the model (``model``)."""
    return click.option(
        *VOCABULARY["model"], "model", cls=SharedOption, concept="model", aliases=aliases, metavar=metavar, help=help,
        **kwargs,
    )  # fmt: skip


def json_option(*, help: str = "Print the results as JSON instead of a table.") -> Decorator:
    """``--json``: print the results as JSON on stdout instead of a table (``as_json``); notes go to stderr."""
    return click.option(
        *VOCABULARY["json"], "as_json", cls=SharedOption, concept="json", is_flag=True, help=help
    )  # fmt: skip


def _set_progress(ctx: click.Context, param: click.Parameter, value: bool | None) -> None:
    if value is not None:  # given to the command itself (genbench-cli hoists it to its own --progress/--no-progress)
        ctx.find_root().ensure_object(dict)["progress"] = value
        ctx.with_resource(progress_bars(value))


def progress_option() -> Decorator:
    """``--progress/--no-progress`` on a command: a hidden alias of ``genbench-cli``'s own (the one switch,
    :func:`genbench._core.progress.progress_bars`), for the command run on its own (``genbench-cli`` moves it before
    the command's name)."""
    return click.option(
        "--progress/--no-progress", default=None, hidden=True, expose_value=False, callback=_set_progress
    )  # fmt: skip
