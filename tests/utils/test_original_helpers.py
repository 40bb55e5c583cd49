"""The original framework's helper modules at their import paths: genbench.utils.{tasks,file,logging} and the
module-level helpers of genbench.task."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from genbench._core.errors import InvalidTaskIdError, TaskNotFoundError
from genbench._registry.roots import PACKAGE_TASKS_DIR
from genbench.config._schema import PromptBuilderConfig
from genbench.task import get_data_split_name, make_nshot_dataset, resplit_data_source
from genbench.utils import file as file_utils
from genbench.utils import tasks as task_utils


# ------------------------------------------------------------------------------------------- genbench.utils.tasks
def test_task_ids_and_directories():
    ids = task_utils.get_all_tasks_ids()
    assert ids == sorted(ids) and {"arithmetic_length", "negation_consistency"} <= set(ids)
    assert task_utils.get_tasks_dir() == PACKAGE_TASKS_DIR
    with_subtasks = task_utils.get_all_tasks_and_subtasks_ids()
    position = with_subtasks.index("negation_consistency")
    assert with_subtasks[position : position + 3] == [
        "negation_consistency",
        "negation_consistency:affirmative",
        "negation_consistency:negated",
    ]
    assert task_utils.get_task_dir("negation_consistency:affirmative") == (
        PACKAGE_TASKS_DIR / "negation_consistency" / "affirmative"
    )
    assert task_utils.get_task_dir("negation_consistency", "negated").name == "negated"
    with pytest.raises(InvalidTaskIdError):
        task_utils.get_task_dir("negation_consistency:../arithmetic_length")
    with pytest.raises(TaskNotFoundError, match="no subtask 'missing'"):
        task_utils.get_task_dir("negation_consistency:missing")


def test_task_dict_helpers_and_module_names():
    dict_dir = PACKAGE_TASKS_DIR / "negation_consistency"
    assert task_utils.is_task_dict(dict_dir) and not task_utils.is_task_dict(PACKAGE_TASKS_DIR / "arithmetic_length")
    assert task_utils.get_task_dict_subtasks(dict_dir) == ["affirmative", "negated"]
    assert task_utils.get_task_module_name(dict_dir / "negated") == "genbench.tasks.negation_consistency.negated"
    assert task_utils.is_valid_task_module(dict_dir / "negated") and not task_utils.is_valid_task_module(dict_dir)
    assert task_utils.is_valid_task_id("ok_id_2") and not task_utils.is_valid_task_id("Not-ok")
    assert not task_utils.is_valid_task_id("café")


def test_module_name_of_a_task_in_an_extra_root(task_root):
    (task_root / "mine").mkdir()
    (task_root / "mine" / "config.jsonnet").write_text("{}")
    assert task_utils.get_task_module_name(task_root / "mine") == "genbench.tasks.mine"
    assert task_utils.get_all_tasks_ids() == ["mine"]


def test_all_task_metadata():
    metadata = task_utils.get_all_task_metadata()
    assert set(metadata) == set(task_utils.get_all_tasks_ids())
    negation = metadata["negation_consistency"]
    assert set(negation) == {"name", "description", "keywords", "authors", "subtasks"}
    assert set(negation["subtasks"]) == {"affirmative", "negated"}
    assert metadata["arithmetic_length"]["name"] == "Arithmetic Length Generalisation"


# -------------------------------------------------------------------------------------------- genbench.utils.file
def test_repo_dir_and_load_jsonnet(tmp_path):
    assert (file_utils.get_repo_dir() / "src" / "genbench" / "utils" / "file.py").is_file()
    (tmp_path / "x.jsonnet").write_text("{a: 1 + 1, b: [i * 2 for i in [1, 2]]}")
    assert file_utils.load_jsonnet(tmp_path / "x.jsonnet") == {"a": 2, "b": [2, 4]}
    assert file_utils.load_jsonnet(str(tmp_path / "x.jsonnet"))["a"] == 2


# ----------------------------------------------------------------------------------------- genbench.utils.logging
def test_logging_helpers_in_a_fresh_process():
    code = textwrap.dedent(
        """
        import logging
        from genbench.utils import logging as glog

        logger = glog.get_logger("genbench.tasks.some_task")
        assert glog.get_verbosity() == logging.ERROR  # from GENBENCH_VERBOSITY
        logger.warning("hidden")
        glog.set_verbosity_info()
        assert glog.get_verbosity() == glog.INFO
        logger.info("shown at info")
        glog.set_verbosity_warning(); glog.set_verbosity_debug(); glog.set_verbosity_error()
        glog.enable_explicit_format()
        logger.error("explicit")
        glog.reset_format()
        glog.disable_default_handler()
        assert not logging.getLogger("genbench").handlers
        glog.enable_default_handler()
        assert len(logging.getLogger("genbench").handlers) == 1
        assert glog.get_log_levels_dict()["debug"] == logging.DEBUG
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"GENBENCH_VERBOSITY": "error", "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert "shown at info" in lines and "hidden" not in lines
    assert any(line.startswith("[ERROR|<string>:") and line.endswith(">> explicit") for line in lines)


