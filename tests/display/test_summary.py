"""The task summary of ``show-task``: the light (``datasets``-free) path gives what the task's own methods give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from genbench import Task, TaskConfig, load_task
from genbench._core.errors import ConfigError, PreparationError
from genbench._registry.listing import task_records
from genbench.display._summary import config_summary, example_prompts, light_splits, split_sizes
from tests.shipped_tasks import shipped_task_ids


def _leaf_task_ids() -> list[str]:
    """The shipped tasks, a TaskDict as its subtasks (``id:sub``), from the registry listing (one batch of configs)."""
    shipped = set(shipped_task_ids())
    leaves = []
    for record in task_records():
        if record["id"] in shipped:
            leaves += [f"{record['id']}:{sub}" for sub in record["subtasks"]] or [record["id"]]
    return leaves


def _task(task_dir: Path, config: dict, files: dict[str, list[dict]], extra: dict[str, str] | None = None) -> Task:
    task_dir.mkdir(parents=True, exist_ok=True)
    tmp_path = task_dir
    for name, rows in files.items():
        (tmp_path / name).write_text("".join(json.dumps(row) + "\n" for row in rows))
    for name, text in (extra or {}).items():
        (tmp_path / name).write_text(text)
    (tmp_path / "config.jsonnet").write_text(json.dumps(config))
    return Task(TaskConfig.from_jsonnet(jsonnet_path=tmp_path / "config.jsonnet"), "summary_task", task_dir=tmp_path)


def _config(**fields) -> dict:
    return {
        "name": "Summary",
        "description": "A task for the summary tests.",
        "keywords": ["k"],
        "authors": ["a"],
        "data_source": {"type": "manual", "train": "train.jsonl", "test": "test.jsonl"},
        "has_train_set": True,
        "task_type": "free_form",
        "evaluation_metrics": [{"hf_id": "exact_match", "best_score": 1.0}],
        "preparation_strategies": {"prompt_based_testing": {"prompt_builder": {"instruction_few_shot": "Go.\n"}}},
        **fields,
    }


def _assert_same_splits(task: Task) -> None:
    light = light_splits(task)
    assert light is not None
    full = {split: dataset.with_format("arrow")[:] for split, dataset in task.get_datasets_raw().items()}
    assert list(light) == list(full)
    for split, table in light.items():
        assert table.schema == full[split].schema, split
        assert table.equals(full[split]), split


@pytest.mark.parametrize("task_id", _leaf_task_ids())
def test_light_path_gives_what_the_task_gives(task_id):
    task = load_task(task_id)
    reference = load_task(task_id)  # a fresh object: the full path, with datasets
    splits = light_splits(task)
    if splits is None:  # a task.py that formats its own examples: only its methods can say
        assert type(task).format_example is not Task.format_example
    else:
        _assert_same_splits(task)
    assert split_sizes(task, splits) == {split: len(ds) for split, ds in reference.get_datasets_raw().items()}
    for shots, seed in ((0, 42), (2, 7)):
        assert example_prompts(task, shots, seed, splits=splits) == example_prompts(
            reference, shots, seed, splits=None
        )


def test_full_path_prompts_are_those_of_get_prepared_datasets():
    from genbench._core.vocabulary import PreparationStrategy

    task = load_task("arithmetic_length")
    prompts = example_prompts(task, 3, 5, splits=None)
    prepared = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0, 3], random_seed=5)
    assert [p["input"] for p in prompts] == [prepared[0][0]["input"], prepared[3][0]["input"]]
    assert [p["target"] for p in prompts] == [prepared[0][0]["target"], prepared[3][0]["target"]]
    assert "shots from the 'train' split" in prompts[1]["description"]


def test_light_path_over_a_split_file_mixing_sources_with_the_same_columns(tmp_path):
    rows = [{"question": f"q{i}", "answer": 1, "options": ["a", "b"]} for i in range(4)]
    split_file = "{ train: ['train:0', 'test:1'], test: ['test:0', 'train:1', 'test:0'], extra: [] }"
    config = _config(
        split_file="split.jsonnet",
        task_type="multiple_choice",
        field_mapping={"input": "question", "target": "answer", "target_options": "options"},
        evaluation_metrics=[{"hf_id": "accuracy"}],
        preparation_strategies={"prompt_based_testing": {"prompt_builder": {"permute_choices": True}}},
    )
    task = _task(tmp_path, config, {"train.jsonl": rows[:2], "test.jsonl": rows[2:]}, {"split.jsonnet": split_file})
    _assert_same_splits(task)
    assert split_sizes(task) == {"train": 2, "test": 3, "extra": 0}
    reference = Task(task.config, "summary_task", task_dir=tmp_path)
    assert example_prompts(task, 1, 3) == example_prompts(reference, 1, 3, splits=None)


def test_split_file_mixing_sources_with_different_columns_takes_the_full_path(tmp_path):
    # int and float targets: datasets reconciles the features, which plain tables cannot do alike
    files = {
        "train.jsonl": [{"input": "a", "target": "1", "n": 1}],
        "test.jsonl": [{"input": "b", "target": "2", "n": 0.5}],
    }
    task = _task(
        tmp_path, _config(split_file="split.jsonnet"), files, {"split.jsonnet": "{ test: ['train:0', 'test:0'] }"}
    )
    assert light_splits(task) is None
    assert split_sizes(task) == {"test": 2}
    assert example_prompts(task, 0)[0]["input"] == "Q: a\nA: "


def test_sequence_labeling_and_field_mapping(tmp_path):
    rows = [{"tokens": ["New", "York"], "tags": ["B-LOC", "I-LOC"]}, {"tokens": ["Ann"], "tags": ["B-PER"]}]
    config = _config(
        task_type="sequence_labeling",
        field_mapping={"input": "tokens", "target": "tags"},
        evaluation_metrics=[{"hf_id": "seqeval"}],
    )
    task = _task(tmp_path, config, {"train.jsonl": rows, "test.jsonl": rows[::-1]})
    _assert_same_splits(task)
    prompts = example_prompts(task, 1)
    assert prompts[0]["input"] == "Q: Ann\nA: " and prompts[0]["target"] == "B-PER"
    assert prompts[1]["input"] == "Go.\nQ: New York\nA: B-LOC,I-LOC\n\nQ: Ann\nA: "


def test_a_task_formatting_its_own_prompts_keeps_its_formatter(tmp_path):
    class Shouting(Task):
        def _format_example_for_in_context_learning(self, example, random_seed):
            return {"formatted_input": example["input"].upper() + " = ", "formatted_target": example["target"]}

    rows = [{"input": "one", "target": "1"}, {"input": "two", "target": "2"}]
    task = _task(tmp_path, _config(), {"train.jsonl": rows, "test.jsonl": rows})
    shouting = Shouting(task.config, "summary_task", task_dir=tmp_path)
    assert light_splits(shouting) is not None
    zero_shot, one_shot = (p["input"] for p in example_prompts(shouting, 1))
    assert zero_shot == "ONE = "
    assert one_shot in ("Go.\nONE = 1\n\nONE = ", "Go.\nTWO = 2\n\nONE = ")
    assert example_prompts(shouting, 1) == example_prompts(shouting, 1, splits=None)


def test_tasks_that_load_their_own_data_take_the_full_path(tmp_path):
    class OwnData(Task):
        def get_datasets_raw(self):
            from datasets import Dataset

            return {"test": Dataset.from_dict({"input": ["mine"], "target": ["x"], "_genbench_idx": [0]})}

    task = _task(tmp_path, _config(), {"train.jsonl": [{"input": "a", "target": "b"}], "test.jsonl": []})
    own = OwnData(task.config, "summary_task", task_dir=tmp_path)
    assert light_splits(own) is None
    assert split_sizes(own) == {"test": 1}
    assert example_prompts(own, 0)[0]["input"] == "Q: mine\nA: "


def test_errors_are_the_tasks_own(tmp_path):
    task = _task(
        tmp_path,
        _config(field_mapping={"input": "question", "target": "answer"}),
        {"train.jsonl": [{"q": 1}], "test.jsonl": [{"q": 2}]},
    )
    with pytest.raises(PreparationError, match="has no such column: field_mapping.input names 'question'"):
        light_splits(task)
    rows = {"train.jsonl": [{"input": "a", "target": "b"}], "test.jsonl": [{"input": "a", "target": "b"}]}
    bad = _task(tmp_path / "bad", _config(split_file="split.jsonnet"), rows, {"split.jsonnet": "{ test: ['test:5'] }"})
    with pytest.raises(ConfigError, match="index 5 is out of range for split 'test'"):
        light_splits(bad)


def test_config_summary_rows():
    rows = dict(config_summary(load_task("category_membership").config))
    assert rows["Data source"] == "manual: train data/train.jsonl, test data/test.jsonl (re-split by split.jsonnet)"
    assert rows["Field mapping"] == "input <- question, target <- answer, target_options <- options"
