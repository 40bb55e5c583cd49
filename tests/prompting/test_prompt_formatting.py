"""Formatted inputs and targets of single examples, for every task type, and the errors for bad examples."""

from __future__ import annotations

import logging
import re

import pyarrow as pa
import pytest

from genbench._core.errors import PreparationError
from genbench._core.vocabulary import TaskType
from genbench.config._schema import PromptBuilderConfig
from genbench.prompting import format_examples

DEFAULT = PromptBuilderConfig()
CUSTOM = PromptBuilderConfig(
    input_prefix="Question: ",
    output_prefix=" => ",
    choices_prefix=" Options:",
    choice_item_prefix=" (",
    choice_item_postfix=")",
    sequence_labeling_separator=" | ",
)


def fmt(columns, task_type, prompt_builder=DEFAULT, **kwargs):
    formatted = format_examples(columns, task_type=task_type, prompt_builder=prompt_builder, **kwargs)
    return formatted.inputs.to_pylist(), formatted.targets.to_pylist()


def mc_rows(n: int, options=("alpha", "beta", "gamma", "delta", "epsilon")):
    return {
        "input": [f"q{i}" for i in range(n)],
        "target": [i % len(options) for i in range(n)],
        "target_options": [list(options)] * n,
        "_genbench_idx": list(range(n)),
    }


def listed_options(prompt: str) -> list[str]:
    """The options of a default-formatted multiple-choice prompt, in listed order."""
    block = prompt.split("\nchoices: \n", 1)[1].rsplit("\nA: ", 1)[0]
    return re.findall(r"^- (.*)$", block, flags=re.M)


class TestFreeForm:
    def test_default_options(self):
        inputs, targets = fmt({"input": ["2+2", "3+5"], "target": ["4", "8"], "_genbench_idx": [0, 1]}, "free_form")
        assert inputs == ["Q: 2+2\nA: ", "Q: 3+5\nA: "]
        assert targets == ["4", "8"]

    def test_custom_options(self):
        inputs, targets = fmt({"input": ["2+2"], "target": ["4"], "_genbench_idx": [0]}, "free_form", CUSTOM)
        assert inputs == ["Question: 2+2 => "]
        assert targets == ["4"]

    def test_accepts_enum_and_keeps_unicode(self):
        inputs, targets = fmt({"input": ["ça va?"], "target": ["oui"], "_genbench_idx": [0]}, TaskType.FREE_FORM)
        assert inputs == ["Q: ça va?\nA: "]
        assert targets == ["oui"]


class TestMultipleChoice:
    ROW = {"input": ["Is the sky blue?"], "target": [0], "target_options": [["yes", "no"]], "_genbench_idx": [0]}

    def test_default_options(self):
        inputs, targets = fmt(self.ROW, "multiple_choice")
        assert inputs == ["Q: Is the sky blue?\nchoices: \n- yes\n- no\n\nA: "]
        assert targets == ["yes"]

    def test_custom_options(self):
        inputs, targets = fmt(self.ROW, "multiple_choice", CUSTOM)
        assert inputs == ["Question: Is the sky blue? Options: (yes) (no) => "]
        assert targets == ["yes"]

    def test_without_choices_in_input(self):
        inputs, targets = fmt(self.ROW, "multiple_choice", PromptBuilderConfig(append_choices_to_input=False))
        assert inputs == ["Q: Is the sky blue?\nA: "]
        assert targets == ["yes"]

    def test_target_is_option_text_per_row(self):
        rows = {
            "input": ["a", "b", "c"],
            "target": [2, 0, 1],
            "target_options": [["x", "y", "z"], ["only"], ["p", "q"]],
            "_genbench_idx": [0, 1, 2],
        }
        inputs, targets = fmt(rows, "multiple_choice")
        assert targets == ["z", "only", "q"]
        assert inputs[1] == "Q: b\nchoices: \n- only\n\nA: "


class TestSequenceLabeling:
    ROW = {"input": [["John", "lives", "here"]], "target": [["B-PER", "O", "O"]], "_genbench_idx": [0]}

    def test_default_options(self):
        inputs, targets = fmt(self.ROW, "sequence_labeling")
        assert inputs == ["Q: John lives here\nA: "]
        assert targets == ["B-PER,O,O"]

    def test_custom_options(self):
        inputs, targets = fmt(self.ROW, "sequence_labeling", CUSTOM)
        assert inputs == ["Question: John lives here => "]
        assert targets == ["B-PER | O | O"]

    def test_empty_sentence(self):
        inputs, targets = fmt({"input": [[]], "target": [[]], "_genbench_idx": [0]}, "sequence_labeling")
        assert inputs == ["Q: \nA: "]
        assert targets == [""]


