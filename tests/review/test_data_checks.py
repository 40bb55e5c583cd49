"""Checks of a task's data: each on a task broken on purpose, with its exact message."""

from __future__ import annotations

import pytest

from genbench import load_task
from genbench.review.checks import (
    TaskCheckFailure,
    TaskCheckSkipped,
    TaskCheckWarning,
    check_data_loads,
    check_declared_splits,
    check_example_types,
    check_no_duplicates,
    check_no_iterable_dataset,
    check_split_file,
    check_test_overlap,
)

FREE_TRAIN = [{"input": f"{a} + 1", "target": str(a + 1)} for a in range(10)]
FREE_TEST = [{"input": f"{a} + 2", "target": str(a + 2)} for a in range(10)]

MC_CONFIG_CHANGES = {
    "task_type": "multiple_choice",
    "evaluation_metrics": [{"hf_id": "accuracy", "best_score": 1.0}],
}
MC_TRAIN = [{"input": f"q{i}", "target": i % 2, "target_options": ["yes", "no"]} for i in range(6)]
MC_TEST = [{"input": f"t{i}", "target": 1, "target_options": ["yes", "no"]} for i in range(6)]

SL_CONFIG_CHANGES = {
    "task_type": "sequence_labeling",
    "evaluation_metrics": [{"hf_id": "seqeval", "best_score": 1.0}],
}


def custom_task(body: str) -> str:
    return "from genbench import Task\n\n\nclass TinyTask(Task):\n" + body


# --------------------------------------------------------------------------------------------------- split_file
def test_split_file_is_skipped_without_one(make_task):
    make_task()
    with pytest.raises(TaskCheckSkipped, match="^the config has no split_file$"):
        check_split_file(load_task("tiny"))


def test_split_file_that_does_not_exist(make_task, task_config):
    task_dir = make_task(config=task_config(split_file="split.jsonnet"))
    with pytest.raises(TaskCheckFailure) as info:
        check_split_file(load_task("tiny"))
    assert str(info.value) == (
        f"config.jsonnet sets split_file: 'split.jsonnet', but {task_dir / 'split.jsonnet'} does not exist. Add the "
        "file, fix the name, or remove split_file to keep the data source's own splits."
    )


def test_split_file_that_is_malformed(make_task, task_config):
    make_task(config=task_config(split_file="split.jsonnet"), files={"split.jsonnet": "{train: ['train-0']}"})
    with pytest.raises(TaskCheckFailure) as info:
        check_split_file(load_task("tiny"))
    message = str(info.value)
    assert message.startswith("split.jsonnet is invalid:\n")
    assert "train[0]" in message
    assert message.endswith(
        "It must be an object mapping split names to lists of 'split:index' strings, e.g. "
        "{train: ['train:0', 'test:4'], test: ['test:1']}."
    )


def test_split_file_entries_that_do_not_resolve_are_all_listed(make_task, task_config):
    task_dir = make_task(
        config=task_config(split_file="split.jsonnet"),
        files={"split.jsonnet": "{train: ['train:0', 'train:99'], test: ['test:0', 'nosuch:1']}"},
    )
    with pytest.raises(TaskCheckFailure) as info:
        check_split_file(load_task("tiny"))
    file = task_dir / "split.jsonnet"
    assert str(info.value) == (
        "split.jsonnet has entries that name no example of the data source (2 problems):\n"
        f"{file}: test[1]: unknown source split 'nosuch'; the data source has train (10 examples), "
        "test (10 examples)\n"
        f"{file}: train[1]: index 99 is out of range for split 'train', which has 10 examples (indices 0-9)\n"
        "Indices count from 0 within each source split."
    )


def test_valid_split_file_passes(make_task, task_config):
    make_task(
        config=task_config(split_file="split.jsonnet"),
        files={"split.jsonnet": "{train: ['train:%d' % i for i in std.range(0, 9)], test: ['test:0', 'test:1']}"},
    )
    check_split_file(load_task("tiny"))


