"""GenBench evaluation cards: the taxonomy's five axes, every value listed, the task's values marked.

The layout follows genbench.org's card generator: one band per axis, one marker per experiment (a task, or a subtask
declaring its own taxonomy); rendered as SVG, HTML, LaTeX and Markdown. See docs/taxonomy.md#evaluation-cards.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from genbench._core.errors import GenBenchError
from genbench._core.taxonomy import AXES, AXIS_NAMES, EVAL_CARDS_URL, suggest_from_keywords
from genbench.display._html import templates
from genbench.display._measured_shift import MeasuredShift, locus_note

if TYPE_CHECKING:
    from genbench.task._task import Task
    from genbench.task._task_dict import TaskDict

CardFormat = Literal["svg", "html", "latex", "markdown"]
FORMATS: tuple[str, ...] = ("svg", "html", "latex", "markdown")

# Markers of experiments 1, 2, 3 as genbench.org draws them (LaTeX: \square, \bigtriangleup, \bigcirc), then more.
MARKERS = ("□", "△", "○", "◇", "☆", "▽")
LATEX_MARKERS = (r"$\square$", r"$\bigtriangleup$", r"$\bigcirc$", r"$\diamond$", r"$\star$", r"$\bigtriangledown$")


class NoTaxonomyError(GenBenchError, ValueError):
    """The task declares no ``taxonomy`` block, so it has no evaluation card."""


@dataclass(frozen=True)
class Experiment:
    """One experiment of a card: its label (a task id) and its values per axis (lists, possibly empty)."""

    label: str
    values: Mapping[str, list[str]]


@dataclass(frozen=True)
class EvalCard:
    """A task's evaluation card, ready to render."""

    title: str
    experiments: tuple[Experiment, ...]
    shift: MeasuredShift | None = None
    """The shift measured against a pretraining corpus (a shift report), stated under the shift-locus axis."""

    def _shift_note(self) -> str | None:
        if self.shift is None:
            return None
        values = AXES["shift_locus"].values
        declared = [v for v in values if any(v in e.values.get("shift_locus", []) for e in self.experiments)]
        return f"{self.shift.sentence()} {locus_note(declared)}"

    def marks(self, axis: str, value: str) -> list[int]:
        """The positions of the experiments that have ``value`` on ``axis``."""
        return [i for i, e in enumerate(self.experiments) if value in e.values.get(axis, [])]

    def render(self, fmt: str) -> str:
        """The card as ``svg``, ``html``, ``latex`` or ``markdown`` text."""
        renderers = {"svg": self.svg, "html": self.html, "latex": self.latex, "markdown": self.markdown}
        if fmt not in renderers:
            raise ValueError(f"unknown card format {fmt!r}; expected one of {', '.join(FORMATS)}")
        return renderers[fmt]()

    def _legend(self) -> list[tuple[str, str]]:
        return [(MARKERS[i % len(MARKERS)], e.label) for i, e in enumerate(self.experiments)]

    def markdown(self) -> str:
        """A Markdown table: a row per axis, the task's values in bold with their markers, then the legend."""
        width = max(len(axis.values) for axis in AXES.values())
        lines = [
            f"**GenBench evaluation card** ({EVAL_CARDS_URL})",
            "",
            "| axis |" + " |" * width,
            "|---|" + "---|" * width,
        ]
        for name in AXIS_NAMES:
            axis = AXES[name]
            cells = []
            for value in axis.values:
                marks = "".join(MARKERS[i % len(MARKERS)] for i in self.marks(name, value))
                cells.append(f"**{axis.label(value)} {marks}**" if marks else axis.label(value))
            cells += [""] * (width - len(cells))
            lines.append(f"| {axis.title} | " + " | ".join(_md(c) for c in cells) + " |")
        if (note := self._shift_note()) is not None:
            lines += ["", note]
        legend = ", ".join(f"{marker} `{_md(label)}`" for marker, label in self._legend())
        return "\n".join([*lines, "", legend]) + "\n"

    def html(self) -> str:
        """An HTML fragment (escaped, inline styles only): a band per axis with its values and the markers."""
        axes = [
            {
                "title": AXES[name].title,
                "cells": [
                    (AXES[name].label(value), self._markers(self.marks(name, value))) for value in AXES[name].values
                ],
            }
            for name in AXIS_NAMES
        ]
        template = templates("genbench.display").get_template("eval_card.html.j2")
        return template.render(title=self.title, axes=axes, legend=self._legend(), shift=self._shift_note())

    def latex(self) -> str:
        """A standalone LaTeX document in genbench.org's card layout (xcolor, colortbl, amssymb); copy the part
        from ``% Set tabular size`` to the last ``\\end{tabular}`` into a paper, with the packages."""
        out = [
            "% GenBench evaluation card, " + _tex_comment(self.title) + f" ({EVAL_CARDS_URL})",
            r"\documentclass{standalone}",
            r"\usepackage{xcolor}",
            r"\usepackage{colortbl}",
            r"\usepackage{amssymb}",
            r"\begin{document}",
            "% Set tabular size",
            r"\newcommand{\tabularwidth}{11cm}",
            "% Set symbols for experiments",
        ]
        names = [_latex_experiment_name(i) for i in range(len(self.experiments))]
        for i, name in enumerate(names):
            marker = LATEX_MARKERS[i % len(LATEX_MARKERS)]
            out.append(rf"\newcommand{{{name}}}{{{marker}}} % {_tex_comment(self.experiments[i].label)}")
        out += [
            r"\renewcommand{\arraystretch}{1.1}",
            r"\setlength{\tabcolsep}{0mm}",
            r"\begin{tabular}{|p{\tabularwidth}<{\centering}|}",
            r"\hline",
        ]
        for name in AXIS_NAMES:
            axis = AXES[name]
            column = f"{11 / len(axis.values):.2f}cm"
            spec = f"p{{{column}}}" + f"p{{{column}}}<{{\\centering}}" * (len(axis.values) - 1)
            labels = " & ".join(rf"\textit{{{tex_escape(axis.label(value))}}}" for value in axis.values)
            marks = " & ".join(
                r"\large " + r"\hspace{0.5mm}".join(names[i] for i in self.marks(name, value)) for value in axis.values
            )
            out += [
                f"% {axis.title}",
                r"\rowcolor{gray!60}",
                rf"\textbf{{{tex_escape(axis.title)}}} \\",
                r"\footnotesize",
                rf"\begin{{tabular}}{{{spec}}}",
                labels + r" \\",
                marks,
                r"\vspace{2mm} \\",
                r"\end{tabular} \\",
            ]
        if (note := self._shift_note()) is not None:
            out += [r"\hline", r"\footnotesize " + tex_escape(note) + r" \\"]
        out += [r"\hline", r"\end{tabular}", r"\end{document}"]
        return "\n".join(out) + "\n"

    def svg(self) -> str:
        """A self-contained SVG image (valid XML; text escaped), 560 px wide."""
        width, band, label_h, mark_h, top = 560, 20, 16, 22, 26
        legend_h = 18 * len(self.experiments) + 8
        note = self._shift_note()
        # SVG text does not wrap: the note's lines, short enough for the card's width at its font size
        note_lines = textwrap.wrap(note, 100) if note else []
        height = (
            top + len(AXIS_NAMES) * (band + label_h + mark_h) + legend_h + 14 * len(note_lines) + (4 if note else 0)
        )
        bands = []
        for number, name in enumerate(AXIS_NAMES):
            axis, y = AXES[name], top + number * (band + label_h + mark_h)
            column = (width - 2) / len(axis.values)
            values = [
                {
                    "x": 1 + column * (position + 0.5),
                    "y": y + band,
                    "label": axis.label(value),
                    "label_height": label_h,
                    "markers": self._markers(self.marks(name, value)),
                }
                for position, value in enumerate(axis.values)
            ]
            bands.append({"y": y, "height": band, "title": axis.title, "cells": values})
        template = templates("genbench.display").get_template("eval_card.svg.j2")
        legend_y = top + len(AXIS_NAMES) * (band + label_h + mark_h)
        svg = template.render(
            width=width,
            height=height,
            title=self.title,
            bands=bands,
            legend_y=legend_y,
            legend=self._legend(),
            shift_lines=note_lines,
        )
        return svg + "\n"

    def _markers(self, positions: Sequence[int]) -> str:
        return " ".join(MARKERS[i % len(MARKERS)] for i in positions)


