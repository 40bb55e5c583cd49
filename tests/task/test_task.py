"""The Task facade end to end on generated data, including tasks written in the original framework's style."""

from __future__ import annotations

import importlib.util
import inspect
import json
from pathlib import Path
from random import Random

import pytest

from genbench import Task, TaskConfig
from genbench._core.errors import PreparationError
from genbench._core.vocabulary import PreparationStrategy


def random_string(length: int, rng: Random) -> str:
    import string

    return "".join(rng.choice(string.ascii_letters + " ") for _ in range(length))


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def original_style_config(data_file: Path) -> dict:
    # The config of the original framework's tests/test_task_impl.py.
    return {
        "name": "Free Form Test Task",
        "description": "A test task for free form text.",
        "keywords": ["free form", "text"],
        "authors": ["GenBench team"],
        "data_source": {"type": "manual", "test": data_file.absolute().as_uri()},
        "has_validation_set": False,
        "has_train_set": False,
        "task_type": "free_form",
        "free_form_output_regex": ".*",
        "evaluation_metrics": [
            {"hf_id": "exact_match", "git_commit_sha": "758135da6a37ce962b7bc38c6dd5eab672d2b742", "best_score": 1.0}
        ],
        "preparation_strategies": {
            "prompt_based_testing": {
                "prompt_builder": {
                    "instruction_zero_shot": "Add two numbers together\n\n",
                    "instruction_few_shot": "Add two numbers together. Here are some examples: \n\n",
                    "input_prefix": "Q: ",
                    "output_prefix": "\nA: ",
                },
            },
        },
    }


def load_original_style(task_dir: Path, task_id: str) -> Task:
    """The original test suite's loader: spec_from_file_location + the first Task subclass found."""
    config = TaskConfig.from_jsonnet(jsonnet_path=task_dir / "config.jsonnet")
    spec = importlib.util.spec_from_file_location("task", str(task_dir / "task.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    task_class = next(
        obj for _, obj in inspect.getmembers(module) if inspect.isclass(obj) and issubclass(obj, Task) and obj != Task
    )
    task = task_class(config, task_id)
    task.dataset_format_num_proc = 1
    return task


def make_original_task(tmp_path: Path, rows: list[dict], **config_changes) -> Task:
    data_file = tmp_path / "data.jsonl"
    write_jsonl(data_file, rows)
    config = original_style_config(data_file)
    config.update(config_changes)
    (tmp_path / "config.jsonnet").write_text(json.dumps(config))
    (tmp_path / "__init__.py").touch()
    (tmp_path / "task.py").write_text("from genbench import Task\n\n\nclass FreeFormTask(Task):\n\tpass\n")
    return load_original_style(tmp_path, "free_form_task")


def addition_rows(n: int) -> list[dict]:
    rng = Random(42)
    rows = []
    for _ in range(n):
        a, b = rng.randint(0, 100), rng.randint(0, 100)
        rows.append({"input": f"{a} + {b}", "target": str(a + b)})
    return rows


def test_original_free_form_task_unchanged(tmp_path):
    rows = addition_rows(50)
    task = make_original_task(tmp_path, rows)
    builder = task.config.preparation_strategies.prompt_based_testing.prompt_builder
    ds = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0], random_seed=42)[0]
    assert len(ds) == 50
    for original, example in zip(rows, ds, strict=True):
        expected = builder.instruction_zero_shot + builder.input_prefix + original["input"] + builder.output_prefix
        assert example["input"] == expected
        assert example["target"] == original["target"]
        assert example["original_input"] == original["input"] and example["original_target"] == original["target"]
    predictions = [{"target": f"{r['target']} {random_string(10, Random(42))}"} for r in rows[:25]]
    predictions += [{"target": r["target"]} for r in rows[25:]]
    result = task.evaluate_predictions(predictions=predictions, gold=ds)
    assert result["hf_exact_match__exact_match"] == 0.5