# --------------------------------------------------------------------------------------------------- data_loads
def test_data_loads_reports_the_task_code_line(make_task):
    make_task(task_py=custom_task("    def format_example(self, example):\n        return {'input': example['q']}\n"))
    with pytest.raises(TaskCheckFailure) as info:
        check_data_loads(load_task("tiny"))
    assert str(info.value) == (
        "Loading the task's data failed: KeyError: 'q' (at task.py:6)\n"
        "Check data_source (paths are relative to the task directory), field_mapping and split_file in "
        "config.jsonnet, and format_example / get_datasets_raw if task.py overrides them."
    )


def test_data_loads_wants_a_mapping(make_task):
    make_task(task_py=custom_task("    def get_datasets_raw(self):\n        return [1, 2]\n"))
    with pytest.raises(TaskCheckFailure) as info:
        check_data_loads(load_task("tiny"))
    assert str(info.value) == (
        "get_datasets_raw() returned a list ([1, 2]), expected a dict mapping split names ('train', 'validation', "
        "'test') to datasets.Dataset objects."
    )


# ---------------------------------------------------------------------------------------------- declared_splits
def test_declared_splits_a_split_file_adds_an_undeclared_validation_split(make_task, task_config):
    make_task(
        config=task_config(split_file="split.jsonnet"),
        files={"split.jsonnet": "{train: ['train:0', 'train:1'], validation: ['train:2'], test: ['test:0']}"},
    )
    with pytest.raises(TaskCheckFailure) as info:
        check_declared_splits(load_task("tiny"))
    assert str(info.value) == (
        "The task's splits do not match its config (splits: train (2 examples), validation (1 example), "
        "test (1 example)):\n"
        "  - there is a validation split (1 example) but has_validation_set is false (its default) in config.jsonnet: "
        "set has_validation_set: true, or remove the validation data"
    )


def test_declared_splits_no_test_split_and_a_declared_validation_split_missing(make_task, task_config):
    make_task(
        config=task_config(split_file="split.jsonnet"),
        task_py=custom_task(
            "    def get_datasets_raw(self):\n"
            "        raw = super().get_datasets_raw()\n"
            "        return {'train': raw['train'], 'test_hard': raw['test']}\n"
        ),
        files={"split.jsonnet": "{train: ['train:0'], test: ['test:0']}"},
    )
    task = load_task("tiny")
    task.config.has_validation_set = True  # a config the schema would refuse, to reach the check's own rule
    with pytest.raises(TaskCheckFailure) as info:
        check_declared_splits(task)
    assert str(info.value) == (
        "The task's splits do not match its config (splits: train (1 example), test_hard (1 example)):\n"
        "  - there is no test split: every task needs one (data_source.test in config.jsonnet, or a `test` list in "
        "the split file)\n"
        "  - has_validation_set is true in config.jsonnet but there is no validation split: add "
        "data_source.validation (or a `validation` list in the split file), or set has_validation_set: false"
    )


def test_declared_splits_warn_about_extra_splits(make_task, task_config):
    make_task(
        config=task_config(split_file="split.jsonnet"),
        files={"split.jsonnet": "{train: ['train:0'], test: ['test:0'], test_hard: ['test:1']}"},
    )
    with pytest.warns(TaskCheckWarning) as record:
        check_declared_splits(load_task("tiny"))
    assert str(record[0].message) == (
        "Split 'test_hard' is not train, validation or test: finetuning returns it as is, but prompt-based testing "
        "uses only the test split."
    )


def test_declared_splits_an_empty_split(make_task, task_config):
    make_task(task_py=custom_task(
        "    def get_datasets_raw(self):\n"
        "        raw = super().get_datasets_raw()\n"
        "        return {'train': raw['train'], 'test': raw['test'].select([])}\n"
    ))  # fmt: skip
    with pytest.raises(TaskCheckFailure, match=r"  - the test split is empty: add examples or remove the split$"):
        check_declared_splits(load_task("tiny"))


# ------------------------------------------------------------------------------------------ no_iterable_dataset
def test_iterable_datasets_are_refused(make_task):
    make_task(task_py=custom_task(
        "    def get_datasets_raw(self):\n"
        "        return {k: v.to_iterable_dataset() for k, v in super().get_datasets_raw().items()}\n"
    ))  # fmt: skip
    with pytest.raises(TaskCheckFailure) as info:
        check_no_iterable_dataset(load_task("tiny"))
    assert str(info.value) == (
        "Every split must be a datasets.Dataset:\n"
        "  - the train split is a datasets.IterableDataset (a streamed dataset)\n"
        "  - the test split is a datasets.IterableDataset (a streamed dataset)\n"
        "Do not load the data with streaming=True; turn an IterableDataset into a Dataset with "
        "`Dataset.from_generator(lambda: (yield from iterable_dataset))`."
    )


