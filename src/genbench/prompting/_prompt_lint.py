"""A lint of a task's prompt builder: the config is followed faithfully, so what reads badly is worth a warning.

Where two prompt pieces meet it warns of glued words, doubled separators, a choices prefix repeating the item prefix
and empty prompt parts. See docs/testing.md#prompt_lint and docs/prompting.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from genbench._core.vocabulary import TaskType

if TYPE_CHECKING:
    from genbench.config._schema import PromptBuilderConfig

BUILDER_PATH = "preparation_strategies.prompt_based_testing.prompt_builder"
# Sample examples the prompts are rendered from (what matters is the config text around them).
SAMPLE_INPUTS = {
    TaskType.FREE_FORM: ("612 + 6", "618", None),
    TaskType.MULTIPLE_CHOICE: ("What is cold in French", "froid", ("froid", "chaud")),
    TaskType.SEQUENCE_LABELING: ("Ada wrote", "B-PER,O", None),
}
SHOT_INPUTS = {
    TaskType.FREE_FORM: ("35 + 78", "113", None),
    TaskType.MULTIPLE_CHOICE: ("What is hot in French", "chaud", ("froid", "chaud")),
    TaskType.SEQUENCE_LABELING: ("Alan slept", "B-PER,O", None),
}
_SEPARATOR_MARKS = ":;,-|*>"


@dataclass(frozen=True)
class PromptLint:
    """One finding: the field to change, what is wrong, where (``excerpt``) and the rendered prompt.

    Attributes:
        field: The prompt builder field to change (``output_prefix``).
        problem: What is wrong and the fix.
        excerpt: The few characters around the problem, whitespace made visible.
        prompt: The whole prompt rendered from a sample example, whitespace made visible.
        shots: 0 or 1: which prompt shows the problem.
    """

    field: str
    problem: str
    excerpt: str
    prompt: str
    shots: int

    @property
    def path(self) -> str:
        """The field's dotted path in ``config.jsonnet``."""
        return f"{BUILDER_PATH}.{self.field}"

    def message(self) -> str:
        """One line: ``field: problem; the k-shot prompt (sample example): ...``."""
        return (
            f"{self.path}: {self.problem} (`{self.excerpt}` in the {self.shots}-shot prompt of a sample example: "
            f"`{self.prompt}`)"
        )


def visible(text: str) -> str:
    """Text on one line with its whitespace visible: ``↵`` for a newline, ``→`` for a tab, ``·`` for a space at the
    start or end of a line or next to another space.

    >>> visible("Q:  612\\nA: ")
    'Q:··612↵A:·'
    """
    lines = []
    for line in text.replace("\t", "→").split("\n"):
        line = re.sub(r" {2,}", lambda m: "·" * len(m.group()), line)
        body = line.strip(" ")
        lead = len(line) - len(line.lstrip(" "))
        trail = len(line) - len(line.rstrip(" ")) if body else 0
        lines.append("·" * lead + body + "·" * trail)
    return "↵".join(lines)


# A piece of a prompt: the builder field it comes from (None: the example's text) and its text.
Piece = tuple[str | None, str]


def _example(pb: PromptBuilderConfig, task_type: TaskType, sample: tuple, with_target: bool) -> list[Piece]:
    text, target, options = sample
    pieces: list[Piece] = [("input_prefix", pb.input_prefix), (None, text)]
    if task_type is TaskType.MULTIPLE_CHOICE and pb.append_choices_to_input and options:
        pieces.append(("choices_prefix", pb.choices_prefix))
        for option in options:
            pieces += [("choice_item_prefix", pb.choice_item_prefix), (None, option)]
            pieces.append(("choice_item_postfix", pb.choice_item_postfix))
    pieces.append(("output_prefix", pb.output_prefix))
    if with_target:
        pieces.append((None, target))
    return pieces


def prompt_pieces(pb: PromptBuilderConfig, task_type: TaskType | str, shots: int) -> list[Piece]:
    """The pieces of a sample 0-shot (``shots=0``) or 1-shot prompt, in order; joined they are the prompt that
    :func:`genbench.prompting.build_prompts` builds for the sample examples."""
    kind = TaskType(task_type)
    if shots == 0:
        return [("instruction_zero_shot", pb.instruction_zero_shot)] + _example(pb, kind, SAMPLE_INPUTS[kind], False)
    return (
        [("instruction_few_shot", pb.instruction_few_shot)]
        + _example(pb, kind, SHOT_INPUTS[kind], True)
        + [("few_shot_example_separator", pb.few_shot_example_separator)]
        + _example(pb, kind, SAMPLE_INPUTS[kind], False)
    )


# Fields that stand between two pieces of text, and what to give them when they are empty.
_FIX = {
    "few_shot_example_separator": "give it a separator, e.g. '\\n\\n'",
    "choice_item_postfix": "give it a separator, e.g. '\\n'",
    "choices_prefix": "give it a separator, e.g. '\\nchoices:\\n'",
    "choice_item_prefix": "give it a marker, e.g. '- '",
}
_SEPARATING_FIELDS = tuple(_FIX)


def _runs(pieces: list[Piece]) -> list[tuple[str, str, str]]:
    """Runs of two or more spaces and of three or more newlines in the joined prompt, each with the first builder
    field that contributes to it: ``(field, problem, excerpt)``."""
    text = "".join(piece_text for _, piece_text in pieces)
    owners: list[str | None] = [field for field, piece_text in pieces for _ in piece_text]
    found = []
    for match in re.finditer(r" {2,}|\n{3,}", text):
        fields = [f for f in owners[match.start() : match.end()] if f is not None]
        if not fields:
            continue  # the example's own text
        what = "spaces in a row" if match.group()[0] == " " else "newlines in a row (more than one blank line)"
        excerpt = _around(text[: match.start()], "") + match.group() + _around("", text[match.end() :])
        found.append((fields[0], f"makes {len(match.group())} {what}: a doubled separator", excerpt))
    return found


