"""Prompt datasets: exact prompts per task type, shot sources and guarantees, columns and types, errors."""

from __future__ import annotations

import logging
import random
from typing import TYPE_CHECKING

import numpy as np
import pytest

from genbench._core.errors import PreparationError
from genbench._core.vocabulary import DatasetSplit, TaskType
from genbench.config._schema import PromptBuilderConfig
from genbench.prompting import build_prompt_datasets, sample_shot_ids
from genbench.prompting._counter_rng import DOMAIN_PERMUTE_CHOICES, hash64

if TYPE_CHECKING:
    from datasets import Dataset

DEFAULT = PromptBuilderConfig()


# datasets is imported inside the helpers and tests, not at the top: importing it slows down collecting the suite.
def string_type():
    from datasets import Value

    return Value("string")


def int64_list_type():
    import datasets

    int64 = datasets.Value("int64")
    return datasets.List(int64) if hasattr(datasets, "List") else datasets.Sequence(int64)


def ds(**columns) -> Dataset:
    from datasets import Dataset

    return Dataset.from_dict(columns)


def free_form(inputs: list[str], targets: list[str], start: int = 0) -> Dataset:
    return ds(input=inputs, target=targets, _genbench_idx=list(range(start, start + len(inputs))))


def build(splits, task_type="free_form", prompt_builder=DEFAULT, shot_list=(0,), **kwargs):
    return build_prompt_datasets(
        splits, task_type=task_type, prompt_builder=prompt_builder, shot_list=list(shot_list), **kwargs
    )


def column(dataset: Dataset, name: str) -> list:
    return dataset.to_dict()[name]


def numbers_task(n_train: int = 30, n_test: int = 40) -> dict[str, Dataset]:
    return {
        "train": free_form([f"{i}+1" for i in range(n_train)], [str(i + 1) for i in range(n_train)]),
        "test": free_form([f"{i}+2" for i in range(n_test)], [str(i + 2) for i in range(n_test)]),
    }


class TestFreeFormPrompts:
    @staticmethod
    def splits() -> dict[str, Dataset]:
        return {"train": free_form(["1+1"], ["2"]), "test": free_form(["2+2"], ["4"])}

    CUSTOM = PromptBuilderConfig(
        instruction_zero_shot="Add the numbers.\n",
        instruction_few_shot="Add the numbers, as in the examples.\n\n",
        input_prefix="In: ",
        output_prefix="\nOut: ",
        few_shot_example_separator="\n---\n",
    )

    def test_default_zero_and_one_shot(self):
        prompts = build(self.splits(), shot_list=[0, 1])
        assert column(prompts[0], "input") == ["Q: 2+2\nA: "]
        assert column(prompts[1], "input") == ["Q: 1+1\nA: 2\n\nQ: 2+2\nA: "]
        assert column(prompts[0], "target") == column(prompts[1], "target") == ["4"]

    def test_custom_zero_and_one_shot(self):
        prompts = build(self.splits(), prompt_builder=self.CUSTOM, shot_list=[0, 1])
        assert column(prompts[0], "input") == ["Add the numbers.\nIn: 2+2\nOut: "]
        assert column(prompts[1], "input") == [
            "Add the numbers, as in the examples.\n\nIn: 1+1\nOut: 2\n---\nIn: 2+2\nOut: "
        ]

    def test_two_shots_in_sampled_order(self):
        splits = {"train": free_form(["1+1", "1+2"], ["2", "3"]), "test": free_form(["2+2"], ["4"])}
        prompt = build(splits, prompt_builder=self.CUSTOM, shot_list=[2])[2]
        shot_text = {0: "In: 1+1\nOut: 2", 1: "In: 1+2\nOut: 3"}
        first, second = column(prompt, "_genbench_shot_ids")[0]
        instruction = "Add the numbers, as in the examples.\n\n"
        expected = f"{instruction}{shot_text[first]}\n---\n{shot_text[second]}\n---\nIn: 2+2\nOut: "
        assert column(prompt, "input") == [expected]
        assert sorted([first, second]) == [0, 1]


