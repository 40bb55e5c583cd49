"""docs/prompting.md shows real prompts: built here from the examples the page describes, they are the prompts it
prints (each as its Python repr), with the shots it says were drawn."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from genbench.config._schema import PromptBuilderConfig
from genbench.prompting import build_prompt_datasets

PAGE = Path(__file__).resolve().parents[2] / "docs" / "prompting.md"

FREE_FORM = (
    [{"input": f"What is the capital of {c}?", "target": t} for c, t in [("France", "Paris"), ("Italy", "Rome"),
                                                                         ("Spain", "Madrid")]],
    [{"input": "What is the capital of Peru?", "target": "Lima"}],
)  # fmt: skip
MULTIPLE_CHOICE = (
    [{"input": f"Which animal {verb}?", "target": t, "target_options": ["cat", "dog", "cow"]}
     for verb, t in [("barks", 1), ("meows", 0), ("moos", 2)]],
    [{"input": "Which animal quacks?", "target": 2, "target_options": ["cat", "dog", "duck"]}],
)  # fmt: skip
SEQUENCE_LABELING = (
    [{"input": i, "target": t} for i, t in [(["Mary", "runs"], ["B-PER", "O"]), (["Paris", "is", "big"],
                                            ["B-LOC", "O", "O"]), (["Ann", "sings"], ["B-PER", "O"])]],
    [{"input": ["John", "lives", "in", "Rome"], "target": ["B-PER", "O", "O", "B-LOC"]}],
)  # fmt: skip
CUSTOM = PromptBuilderConfig(
    instruction_zero_shot="Answer the question.\n",
    instruction_few_shot="Answer the question, as in the examples.\n\n",
    input_prefix="Question: ",
    output_prefix="\nAnswer:",
    choices_prefix="\nOptions:",
    choice_item_prefix=" (",
    choice_item_postfix=")",
    few_shot_example_separator="\n###\n",
)


def _prompts(task_type: str, rows: tuple[list[dict[str, Any]], list[dict[str, Any]]], shots: list[int],
             builder: PromptBuilderConfig | None = None) -> dict[int, dict[str, Any]]:  # fmt: skip
    import datasets  # not at collection (tests/heavy_imports.py)

    splits = {"train": datasets.Dataset.from_list(rows[0]), "test": datasets.Dataset.from_list(rows[1])}
    built = build_prompt_datasets(
        splits, task_type=task_type, prompt_builder=builder or PromptBuilderConfig(), shot_list=shots, random_seed=42
    )
    return {n: built[n][0] for n in shots}


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_prompts_of_the_page_are_the_prompts_genbench_builds() -> None:
    text = PAGE.read_text(encoding="utf-8")
    shown = [ast.literal_eval(line[1:-1]) for line in text.splitlines() if re.fullmatch(r"`'.*'`", line)]
    free_form = _prompts("free_form", FREE_FORM, [0, 2])
    multiple_choice = _prompts("multiple_choice", MULTIPLE_CHOICE, [0, 2])
    custom = _prompts("multiple_choice", MULTIPLE_CHOICE, [0, 1], CUSTOM)
    labeling = _prompts("sequence_labeling", SEQUENCE_LABELING, [0, 2])
    built = [free_form[0], free_form[2], multiple_choice[0], multiple_choice[2], custom[1], labeling[0], labeling[2]]
    assert shown == [prompt["input"] for prompt in built]
    # the shots the page says were drawn, and its printed blocks (the custom 0-shot prompt is shown printed only)
    assert free_form[2]["_genbench_shot_ids"] == [2, 0] and custom[1]["_genbench_shot_ids"] == [1]
    blocks = re.findall(r"```text\n(.*?)```", text, flags=re.DOTALL)
    assert custom[0]["input"] + "\n" in blocks
    assert all(prompt["input"] + "\n" in blocks for prompt in built)