def test_other_split_types_are_refused(make_task):
    make_task(task_py=custom_task(
        "    def get_datasets_raw(self):\n        return {'test': [{'input': 'a', 'target': 'b'}]}\n"
    ))  # fmt: skip
    with pytest.raises(TaskCheckFailure, match=r"  - the test split is a list\n"):
        check_no_iterable_dataset(load_task("tiny"))


# ------------------------------------------------------------------------------------------------ example_types
FREE_FORM_SPEC = "Examples do not match the task type 'free_form' (input a str and target a str):\n"
FIX_HINT = "\nFix the data, or the field_mapping / format_example that builds input and target."


def test_free_form_targets_must_be_strings(make_task):
    make_task(
        task_py=custom_task(
            "    def format_example(self, example):\n"
            "        return {'input': example['input'], 'target': len(example['target'])}\n"
        )
    )
    with pytest.raises(TaskCheckFailure) as info:
        check_example_types(load_task("tiny"))
    assert str(info.value) == (
        FREE_FORM_SPEC
        + "  - train split, example _genbench_idx 0: target is an int (1), expected a str (write numbers as text, "
        "e.g. '42'); 10 of 10 examples in train have a problem\n"
        "  - test split, example _genbench_idx 0: target is an int (1), expected a str (write numbers as text, "
        "e.g. '42'); 10 of 10 examples in test have a problem" + FIX_HINT
    )


def test_multiple_choice_target_out_of_its_options(make_task, task_config):
    test = [dict(row) for row in MC_TEST]
    test[3]["target"] = 2
    make_task(config=task_config(**MC_CONFIG_CHANGES), rows={"train": MC_TRAIN, "test": test})
    with pytest.raises(TaskCheckFailure) as info:
        check_example_types(load_task("tiny"))
    assert str(info.value) == (
        "Examples do not match the task type 'multiple_choice' (input a str, target an int index into the example's "
        "target_options (a list of str)):\n"
        "  - test split, example _genbench_idx 3: target is 2, but the example has 2 options (valid: 0..1); 1 of 6 "
        "examples in test has a problem" + FIX_HINT
    )


def test_multiple_choice_with_prompts_needs_target_options(make_task, task_config):
    rows = {split: [{"input": r["input"], "target": r["target"]} for r in data] for split, data in
            (("train", MC_TRAIN), ("test", MC_TEST))}  # fmt: skip
    make_task(config=task_config(**MC_CONFIG_CHANGES), rows=rows)
    with pytest.raises(TaskCheckFailure) as info:
        check_example_types(load_task("tiny"))
    assert (
        "  - the train split has no target_options column: prompts of a multiple_choice task list the options, so "
        "map target_options in field_mapping (or return it from format_example)\n"
    ) in str(info.value)


def test_multiple_choice_without_prompts_may_omit_target_options(make_task, task_config):
    rows = {split: [{"input": r["input"], "target": r["target"]} for r in data] for split, data in
            (("train", MC_TRAIN), ("test", MC_TEST))}  # fmt: skip
    finetuning_only = {"finetuning": {"objective": "maximum_likelihood"}}
    make_task(config=task_config(**MC_CONFIG_CHANGES, preparation_strategies=finetuning_only), rows=rows)
    check_example_types(load_task("tiny"))


def test_sequence_labeling_lengths_must_match(make_task, task_config):
    train = [{"input": ["a", "b"], "target": ["O", "O"]}, {"input": ["c"], "target": ["O"]}]
    test = [{"input": ["x", "y"], "target": ["O", "B-PER"]}, {"input": ["x", "z"], "target": ["O"]}]
    make_task(config=task_config(**SL_CONFIG_CHANGES), rows={"train": train, "test": test})
    with pytest.raises(TaskCheckFailure) as info:
        check_example_types(load_task("tiny"))
    assert str(info.value) == (
        "Examples do not match the task type 'sequence_labeling' (input a list of str (tokens) and target a list of "
        "str (labels) of the same length):\n"
        "  - test split, example _genbench_idx 1: input has 2 tokens but target has 1 label; 1 of 2 examples in test "
        "has a problem" + FIX_HINT
    )