class TestMultipleChoicePrompts:
    @staticmethod
    def splits() -> dict[str, Dataset]:
        return {
            "train": ds(input=["Is grass green?"], target=[0], target_options=[["yes", "no"]], _genbench_idx=[0]),
            "test": ds(input=["Is the sky blue?"], target=[1], target_options=[["no", "yes"]], _genbench_idx=[0]),
        }

    def test_default_zero_and_one_shot(self):
        prompts = build(self.splits(), "multiple_choice", shot_list=[0, 1])
        query = "Q: Is the sky blue?\nchoices: \n- no\n- yes\n\nA: "
        assert column(prompts[0], "input") == [query]
        assert column(prompts[1], "input") == ["Q: Is grass green?\nchoices: \n- yes\n- no\n\nA: yes\n\n" + query]
        assert column(prompts[1], "target") == ["yes"]
        assert column(prompts[1], "original_target") == [1]
        assert column(prompts[1], "target_options") == [["no", "yes"]]

    def test_custom_options(self):
        pb = PromptBuilderConfig(
            instruction_zero_shot="Answer.\n",
            instruction_few_shot="Answer like the examples.\n",
            input_prefix="",
            output_prefix="\nAnswer:",
            choices_prefix="\nOptions:",
            choice_item_prefix=" [",
            choice_item_postfix="]",
            few_shot_example_separator="\n###\n",
        )
        prompts = build(self.splits(), "multiple_choice", pb, shot_list=[0, 1])
        assert column(prompts[0], "input") == ["Answer.\nIs the sky blue?\nOptions: [no] [yes]\nAnswer:"]
        assert column(prompts[1], "input") == [
            "Answer like the examples.\nIs grass green?\nOptions: [yes] [no]\nAnswer:yes"
            "\n###\nIs the sky blue?\nOptions: [no] [yes]\nAnswer:"
        ]

    def test_no_choices_in_input(self):
        pb = PromptBuilderConfig(append_choices_to_input=False)
        prompts = build(self.splits(), "multiple_choice", pb, shot_list=[1])
        assert column(prompts[1], "input") == ["Q: Is grass green?\nA: yes\n\nQ: Is the sky blue?\nA: "]


class TestSequenceLabelingPrompts:
    @staticmethod
    def splits() -> dict[str, Dataset]:
        return {
            "train": ds(input=[["Mary", "runs"]], target=[["B-PER", "O"]], _genbench_idx=[0]),
            "test": ds(input=[["John", "lives", "here"]], target=[["B-PER", "O", "O"]], _genbench_idx=[0]),
        }

    def test_default_zero_and_one_shot(self):
        prompts = build(self.splits(), "sequence_labeling", shot_list=[0, 1])
        assert column(prompts[0], "input") == ["Q: John lives here\nA: "]
        assert column(prompts[1], "input") == ["Q: Mary runs\nA: B-PER,O\n\nQ: John lives here\nA: "]
        assert column(prompts[1], "target") == ["B-PER,O,O"]
        assert column(prompts[1], "original_input") == [["John", "lives", "here"]]

    def test_custom_options(self):
        pb = PromptBuilderConfig(
            instruction_zero_shot="Tag each word.\n",
            instruction_few_shot="Tag each word, as shown.\n",
            sequence_labeling_separator=" ",
            input_prefix="Sentence: ",
            output_prefix="\nTags: ",
            few_shot_example_separator="\n",
        )
        prompts = build(self.splits(), "sequence_labeling", pb, shot_list=[0, 1])
        assert column(prompts[0], "input") == ["Tag each word.\nSentence: John lives here\nTags: "]
        assert column(prompts[1], "input") == [
            "Tag each word, as shown.\nSentence: Mary runs\nTags: B-PER O\nSentence: John lives here\nTags: "
        ]
        assert column(prompts[1], "target") == ["B-PER O O"]