class TestPermuteChoices:
    PERMUTE = PromptBuilderConfig(permute_choices=True)

    def test_deterministic_permutation_and_target_unchanged(self):
        rows = mc_rows(200)
        first_inputs, first_targets = fmt(rows, "multiple_choice", self.PERMUTE, random_seed=3)
        again_inputs, again_targets = fmt(rows, "multiple_choice", self.PERMUTE, random_seed=3)
        assert (first_inputs, first_targets) == (again_inputs, again_targets)
        options = rows["target_options"][0]
        for i, prompt in enumerate(first_inputs):
            assert sorted(listed_options(prompt)) == sorted(options)  # a true permutation
            assert first_targets[i] == options[rows["target"][i]]  # target is still the correct option's text

    def test_differs_across_examples_and_seeds(self):
        rows = mc_rows(200)
        by_seed = {seed: fmt(rows, "multiple_choice", self.PERMUTE, random_seed=seed)[0] for seed in (1, 2)}
        orders = {tuple(listed_options(p)) for p in by_seed[1]}
        assert len(orders) > 50  # 120 possible orders of 5 options; 200 examples should show many
        assert by_seed[1] != by_seed[2]
        assert sum(a != b for a, b in zip(by_seed[1], by_seed[2], strict=True)) > 150

    def test_depends_on_example_id_not_on_other_rows(self):
        rows = mc_rows(50)
        full = fmt(rows, "multiple_choice", self.PERMUTE)[0]
        keep = [3, 17, 42]
        subset = {name: [values[i] for i in keep] for name, values in rows.items()}
        assert fmt(subset, "multiple_choice", self.PERMUTE)[0] == [full[i] for i in keep]

    def test_not_all_identity(self):
        rows = mc_rows(100)
        plain = fmt(rows, "multiple_choice")[0]
        permuted = fmt(rows, "multiple_choice", self.PERMUTE)[0]
        assert sum(a != b for a, b in zip(plain, permuted, strict=True)) > 90

    def test_varying_option_counts(self):
        rows = {
            "input": ["a", "b", "c"],
            "target": [0, 0, 1],
            "target_options": [["x"], ["k", "l"], ["p", "q", "r"]],
            "_genbench_idx": [0, 1, 2],
        }
        inputs, targets = fmt(rows, "multiple_choice", self.PERMUTE)
        assert inputs[0] == "Q: a\nchoices: \n- x\n\nA: "
        assert sorted(listed_options(inputs[1])) == ["k", "l"]
        assert sorted(listed_options(inputs[2])) == ["p", "q", "r"]
        assert targets == ["x", "k", "q"]


class TestInputs:
    def test_dataset_with_indices_mapping(self):
        from datasets import Dataset

        ds = Dataset.from_dict({"input": ["a", "b", "c"], "target": ["1", "2", "3"], "_genbench_idx": [0, 1, 2]})
        formatted = format_examples(ds.select([2, 0]), task_type="free_form", prompt_builder=DEFAULT)
        assert formatted.inputs.to_pylist() == ["Q: c\nA: ", "Q: a\nA: "]
        assert formatted.ids.tolist() == [2, 0]
        assert len(formatted) == 2

    def test_arrow_table(self):
        table = pa.table({"input": ["a"], "target": ["1"], "_genbench_idx": [5]})
        formatted = format_examples(table, task_type="free_form", prompt_builder=DEFAULT, split="validation")
        assert formatted.split == "validation"
        assert formatted.ids.tolist() == [5]

    def test_missing_ids_use_positions(self, caplog):
        with caplog.at_level(logging.WARNING, logger="genbench.prompting"):
            formatted = format_examples(
                {"input": ["a", "b"], "target": ["1", "2"]}, task_type="free_form", prompt_builder=DEFAULT
            )
        assert formatted.ids.tolist() == [0, 1]
        assert "_genbench_idx" in caplog.text

    def test_reranking_has_no_prompts(self):
        with pytest.raises(PreparationError, match="reranking tasks are scored from candidate scores"):
            format_examples(
                {"input": [], "target": [], "_genbench_idx": []}, task_type="reranking", prompt_builder=DEFAULT
            )

    @pytest.mark.parametrize("task_type", [t for t in TaskType if t is not TaskType.RERANKING])
    def test_empty_split(self, task_type):
        formatted = format_examples(
            {"input": [], "target": [], "target_options": [], "_genbench_idx": []},
            task_type=task_type,
            prompt_builder=DEFAULT,
        )
        assert len(formatted) == 0
        assert formatted.inputs.type == pa.string() and formatted.targets.type == pa.string()

    def test_large_string_and_fixed_size_lists(self):
        table = pa.table(
            {
                "input": pa.array([["a", "b"]], pa.list_(pa.large_string(), 2)),
                "target": pa.array([["X", "Y"]], pa.large_list(pa.string())),
                "_genbench_idx": pa.array([0], pa.int32()),
            }
        )
        assert fmt(table, "sequence_labeling") == (["Q: a b\nA: "], ["X,Y"])