def test_original_multiple_choice_task_unchanged(tmp_path):
    rng = Random(42)
    rows = []
    for _ in range(50):
        options = [random_string(rng.randint(20, 100), rng) for _ in range(4)]
        rows.append(
            {"input": random_string(rng.randint(20, 100), rng), "target": rng.randint(0, 3), "target_options": options}
        )
    task = make_original_task(
        tmp_path,
        rows,
        task_type="multiple_choice",
        free_form_output_regex=None,
        evaluation_metrics=[
            {"hf_id": "accuracy", "git_commit_sha": "34d6add55811828baef83e0d7c6826e2193f7b6a", "best_score": 1.0}
        ],
    )
    builder = task.config.preparation_strategies.prompt_based_testing.prompt_builder
    ds = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0], random_seed=42)[0]
    for original, example in zip(rows, ds, strict=True):
        choices = "".join(
            f"{builder.choice_item_prefix}{c}{builder.choice_item_postfix}" for c in original["target_options"]
        )
        expected = (
            builder.instruction_zero_shot
            + builder.input_prefix
            + original["input"]
            + builder.choices_prefix
            + choices
            + builder.output_prefix
        )
        assert example["input"] == expected
        assert example["target"] == original["target_options"][original["target"]]
    predictions = [{"target": next(i for i in range(4) if i != r["target"])} for r in rows[:25]]
    predictions += [{"target": r["target"]} for r in rows[25:]]
    assert task.evaluate_predictions(predictions=predictions, gold=ds)["hf_accuracy__accuracy"] == 0.5
    # Option strings work too, and an answer that is not an option is a miss, not a crash.
    as_text = [{"target": r["target_options"][r["target"]]} for r in rows[:49]] + [{"target": "not an option"}]
    assert task.evaluate_predictions(predictions=as_text, gold=ds)["hf_accuracy__accuracy"] == pytest.approx(49 / 50)


def test_few_shot_prompts_have_exactly_k_shots_and_never_the_query(tmp_path):
    task = make_original_task(tmp_path, addition_rows(30))
    prompts = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0, 4], random_seed=1)
    assert set(prompts) == {0, 4}
    builder = task.config.prompt_builder
    for example in prompts[4]:
        shots = example["_genbench_shot_ids"]
        assert len(shots) == 4 and len(set(shots)) == 4 and example["_genbench_idx"] not in shots
        assert example["input"].startswith(builder.instruction_few_shot)
        assert example["input"].endswith(builder.input_prefix + example["original_input"] + builder.output_prefix)
        assert example["input"].count(builder.output_prefix) == 5


def test_prompts_are_deterministic_per_seed(tmp_path):
    task = make_original_task(tmp_path, addition_rows(30))
    first = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[3], random_seed=7)[3]
    again = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[3], random_seed=7)[3]
    other = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[3], random_seed=8)[3]
    assert list(first["input"]) == list(again["input"]) and list(first["input"]) != list(other["input"])


def test_unsupported_strategy_and_missing_shot_list_are_clear_errors(tmp_path):
    task = make_original_task(tmp_path, addition_rows(5))
    with pytest.raises(PreparationError, match="does not support finetuning"):
        task.get_prepared_datasets(PreparationStrategy.FINETUNING)
    with pytest.raises(PreparationError, match="shot_list"):
        task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING)


def make_registry_task(root: Path, task_id: str, config: dict, files: dict[str, str], task_py: str) -> Path:
    task_dir = root / task_id
    task_dir.mkdir(parents=True)
    (task_dir / "__init__.py").touch()
    (task_dir / "config.jsonnet").write_text(json.dumps(config))
    (task_dir / "task.py").write_text(task_py)
    for name, text in files.items():
        (task_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (task_dir / name).write_text(text)
    return task_dir


MC_CONFIG = {
    "name": "Mapped",
    "description": "Field mapping, split file and finetuning.",
    "keywords": ["k"],
    "authors": ["A"],
    "data_source": {"type": "manual", "test": "data/test.jsonl", "train": "data/train.jsonl"},
    "has_train_set": True,
    "has_validation_set": True,
    "split_file": "split.jsonnet",
    "task_type": "multiple_choice",
    "field_mapping": {"input": "question", "target": "answer", "target_options": "options"},
    "evaluation_metrics": [{"hf_id": "accuracy", "best_score": 1.0}],
    "preparation_strategies": {"finetuning": {"objective": "maximum_likelihood"}, "prompt_based_testing": {}},
}


def mc_rows(prefix: str, n: int) -> str:
    return "".join(
        json.dumps({"question": f"{prefix} {i}?", "answer": i % 2, "options": ["no", "yes"], "extra": i}) + "\n"
        for i in range(n)
    )


def test_field_mapping_split_file_and_finetuning(task_root):
    from genbench import load_task

    split = "{train: ['train:0', 'train:1', 'test:0'], validation: ['train:2'], test: ['test:1', 'test:2', 'train:3']}"
    make_registry_task(
        task_root,
        "mapped",
        MC_CONFIG,
        {"data/train.jsonl": mc_rows("tr", 4), "data/test.jsonl": mc_rows("te", 3), "split.jsonnet": split},
        "from genbench import Task\n\nclass MappedTask(Task):\n    pass\n",
    )
    task = load_task("mapped")
    splits = task.get_prepared_datasets(PreparationStrategy.FINETUNING)
    assert list(splits) == ["train", "validation", "test"] or set(splits) == {"train", "validation", "test"}
    test = splits["test"]
    assert list(test["input"]) == ["te 1?", "te 2?", "tr 3?"]
    assert list(test["target"]) == [1, 0, 1] and list(test["_genbench_idx"]) == [0, 1, 2]
    assert list(test["target_options"])[0] == ["no", "yes"]
    assert list(splits["validation"]["input"]) == ["tr 2?"]
    assert task.get_datasets_raw()["test"] is task.get_datasets_raw()["test"]  # loaded once per task object
    prompts = task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[2])[2]
    for example in prompts:
        assert len(example["_genbench_shot_ids"]) == 2 and set(example["_genbench_shot_ids"]) <= {0, 1, 2}