def reference_prompts(splits, pb: PromptBuilderConfig, k: int, seed: int, pool_name: str) -> list[str]:
    """A plain per-row implementation of the documented prompt shape, using the same shot ids and permutations."""

    def formatted(row):
        text = pb.input_prefix + row["input"]
        options = row["target_options"]
        if pb.append_choices_to_input:
            if pb.permute_choices:
                keys = hash64(DOMAIN_PERMUTE_CHOICES, seed, row["_genbench_idx"], np.arange(len(options)))
                options = [options[i] for i in np.argsort(keys, kind="stable")]
            text += pb.choices_prefix + "".join(pb.choice_item_prefix + o + pb.choice_item_postfix for o in options)
        return text + pb.output_prefix, row["target_options"][row["target"]]

    test = splits["test"].to_list()
    pool = splits[pool_name].to_list()
    if k == 0:
        return [pb.instruction_zero_shot + formatted(row)[0] for row in test]
    shot_ids = sample_shot_ids(np.array([r["_genbench_idx"] for r in test]), len(pool), k, seed, False)
    prompts = []
    for row, ids in zip(test, shot_ids.tolist(), strict=True):
        shots = [formatted(pool[i])[0] + formatted(pool[i])[1] for i in ids]
        prompts.append(
            pb.instruction_few_shot
            + pb.few_shot_example_separator.join(shots)
            + pb.few_shot_example_separator
            + formatted(row)[0]
        )
    return prompts


class TestAgainstReference:
    @pytest.mark.parametrize("permute", [False, True])
    def test_random_multiple_choice_task(self, permute):
        rng = random.Random(0)
        words = ["red", "green", "blue", "sky", "tree", "river", "stone", "cloud"]

        def split(n):
            options = [[" ".join(rng.choices(words, k=2)) for _ in range(rng.randint(1, 5))] for _ in range(n)]
            return ds(
                input=[" ".join(rng.choices(words, k=rng.randint(0, 8))) for _ in range(n)],
                target=[rng.randrange(len(o)) for o in options],
                target_options=options,
                _genbench_idx=list(range(n)),
            )

        splits = {"train": split(60), "test": split(80)}
        pb = PromptBuilderConfig(
            permute_choices=permute, instruction_few_shot="Few:\n", instruction_zero_shot="Zero:\n"
        )
        prompts = build(splits, "multiple_choice", pb, shot_list=[0, 3, 7], random_seed=11)
        for k in (0, 3, 7):
            assert column(prompts[k], "input") == reference_prompts(splits, pb, k, 11, "train")


class TestColumns:
    def test_free_form(self):
        from datasets import Features, Value

        prompts = build(numbers_task(), shot_list=[0, 5])
        assert prompts[0].column_names == ["input", "target", "original_input", "original_target", "_genbench_idx"]
        assert prompts[5].column_names == prompts[0].column_names + ["_genbench_shot_ids"]
        assert prompts[5].features == Features(
            {
                "input": string_type(),
                "target": string_type(),
                "original_input": string_type(),
                "original_target": string_type(),
                "_genbench_idx": Value("int64"),
                "_genbench_shot_ids": int64_list_type(),
            }
        )
        assert column(prompts[5], "_genbench_idx") == list(range(40))

    def test_multiple_choice_keeps_source_features(self):
        import datasets
        from datasets import ClassLabel, Dataset, Features, Value

        features = Features(
            {
                "input": string_type(),
                "target": ClassLabel(names=["a", "b"]),
                "target_options": datasets.Sequence(string_type()),
                "_genbench_idx": Value("int32"),
            }
        )
        rows = {"input": ["x", "y"], "target": [0, 1], "target_options": [["a", "b"]] * 2, "_genbench_idx": [0, 1]}
        splits = {
            "train": Dataset.from_dict(rows, features=features),
            "test": Dataset.from_dict(rows, features=features),
        }
        prompts = build(splits, "multiple_choice", shot_list=[0, 1])
        for k in (0, 1):
            assert prompts[k].column_names[:6] == [
                "input",
                "target",
                "original_input",
                "original_target",
                "target_options",
                "_genbench_idx",
            ]
            assert prompts[k].features["original_target"] == ClassLabel(names=["a", "b"])
            assert prompts[k].features["target_options"] == features["target_options"]
            assert prompts[k].features["_genbench_idx"] == Value("int64")
            assert column(prompts[k], "target") == ["a", "b"]

    def test_sequence_labeling_types(self):
        prompts = build(TestSequenceLabelingPrompts.splits(), "sequence_labeling", shot_list=[1])
        assert prompts[1].features["original_input"] == TestSequenceLabelingPrompts.splits()["test"].features["input"]
        assert prompts[1].features["target"] == string_type()

    def test_other_test_columns_pass_through(self):
        splits = numbers_task()
        splits["test"] = splits["test"].add_column("difficulty", [i % 3 for i in range(40)])
        prompts = build(splits, shot_list=[0, 2])
        assert prompts[2].column_names[-1] == "difficulty"
        assert column(prompts[2], "difficulty") == [i % 3 for i in range(40)]

    def test_description_and_no_cache_files(self):
        prompts = build(numbers_task(), shot_list=[0, 3], random_seed=7)
        assert prompts[0].info.description == "genbench prompts: 0-shot, queries from the 'test' split, random_seed=7"
        assert "shots from the 'train' split" in prompts[3].info.description
        assert prompts[0].cache_files == [] and prompts[3].cache_files == []

    def test_empty_test_split(self):
        splits = numbers_task()
        splits["test"] = splits["test"].select([])
        prompts = build(splits, shot_list=[0, 2])
        assert len(prompts[0]) == len(prompts[2]) == 0
        assert prompts[2].features["input"] == string_type()
        assert prompts[2].features["_genbench_shot_ids"] == int64_list_type()

    def test_selected_test_rows(self):
        splits = numbers_task()
        splits["test"] = splits["test"].select([7, 3])
        prompts = build(splits, shot_list=[0])
        assert column(prompts[0], "_genbench_idx") == [7, 3]
        assert column(prompts[0], "input") == ["Q: 7+2\nA: ", "Q: 3+2\nA: "]

    def test_enum_split_keys(self):
        splits = {DatasetSplit.TRAIN: free_form(["1+1"], ["2"]), DatasetSplit.TEST: free_form(["2+2"], ["4"])}
        assert column(build(splits, shot_list=[1])[1], "input") == ["Q: 1+1\nA: 2\n\nQ: 2+2\nA: "]