def _md(text: str) -> str:
    return text.replace("|", "\\|")


_TEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "–": "--",
}


def tex_escape(text: str) -> str:
    """Text escaped for LaTeX (the ten special characters; an en dash as ``--``)."""
    return "".join(_TEX_SPECIALS.get(char, char) for char in text)


def _tex_comment(text: str) -> str:
    """Text for a LaTeX comment: one line (a newline would end the comment and leave the rest as code)."""
    return " ".join(text.split())


def _latex_experiment_name(position: int) -> str:
    """``\\firstexp``, ``\\secondexp``, ... (genbench.org's names; LaTeX command names take letters only)."""
    words = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
    if position < len(words):
        return f"\\{words[position]}exp"
    return "\\exp" + "".join(chr(ord("a") + int(digit)) for digit in str(position))


def taxonomy_experiments(task: Task | TaskDict) -> list[Experiment]:
    """The experiments of a task's card: a task's own taxonomy (a subtask's: its parent's when it declares none); for
    a task with subtasks, its own taxonomy and each subtask's that differs from it. Empty when nothing declares one."""
    experiments: list[Experiment] = []
    own = getattr(task.config, "taxonomy", None)
    if own is None and getattr(task, "subtask_id", None) is not None:
        from genbench._registry.task_taxonomy import task_taxonomy  # reads configs: pydantic, which display defers

        own = task_taxonomy(task.task_id, task.config)  # declared by its task with subtasks
    if own is not None:
        experiments.append(Experiment(task.task_id, own.as_lists()))
    subtasks = task.items() if hasattr(task, "items") and callable(task.items) else []
    for _, subtask in subtasks:
        taxonomy = subtask.config.taxonomy
        if taxonomy is not None and (own is None or taxonomy.as_lists() != own.as_lists()):
            experiments.append(Experiment(subtask.task_id, taxonomy.as_lists()))
    return experiments