def test_sequence_labeling_input_must_be_tokens(make_task, task_config):
    rows = {"train": [{"input": "a b", "target": ["O", "O"]}], "test": [{"input": "x y", "target": ["O", "O"]}]}
    make_task(config=task_config(**SL_CONFIG_CHANGES), rows=rows)
    with pytest.raises(TaskCheckFailure, match=r"input is a str \('a b'\), expected a list of str \(the tokens\)"):
        check_example_types(load_task("tiny"))


# ------------------------------------------------------------------------------------------------ no_duplicates
def test_duplicates_in_the_test_split_fail(make_task):
    make_task(rows={"train": FREE_TRAIN, "test": FREE_TEST + [FREE_TEST[3]]})
    with pytest.raises(TaskCheckFailure) as info:
        check_no_duplicates(load_task("tiny"))
    assert str(info.value) == (
        "Duplicate examples:\n"
        "  - test split: example _genbench_idx 10 repeats example _genbench_idx 3 (input '3 + 2'); 1 repeated example "
        "in test\n"
        "A repeated test example counts twice in every score: remove the repeats from the data (or the repeated "
        "entries from the split file)."
    )


def test_duplicates_in_the_train_split_only_warn(make_task):
    make_task(rows={"train": FREE_TRAIN + [FREE_TRAIN[0], FREE_TRAIN[0]], "test": FREE_TEST})
    with pytest.warns(TaskCheckWarning) as record:
        check_no_duplicates(load_task("tiny"))
    assert str(record[0].message) == (
        "Duplicate training examples:\n"
        "  - train split: example _genbench_idx 10 repeats example _genbench_idx 0 (input '0 + 1'); 2 repeated "
        "examples in train\n"
        "Repeats weigh those examples more in training; remove them unless that is intended."
    )


def test_same_input_with_another_target_is_no_duplicate(make_task):
    make_task(rows={"train": FREE_TRAIN, "test": FREE_TEST + [{"input": "3 + 2", "target": "6"}]})
    check_no_duplicates(load_task("tiny"))


# ------------------------------------------------------------------------------------------------- test_overlap
def test_test_inputs_seen_in_training_are_named_with_both_ids(make_task):
    make_task(rows={"train": FREE_TRAIN, "test": FREE_TEST + [{"input": "3 + 1", "target": "5"}]})
    with pytest.raises(TaskCheckFailure) as info:
        check_test_overlap(load_task("tiny"))
    assert str(info.value) == (
        "1 test example of 11 also occurs in the train or validation split:\n"
        "  - test example _genbench_idx 10 has the input of train example _genbench_idx 3 ('3 + 1')\n"
        "A model may have seen these in training, so they cannot measure generalisation: remove them from one of "
        "the splits."
    )


def test_test_overlap_lists_five_and_counts_all(make_task):
    make_task(rows={"train": FREE_TRAIN, "test": FREE_TRAIN[:7]})
    with pytest.raises(TaskCheckFailure) as info:
        check_test_overlap(load_task("tiny"))
    message = str(info.value)
    assert message.startswith("7 test examples of 7 also occur in the train or validation split:\n")
    assert "  ... and 2 more\n" in message


def test_multiple_choice_overlap_counts_the_options(make_task, task_config):
    test = [{"input": "q0", "target": 0, "target_options": ["red", "blue"]}]
    make_task(config=task_config(**MC_CONFIG_CHANGES), rows={"train": MC_TRAIN, "test": test})
    check_test_overlap(load_task("tiny"))  # the same question with other options is another example


def test_test_overlap_is_skipped_without_training_data(make_task, task_config):
    test_only = task_config(
        has_train_set=False,
        data_source={"type": "manual", "test": "test.jsonl"},
        preparation_strategies={"prompt_based_testing": {"prompt_builder": {}}},
    )
    make_task(config=test_only, rows={"test": FREE_TEST})
    with pytest.raises(TaskCheckSkipped, match="^the task has no train or validation split$"):
        check_test_overlap(load_task("tiny"))
