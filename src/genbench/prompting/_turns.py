"""A prompt's parts, as turns of a conversation: the instruction, each shot's input and target, and the query.

A few-shot prompt of :func:`genbench.prompting.build_prompt_datasets` is ``instruction + shot + separator + ... +
separator + query``, each shot its formatted input followed by its formatted target. A chat template needs those
parts apart (a shot's input is a user turn, its target the assistant's): :func:`prompt_turns` finds them again from
the prompt dataset's ``_genbench_idx`` and ``_genbench_shot_ids`` columns and checks that they join to the prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from genbench._core.errors import PreparationError
from genbench._core.vocabulary import TaskType, split_name
from genbench.prompting._builder import format_split_with
from genbench.prompting._few_shot import few_shot_pool

if TYPE_CHECKING:
    import datasets

    from genbench.config._schema import PromptBuilderConfig


@dataclass(frozen=True)
class PromptTurns:
    """One prompt's parts.

    Attributes:
        instruction: The prompt builder's instruction (``instruction_zero_shot`` or ``instruction_few_shot``).
        shots: Each shot's ``(formatted input, formatted target)``, in prompt order.
        query: The query's formatted input (ending with the output prefix).
        separator: The prompt builder's ``few_shot_example_separator``.
    """

    instruction: str
    shots: tuple[tuple[str, str], ...]
    query: str
    separator: str

    @property
    def text(self) -> str:
        """The prompt as :func:`~genbench.prompting.build_prompt_datasets` writes it.

        >>> PromptTurns("Add.\\n\\n", (("Q: 1+1\\nA: ", "2"),), "Q: 2+2\\nA: ", "\\n\\n").text
        'Add.\\n\\nQ: 1+1\\nA: 2\\n\\nQ: 2+2\\nA: '
        """
        shots = "".join(f"{shot_input}{target}{self.separator}" for shot_input, target in self.shots)
        return f"{self.instruction}{shots}{self.query}"


def prompt_turns(
    splits: Mapping[str, Any],
    prompts: datasets.Dataset,
    *,
    task_type: TaskType | str,
    prompt_builder: PromptBuilderConfig,
    random_seed: int = 42,
    example_formatter: Callable[[Mapping[str, Any], int], Mapping[str, Any]] | None = None,
) -> list[PromptTurns]:
    """The turns of each prompt of ``prompts`` (a prompt dataset built from ``splits`` with the same options).

    Raises:
        PreparationError: the parts do not join to a prompt (the prompt dataset was built with other options).
    """
    splits = {split_name(key): value for key, value in splits.items()}
    task_type = TaskType(task_type)

    def formatted(name: str) -> dict[int, tuple[str, str]]:
        examples = format_split_with(splits, name, task_type, prompt_builder, random_seed, example_formatter)
        pairs = zip(examples.inputs.to_pylist(), examples.targets.to_pylist(), strict=True)
        return dict(zip((int(i) for i in examples.ids), pairs, strict=True))

    test = formatted("test")
    columns = prompts.column_names
    shot_rows: Sequence[Sequence[int]] = (
        prompts["_genbench_shot_ids"] if "_genbench_shot_ids" in columns else [[] for _ in range(len(prompts))]
    )
    pool = test
    if any(shot_rows):
        pool_split, _ = few_shot_pool(splits)
        pool = test if pool_split == "test" else formatted(pool_split)
    turns = []
    for prompt, idx, shot_ids in zip(prompts["input"], prompts["_genbench_idx"], shot_rows, strict=True):
        instruction = prompt_builder.instruction_few_shot if shot_ids else prompt_builder.instruction_zero_shot
        made = PromptTurns(
            instruction,
            tuple(pool[int(i)] for i in shot_ids),
            test[int(idx)][0],
            prompt_builder.few_shot_example_separator,
        )
        if made.text != prompt:
            raise PreparationError(
                f"The prompt of test example {idx} is not its instruction, shots and query joined (a task's own "
                "prompt format?): it cannot be split into chat turns. Run it without --apply-chat-template."
            )
        turns.append(made)
    return turns