class TestBadExamples:
    """Every bad example raises PreparationError naming the split and the example's _genbench_idx."""

    @staticmethod
    def raises(columns, task_type, match, split="train"):
        with pytest.raises(PreparationError, match=match) as info:
            format_examples(columns, task_type=task_type, prompt_builder=DEFAULT, split=split)
        assert f"split '{split}'" in str(info.value)
        return str(info.value)

    def test_multiple_choice_target_out_of_range(self):
        rows = mc_rows(3, options=("a", "b"))
        rows["target"] = [0, 1, 2]
        rows["_genbench_idx"] = [10, 11, 12]
        message = self.raises(rows, "multiple_choice", "out of range")
        assert "_genbench_idx=12" in message and "2 target_options" in message

    def test_multiple_choice_negative_target(self):
        rows = mc_rows(3)
        rows["target"][1] = -1
        assert "_genbench_idx=1" in self.raises(rows, "multiple_choice", "target -1 is out of range")

    def test_multiple_choice_target_not_int(self):
        rows = mc_rows(2)
        rows["target"] = ["alpha", "beta"]
        message = self.raises(rows, "multiple_choice", "integer index")
        assert "_genbench_idx=0" in message and "'alpha'" in message

    def test_multiple_choice_float_target(self):
        rows = mc_rows(2)
        rows["target"] = [0.0, 1.0]
        self.raises(rows, "multiple_choice", "integer index")

    def test_multiple_choice_missing_options_column(self):
        rows = mc_rows(2)
        del rows["target_options"]
        self.raises(rows, "multiple_choice", "no 'target_options' column")

    def test_multiple_choice_null_options(self):
        rows = mc_rows(3)
        rows["target_options"][2] = None
        assert "_genbench_idx=2" in self.raises(rows, "multiple_choice", "'target_options' is missing")

    def test_multiple_choice_null_option_item(self):
        rows = mc_rows(3)
        rows["target_options"] = [["a", "b"], ["a", None], ["a", "b"]]
        rows["target"] = [0, 0, 0]
        assert "_genbench_idx=1" in self.raises(rows, "multiple_choice", "null item")

    def test_multiple_choice_null_target(self):
        rows = mc_rows(3)
        rows["target"][1] = None
        assert "_genbench_idx=1" in self.raises(rows, "multiple_choice", "'target' is missing")

    def test_sequence_labeling_length_mismatch(self):
        rows = {"input": [["a", "b"], ["c", "d"]], "target": [["X", "Y"], ["Z"]], "_genbench_idx": [4, 9]}
        message = self.raises(rows, "sequence_labeling", "2 input tokens but 1 target labels")
        assert "_genbench_idx=9" in message

    def test_sequence_labeling_string_input(self):
        rows = {"input": ["a b"], "target": [["X", "Y"]], "_genbench_idx": [3]}
        message = self.raises(rows, "sequence_labeling", "list of token strings")
        assert "_genbench_idx=3" in message

    def test_sequence_labeling_int_labels(self):
        self.raises({"input": [["a"]], "target": [[1]], "_genbench_idx": [0]}, "sequence_labeling", "label strings")

    def test_free_form_int_target(self):
        self.raises({"input": ["1+1"], "target": [2], "_genbench_idx": [0]}, "free_form", "'target' must be a string")

    def test_free_form_null_input(self):
        rows = {"input": ["a", None], "target": ["1", "2"], "_genbench_idx": [0, 1]}
        assert "_genbench_idx=1" in self.raises(rows, "free_form", "'input' is missing", split="test")

    def test_missing_input_column(self):
        self.raises({"target": ["1"], "_genbench_idx": [0]}, "free_form", "no 'input' column")

    def test_bad_ids(self):
        self.raises({"input": ["a"], "target": ["1"], "_genbench_idx": ["x"]}, "free_form", "must hold integers")

    def test_unknown_task_type(self):
        with pytest.raises(ValueError):
            format_examples({"input": ["a"], "target": ["b"]}, task_type="essay", prompt_builder=DEFAULT)