def _glued(left: str, right: str) -> bool:
    return (left.isalnum() or left in ".:;,?!)") and right.isalnum()


def _junction_problem(left: Piece, right: Piece) -> tuple[str, str] | None:
    """``(field to change, problem)`` where two non-empty pieces meet, else None."""
    (left_field, left_text), (right_field, right_text) = left, right
    field = right_field if left_field is None or right_field == "output_prefix" else left_field
    if field is None:
        return None
    if _glued(left_text[-1], right_text[0]):
        if field == left_field:
            fix = f"end {field} with a space or a newline"
        else:
            fix = f"start {field} with a space or a newline" if field == right_field else "add a space"
        return field, f"glues words together; {fix}"
    left_mark, right_mark = left_text.rstrip()[-1:], right_text.lstrip()[:1]
    if left_mark and left_mark == right_mark and left_mark in _SEPARATOR_MARKS:
        return field, f"doubles the separator {left_mark!r}"
    return None


def lint_prompt_builder(pb: PromptBuilderConfig, task_type: TaskType | str) -> list[PromptLint]:
    """The lint's findings for a prompt builder (one per field and problem), for tasks that build prompts.

    Args:
        pb: The task's prompt builder options.
        task_type: The task's type; a reranking task has no prompts (nothing is found).

    >>> from genbench.config._schema import PromptBuilderConfig
    >>> flat = PromptBuilderConfig(
    ...     instruction_zero_shot="Add two numbers together", input_prefix="Q: ", output_prefix="A: "
    ... )
    >>> [(lint.field, lint.excerpt) for lint in lint_prompt_builder(flat, "free_form")][:2]
    [('instruction_zero_shot', 'togetherQ:'), ('output_prefix', '6A:')]
    >>> lint_prompt_builder(PromptBuilderConfig(), "multiple_choice")
    []
    """
    kind = TaskType(task_type)
    if kind not in SAMPLE_INPUTS:
        return []
    found: dict[tuple[str, str], PromptLint] = {}

    def add(field: str, problem: str, excerpt: str, shots: int, pieces: list[Piece]) -> None:
        prompt = visible("".join(text for _, text in pieces))
        found.setdefault((field, problem), PromptLint(field, problem, visible(excerpt), prompt, shots))

    for shots in (0, 1):
        pieces = prompt_pieces(pb, kind, shots)
        present = [i for i, piece in enumerate(pieces) if piece[1]]
        for left, right in zip(present, present[1:], strict=False):
            problem = _junction_problem(pieces[left], pieces[right])
            skipped = [str(pieces[i][0]) for i in range(left + 1, right) if pieces[i][0] in _SEPARATING_FIELDS]
            if skipped and _glued(pieces[left][1][-1], pieces[right][1][0]):
                problem = (
                    skipped[0],
                    f"is empty, so the pieces around it glue words together; {_FIX[skipped[0]]}",
                )
            if problem is not None and not (problem[0] == "choices_prefix" and "separator" in problem[1]):
                add(*problem, _around(pieces[left][1], pieces[right][1]), shots, pieces)
        for field, run, excerpt in _runs(pieces):
            add(field, run, excerpt, shots, pieces)
        if not pb.output_prefix.strip():
            add(
                "output_prefix",
                "is empty: nothing marks where the answer starts; e.g. '\\nA: '",
                _around(pieces[-2][1] if len(pieces) > 1 else "", pieces[-1][1]),
                shots,
                pieces,
            )
    zero = prompt_pieces(pb, kind, 0)
    if kind is TaskType.MULTIPLE_CHOICE and pb.append_choices_to_input:
        _choice_problems(pb, zero, add)
    if pb.instruction_zero_shot.strip() and not pb.instruction_few_shot.strip():
        add(
            "instruction_few_shot",
            "is empty while instruction_zero_shot is not: k-shot prompts carry no instruction; give it the same text",
            pb.instruction_zero_shot[:20],
            1,
            prompt_pieces(pb, kind, 1),
        )
    return list(found.values())


def _choice_problems(pb: PromptBuilderConfig, pieces: list[Piece], add: Any) -> None:
    label_line = pb.choices_prefix.rsplit("\n", 1)[-1]
    first_option = pb.choice_item_prefix + SAMPLE_INPUTS[TaskType.MULTIPLE_CHOICE][2][0]  # type: ignore[index]
    marker = pb.choice_item_prefix.strip()
    if marker and pb.choices_prefix.rstrip().endswith(marker):
        add(
            "choices_prefix",
            f"ends with the item prefix {pb.choice_item_prefix!r}, which every option brings already",
            label_line + first_option,
            0,
            pieces,
        )
    elif label_line.strip() and "\n" in pb.choice_item_postfix + pb.choice_item_prefix:
        add(
            "choices_prefix",
            f"puts its label {label_line.strip()!r} on the first option's line while the other options start "
            "their own lines, so the label reads as part of the first option; end choices_prefix with a newline "
            "(e.g. '\\nchoices:\\n')",
            label_line + first_option,
            0,
            pieces,
        )


def _around(left: str, right: str) -> str:
    """The last word of ``left`` and the first of ``right``, with the whitespace between them."""
    left_part = re.search(r"\S*\s*$", left)
    right_part = re.search(r"^\s*\S*", right)
    return (left_part.group() if left_part else "") + (right_part.group() if right_part else "")
