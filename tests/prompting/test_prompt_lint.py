"""The prompt lint: glued words, doubled separators, a choices prefix repeating the item prefix, empty parts."""

from __future__ import annotations

import pytest

from genbench._core.vocabulary import TaskType
from genbench.config._schema import PromptBuilderConfig
from genbench.prompting._builder import build_prompts
from genbench.prompting._prompt_lint import SAMPLE_INPUTS, SHOT_INPUTS, lint_prompt_builder, prompt_pieces, visible
from tests.shipped_tasks import shipped_task_ids


def _found(pb: PromptBuilderConfig, task_type: str = "free_form") -> list[tuple[str, str]]:
    return [(lint.field, lint.excerpt) for lint in lint_prompt_builder(pb, task_type)]


def test_the_guides_flat_sample_glues_words() -> None:
    pb = PromptBuilderConfig(
        instruction_zero_shot="Add two numbers together", instruction_few_shot="Add two numbers together",
        input_prefix="Q: ", output_prefix="A: ",
    )  # fmt: skip
    findings = lint_prompt_builder(pb, "free_form")
    assert [(f.field, f.excerpt) for f in findings] == [
        ("instruction_zero_shot", "togetherQ:"),
        ("output_prefix", "6A:"),
        ("instruction_few_shot", "togetherQ:"),
    ]
    assert findings[0].prompt == "Add two numbers togetherQ: 612 + 6A:·"  # the trailing space made visible
    assert findings[2].shots == 1 and findings[2].prompt.startswith("Add two numbers togetherQ: 35 + 78A: 113↵↵")
    message = findings[1].message()
    assert message.startswith("preparation_strategies.prompt_based_testing.prompt_builder.output_prefix: ")
    assert "start output_prefix with a space or a newline" in message


def test_the_guides_choices_prefix_repeats_an_item_label() -> None:
    (finding,) = lint_prompt_builder(PromptBuilderConfig(choices_prefix="\n choice: "), "multiple_choice")
    assert finding.field == "choices_prefix" and finding.excerpt == "·choice: - froid"
    assert "'choice:'" in finding.problem and "end choices_prefix with a newline" in finding.problem
    (marker,) = lint_prompt_builder(PromptBuilderConfig(choices_prefix="\nchoices: - "), "multiple_choice")
    assert marker.field == "choices_prefix" and "ends with the item prefix '- '" in marker.problem


@pytest.mark.parametrize(
    ("options", "field", "excerpt"),
    [
        ({"input_prefix": "Q:  "}, "input_prefix", "Q:··612"),
        ({"few_shot_example_separator": "\n\n\n"}, "few_shot_example_separator", "113↵↵↵Q:"),
        ({"few_shot_example_separator": ""}, "few_shot_example_separator", "113Q:"),
        ({"input_prefix": "Question"}, "input_prefix", "Question612"),
        ({"output_prefix": "\nA:"}, "output_prefix", "A:113"),
    ],
)
def test_doubled_and_missing_separators(options: dict, field: str, excerpt: str) -> None:
    assert (field, excerpt) in _found(PromptBuilderConfig(**options))


def test_options_glued_by_empty_item_parts() -> None:
    pb = PromptBuilderConfig(choice_item_prefix="", choice_item_postfix="")
    assert ("choice_item_postfix", "froidchaud") in _found(pb, "multiple_choice")


def test_empty_prompt_parts() -> None:
    assert ("output_prefix", "6") in _found(PromptBuilderConfig(output_prefix=""))
    fields = [f for f, _ in _found(PromptBuilderConfig(instruction_zero_shot="Add.\n"))]
    assert fields == ["instruction_few_shot"]


@pytest.mark.parametrize("task_type", ["free_form", "multiple_choice", "sequence_labeling"])
def test_the_defaults_are_clean_and_reranking_has_no_prompts(task_type: str) -> None:
    assert lint_prompt_builder(PromptBuilderConfig(), task_type) == []
    assert lint_prompt_builder(PromptBuilderConfig(output_prefix=""), "reranking") == []


def test_the_shipped_tasks_are_clean() -> None:
    from genbench import load_task
    from genbench.task import Task

    for task_id in shipped_task_ids():
        loaded = load_task(task_id)
        tasks = [loaded] if isinstance(loaded, Task) else list(loaded.values())
        for task in tasks:
            assert lint_prompt_builder(task.config.prompt_builder, task.config.task_type) == [], task.task_id


@pytest.mark.parametrize("task_type", ["free_form", "multiple_choice", "sequence_labeling"])
def test_the_pieces_are_the_prompt_the_builder_builds(task_type: str) -> None:
    import pyarrow as pa

    kind = TaskType(task_type)
    pb = PromptBuilderConfig(instruction_zero_shot="Zero.\n", instruction_few_shot="Few.\n", choices_prefix="\nC:\n")

    def table(sample: tuple) -> pa.Table:
        text, target, options = sample
        if kind is TaskType.SEQUENCE_LABELING:
            return pa.table({"input": [text.split()], "target": [target.split(",")], "_genbench_idx": [0]})
        columns = {"input": [text], "target": [target], "_genbench_idx": [0]}
        if options:
            columns["target"] = [list(options).index(target)]
            columns["target_options"] = [list(options)]
        return pa.table(columns)

    splits = {"train": table(SHOT_INPUTS[kind]), "test": table(SAMPLE_INPUTS[kind])}
    built = build_prompts(splits, task_type=kind, prompt_builder=pb, shot_list=[0, 1])
    for shots in (0, 1):
        assert built[shots].inputs.to_pylist() == ["".join(text for _, text in prompt_pieces(pb, kind, shots))]


def test_visible_whitespace() -> None:
    assert visible("a  b\n\tc ") == "a··b↵→c·"