class TestShots:
    def test_exactly_k_from_train(self):
        splits = numbers_task()
        splits["train"] = free_form([f"{i}+1" for i in range(30)], [str(i + 1) for i in range(30)], start=1000)
        prompts = build(splits, shot_list=[1, 5, 30])
        for k in (1, 5, 30):
            for prompt, ids in zip(column(prompts[k], "input"), column(prompts[k], "_genbench_shot_ids"), strict=True):
                assert len(ids) == len(set(ids)) == k
                assert all(1000 <= i < 1030 for i in ids)
                assert prompt.count("Q: ") == k + 1
                assert [f"Q: {i - 1000}+1\nA: {i - 999}" in prompt for i in ids] == [True] * k

    @pytest.mark.parametrize("train", [None, []])
    def test_from_validation(self, train, caplog):
        splits = numbers_task()
        splits["validation"] = free_form(["5+5", "6+6", "7+7"], ["10", "12", "14"])
        if train is None:
            del splits["train"]
        else:
            splits["train"] = free_form([], [])
        with caplog.at_level(logging.WARNING, logger="genbench.prompting"):
            prompts = build(splits, shot_list=[2])
        assert "'validation'" in caplog.text
        assert "shots from the 'validation' split" in prompts[2].info.description
        for prompt in column(prompts[2], "input"):
            assert prompt.count("Q: ") == 3 and sum(f"Q: {n}+{n}" in prompt for n in (5, 6, 7)) == 2

    def test_from_test_never_the_query(self, caplog):
        n = 300
        splits = {"test": free_form(["same question"] * n, ["same answer"] * n)}  # identical rows: ties everywhere
        with caplog.at_level(logging.WARNING, logger="genbench.prompting"):
            prompts = build(splits, shot_list=[1, 5, n - 1])
        assert "'test'" in caplog.text
        assert "each query excluded from its own shots" in prompts[5].info.description
        for k in (1, 5, n - 1):
            rows = prompts[k].to_dict()
            for idx, ids, prompt in zip(rows["_genbench_idx"], rows["_genbench_shot_ids"], rows["input"], strict=True):
                assert len(set(ids)) == k and idx not in ids
                assert prompt.count("Q: same question") == k + 1

    def test_from_test_with_unordered_ids(self):
        """Exclusion goes by row, so it holds even when _genbench_idx is not 0..n-1 in order."""
        splits = {"test": ds(input=list("abcd"), target=list("ABCD"), _genbench_idx=[30, 10, 40, 20])}
        prompt = build(splits, shot_list=[3])[3].to_dict()
        for idx, ids in zip(prompt["_genbench_idx"], prompt["_genbench_shot_ids"], strict=True):
            assert sorted(ids) == sorted({10, 20, 30, 40} - {idx})

    def test_pool_too_small(self):
        splits = {"train": free_form(["a", "b", "c"], ["1", "2", "3"]), "test": free_form(["d"], ["4"])}
        with pytest.raises(PreparationError, match=r"5-shot .* the 'train' split has only 3 examples"):
            build(splits, shot_list=[0, 5])

    def test_test_pool_too_small(self):
        with pytest.raises(PreparationError, match=r"only 2 are available: the 'test' split has 3 examples"):
            build({"test": free_form(["a", "b", "c"], ["1", "2", "3"])}, shot_list=[3])

    def test_deterministic(self):
        first = {k: d.to_dict() for k, d in build(numbers_task(), shot_list=[0, 3], random_seed=5).items()}
        second = {k: d.to_dict() for k, d in build(numbers_task(), shot_list=[0, 3], random_seed=5).items()}
        assert first == second

    def test_seeds_differ(self):
        a = column(build(numbers_task(), shot_list=[3], random_seed=1)[3], "_genbench_shot_ids")
        b = column(build(numbers_task(), shot_list=[3], random_seed=2)[3], "_genbench_shot_ids")
        assert sum(x != y for x, y in zip(a, b, strict=True)) > 30

    def test_independent_of_other_queries(self):
        full = build(numbers_task(), shot_list=[4])[4].to_dict()
        splits = numbers_task()
        keep = [0, 9, 13, 38]
        splits["test"] = splits["test"].select(keep)
        part = build(splits, shot_list=[4])[4].to_dict()
        assert part["_genbench_shot_ids"] == [full["_genbench_shot_ids"][i] for i in keep]
        assert part["input"] == [full["input"][i] for i in keep]

    def test_queries_get_different_shots(self):
        ids = column(build(numbers_task(), shot_list=[3])[3], "_genbench_shot_ids")
        assert len({tuple(sorted(i)) for i in ids}) > 30