def eval_card(task: Task | TaskDict, shift: MeasuredShift | None = None) -> EvalCard:
    """The evaluation card of a task or a task with subtasks; with ``shift``, stating the shift measured against a
    pretraining corpus on its shift-locus axis.

    Raises:
        NoTaxonomyError: neither the task nor a subtask declares a ``taxonomy`` block (the message lists the values
            its keywords suggest).

    >>> from genbench import load_task
    >>> card = eval_card(load_task("arithmetic_length"))
    >>> [(e.label, e.values["generalisation_type"]) for e in card.experiments]
    [('arithmetic_length', ['compositional'])]
    >>> "Compositional □" in card.markdown()
    True
    """
    experiments = taxonomy_experiments(task)
    if not experiments:
        raise NoTaxonomyError(missing_taxonomy_message(task.task_id, task.keywords))
    return EvalCard(f"{task.name} ({task.task_id})", tuple(experiments), shift)


def missing_taxonomy_message(task_id: str, keywords: Sequence[str]) -> str:
    """What to write in a config without a ``taxonomy`` block, with the values its keywords suggest."""
    suggestions = suggest_from_keywords(keywords)
    text = f"task {task_id!r} declares no taxonomy, so it has no evaluation card: add a taxonomy block to its config"
    if suggestions:
        fields = ", ".join(f"{s.field}: '{s.value}' (keyword {s.keyword!r})" for s in suggestions)
        text += f", e.g. taxonomy: {{{fields}}}"
    return text + " (docs/taxonomy.md lists the values)"


def eval_card_html_section(task: Task | TaskDict) -> str:
    """The card as an HTML section of a task's notebook card, or ``""`` when the task declares no taxonomy."""
    experiments = taxonomy_experiments(task)
    if not experiments:
        return ""
    return "<h4>GenBench evaluation card</h4>" + EvalCard(task.task_id, tuple(experiments)).html()