# ----------------------------------------------------------------------------------- helpers of genbench.task
@pytest.mark.parametrize(
    ("split", "expected"),
    [("dev", "validation"), ("dev.tsv", "validation"), ("train.jsonl", "train"), ("test", "test"), ("x.y.z", "x")],
)
def test_get_data_split_name(split, expected):
    assert get_data_split_name(split) == expected


def test_resplit_data_source():
    from datasets import Dataset

    source = {
        "train": Dataset.from_dict({"input": ["a", "b", "c"], "target": ["1", "2", "3"]}),
        "test": Dataset.from_dict({"input": ["d"], "target": ["4"]}),
    }
    splits = resplit_data_source(source, {"test": ["train:2", "test:0"], "train": ["train.jsonl:0", "train:1"]})
    assert list(splits) == ["test", "train"]
    assert splits["test"]["input"] == ["c", "d"] and splits["train"]["input"] == ["a", "b"]
    with pytest.raises(ValueError, match="validation"):
        resplit_data_source(source, {"test": ["dev:0"]})


def _formatter(example, random_seed):
    return {"formatted_input": f"Q: {example['input']}\nA: ", "formatted_target": example["target"]}


def test_make_nshot_dataset_zero_and_few_shot():
    from datasets import Dataset

    builder = PromptBuilderConfig(instruction_zero_shot="Add.\n", few_shot_example_separator="\n\n")
    splits = {
        "train": Dataset.from_dict({"input": ["1+1", "1+2", "2+2"], "target": ["2", "3", "4"]}),
        "test": Dataset.from_dict({"input": ["3+3", "3+4"], "target": ["6", "7"]}),
    }
    zero = make_nshot_dataset(splits, builder, _formatter, num_shots=0, random_seed=1)
    assert zero["input"] == ["Add.\nQ: 3+3\nA: ", "Add.\nQ: 3+4\nA: "]
    assert zero["target"] == ["6", "7"] and zero["original_input"] == ["3+3", "3+4"]
    two = make_nshot_dataset(splits, builder, _formatter, num_shots=2, random_seed=1)
    for prompt in two["input"]:
        assert prompt.count("Q: ") == 3  # exactly two shots and the query
    again = make_nshot_dataset(splits, builder, _formatter, num_shots=2, random_seed=1, repeat_samples=2)
    assert again["input"] == [two["input"][0]] * 2 + [two["input"][1]] * 2


def test_make_nshot_dataset_without_train_excludes_the_query_from_its_shots():
    from datasets import Dataset

    builder = PromptBuilderConfig()
    test = Dataset.from_dict({"input": ["a", "b", "c"], "target": ["A", "B", "C"]})
    prompts = make_nshot_dataset({"test": test}, builder, _formatter, num_shots=2, random_seed=3)
    for row in prompts:
        query = row["original_input"]
        shots = row["input"].split("\n\n")[:-1]
        assert len(shots) == 2 and f"Q: {query}\nA: " not in shots[0] + shots[1]


def test_legacy_helpers_are_importable_from_genbench_task_as_in_the_original():
    import genbench.task

    assert {"get_data_split_name", "resplit_data_source", "make_nshot_dataset"} <= set(genbench.task.__all__)
    assert json.loads(json.dumps(get_data_split_name("dev_matched.tsv"))) == "validation_matched"