class TestShotList:
    @pytest.mark.parametrize("bad", [[-1], [True], ["1"], [1.0], "01", 3, None])
    def test_rejected(self, bad):
        with pytest.raises(PreparationError, match="shot_list"):
            build_prompt_datasets(numbers_task(), task_type="free_form", prompt_builder=DEFAULT, shot_list=bad)

    def test_duplicates_built_once_in_order(self):
        prompts = build(numbers_task(), shot_list=[2, 0, 2, np.int64(1)])
        assert list(prompts) == [2, 0, 1]

    def test_empty(self):
        assert build(numbers_task(), shot_list=[]) == {}

    def test_tuple_and_range(self):
        assert list(build(numbers_task(), shot_list=range(3))) == [0, 1, 2]


class TestErrors:
    def test_no_test_split(self):
        with pytest.raises(PreparationError, match="needs a test split"):
            build({"train": free_form(["a"], ["b"])})

    def test_bad_pool_example_names_its_split(self):
        splits = numbers_task()
        splits["train"] = ds(input=["a", "b"], target=["1", None], _genbench_idx=[0, 1])
        with pytest.raises(PreparationError, match=r"split 'train', example _genbench_idx=1: 'target' is missing"):
            build(splits, shot_list=[1])

    def test_bad_pool_not_read_for_zero_shot(self):
        splits = numbers_task()
        splits["train"] = ds(input=["a"], target=[1], _genbench_idx=[0])
        assert len(build(splits, shot_list=[0])[0]) == 40

    def test_bad_test_example(self):
        splits = {"test": ds(input=[["a", "b"]], target=[["X"]], _genbench_idx=[6])}
        with pytest.raises(PreparationError, match=r"split 'test', example _genbench_idx=6: 2 input tokens"):
            build(splits, TaskType.SEQUENCE_LABELING)