def test_format_example_override_runs_per_example(task_root):
    from genbench import load_task

    config = dict(MC_CONFIG, field_mapping=None, split_file=None, has_validation_set=False)
    task_py = (
        "from genbench import Task\n\n"
        "class Custom(Task):\n"
        "    def format_example(self, example):\n"
        "        return {'input': example['question'].upper(), 'target': example['answer'],\n"
        "                'target_options': example['options']}\n"
    )
    make_registry_task(
        task_root,
        "custom",
        config,
        {"data/train.jsonl": mc_rows("tr", 2), "data/test.jsonl": mc_rows("te", 2)},
        task_py,
    )
    test = load_task("custom").get_datasets_raw()["test"]
    assert list(test["input"]) == ["TE 0?", "TE 1?"] and list(test["_genbench_idx"]) == [0, 1]


def test_missing_input_column_is_a_clear_error(task_root):
    from genbench import load_task

    config = dict(MC_CONFIG, field_mapping=None, split_file=None, has_validation_set=False)
    make_registry_task(
        task_root,
        "unmapped",
        config,
        {"data/train.jsonl": mc_rows("tr", 2), "data/test.jsonl": mc_rows("te", 2)},
        "from genbench import Task\n\nclass T(Task):\n    pass\n",
    )
    with pytest.raises(PreparationError, match="formatted examples lack input, target"):
        load_task("unmapped").get_datasets_raw()


def test_field_mapping_to_a_missing_column_names_it(task_root):
    from genbench import load_task

    config = dict(
        MC_CONFIG, split_file=None, has_validation_set=False, field_mapping={"input": "q", "target": "answer"}
    )
    make_registry_task(
        task_root,
        "badmap",
        config,
        {"data/train.jsonl": mc_rows("tr", 2), "data/test.jsonl": mc_rows("te", 2)},
        "from genbench import Task\n\nclass T(Task):\n    pass\n",
    )
    with pytest.raises(PreparationError, match="field_mapping.input names 'q'"):
        load_task("badmap").get_datasets_raw()


def test_original_in_context_formatter_override_is_honoured(tmp_path):
    rows = addition_rows(12)
    task = make_original_task(tmp_path, rows)
    default = task._format_example_for_in_context_learning({"input": "1 + 2", "target": "3"}, 42)
    assert default == {"formatted_input": "Q: 1 + 2\nA: ", "formatted_target": "3"}

    class Shouting(type(task)):
        def _format_example_for_in_context_learning(self, example, random_seed):
            return {"formatted_input": f"<{example['input']}> = ", "formatted_target": example["target"] + "!"}

    shouting = Shouting(task.config, "shouting", task_dir=tmp_path)
    prompts = shouting.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0, 2])
    first = prompts[0][0]
    assert first["input"] == f"Add two numbers together\n\n<{rows[0]['input']}> = "
    assert first["target"] == rows[0]["target"] + "!"
    few = prompts[2][0]["input"]
    assert few.count("> = ") == 3 and few.count("!") == 2
