"""Every registry task: config, raw data, prompts, perfect predictions; plus the four sample tasks' specifics."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

import genbench
from genbench import load_task
from genbench._core.vocabulary import PreparationStrategy, TaskType
from genbench._registry.roots import PACKAGE_TASKS_DIR
from genbench._registry.task_configs import load_config
from genbench.config._schema import TaskConfig, TaskDictConfig
from genbench.metrics._evaluation import best_score_reached, main_score_key
from genbench.prompting._few_shot import few_shot_pool
from genbench.runs.baselines import predict, training_pool
from genbench.task import Task
from genbench.task._task_dict import TaskDict
from tests.shipped_tasks import shipped_task_ids

SHOTS = 3
SAMPLE_TASKS = {
    "arithmetic_length": TaskType.FREE_FORM,
    "category_membership": TaskType.MULTIPLE_CHOICE,
    "ner_unseen_entities": TaskType.SEQUENCE_LABELING,
    "negation_consistency:affirmative": TaskType.MULTIPLE_CHOICE,
    "negation_consistency:negated": TaskType.MULTIPLE_CHOICE,
}
# The baseline's main score on the sample tasks (0-shot and 3-shot alike): well below perfect.
SAMPLE_BASELINE_SCORES = {
    "arithmetic_length": ("hf_exact_match__exact_match", 0.0),
    "category_membership": ("hf_accuracy__accuracy", 15 / 72),
    "ner_unseen_entities": ("hf_seqeval__overall_f1", 0.2869379),
    "negation_consistency:affirmative": ("hf_accuracy__accuracy", 0.5),
    "negation_consistency:negated": ("hf_accuracy__accuracy", 0.5),
}


def _registry_task_ids() -> list[str]:
    """Every shipped task of the registry, subtasks of a TaskDict as ``id:subtask``."""
    ids = []
    shipped = set(shipped_task_ids())
    for summary in genbench.list_tasks():
        if summary.id not in shipped:
            continue
        if summary.subtasks:
            ids.extend(f"{summary.id}:{sub}" for sub in summary.subtasks)
        else:
            ids.append(summary.id)
    return ids


TASK_IDS = _registry_task_ids()


@pytest.fixture(scope="module", params=TASK_IDS)
def task(request: pytest.FixtureRequest) -> Task:
    loaded = load_task(request.param)
    assert isinstance(loaded, Task)
    return loaded


@pytest.fixture(scope="module")
def prompts(task: Task) -> dict:
    if task.config.preparation_strategies.prompt_based_testing is None:
        pytest.skip("the task does not support prompt-based testing")
    return task.get_prepared_datasets(PreparationStrategy.PROMPT_BASED_TESTING, shot_list=[0, SHOTS], random_seed=42)


def test_sample_tasks_are_registered():
    assert set(SAMPLE_TASKS) <= set(TASK_IDS)
    for task_id, task_type in SAMPLE_TASKS.items():
        assert load_task(task_id).config.task_type is task_type


def test_config_validates(task: Task):
    root_id, _, subtask_id = task.task_id.partition(":")
    config = load_config(task.task_id)
    assert isinstance(config, TaskConfig)
    assert config == task.config
    if subtask_id:
        assert isinstance(load_config(root_id), TaskDictConfig)
    # The authoring guide asks for a doc.md next to every config.
    assert (task.task_dir / "doc.md").is_file()


def test_raw_datasets_have_expected_splits_and_columns(task: Task):
    raw = task.get_datasets_raw()
    expected = {"test"}
    if task.config.has_train_set:
        expected.add("train")
    if task.config.has_validation_set:
        expected.add("validation")
    assert set(raw) == expected
    task_type = task.config.task_type
    for split, dataset in raw.items():
        assert len(dataset) > 0, split
        columns = {"input", "target", "_genbench_idx"}
        if task_type in (TaskType.MULTIPLE_CHOICE, TaskType.RERANKING):
            columns.add("target_options")
        assert columns <= set(dataset.column_names), split
        assert list(dataset["_genbench_idx"]) == list(range(len(dataset)))
        for example in dataset:
            if task_type is TaskType.MULTIPLE_CHOICE:
                assert isinstance(example["input"], str)
                assert 0 <= example["target"] < len(example["target_options"])
            elif task_type is TaskType.FREE_FORM:
                assert isinstance(example["input"], str) and isinstance(example["target"], str)
            elif task_type is TaskType.RERANKING:
                assert isinstance(example["input"], str) and set(example["target"]) & set(example["target_options"])
            else:
                assert len(example["input"]) == len(example["target"]) > 0


def test_prompts_have_exactly_k_shots(task: Task, prompts: dict):
    builder = task.config.prompt_builder
    separator = builder.few_shot_example_separator
    pool_split, query_in_pool = few_shot_pool(task.get_datasets_raw())
    test_size = len(task.get_datasets_raw()["test"])
    zero_shot, few_shot = prompts[0], prompts[SHOTS]
    assert len(zero_shot) == len(few_shot) == test_size
    assert "_genbench_shot_ids" not in zero_shot.column_names
    for zero, few in zip(zero_shot, few_shot, strict=True):
        assert zero["_genbench_idx"] == few["_genbench_idx"]
        assert zero["input"].startswith(builder.instruction_zero_shot)
        query = zero["input"][len(builder.instruction_zero_shot) :]
        assert few["input"].startswith(builder.instruction_few_shot)
        assert few["input"].endswith(separator + query)
        shot_ids = few["_genbench_shot_ids"]
        assert len(shot_ids) == len(set(shot_ids)) == SHOTS
        if query_in_pool:
            assert few["_genbench_idx"] not in shot_ids
        shots_text = few["input"][len(builder.instruction_few_shot) : -len(separator + query)]
        if separator not in query:  # otherwise the separator cannot delimit the shots
            assert shots_text.count(separator) == SHOTS - 1
    assert pool_split in task.get_datasets_raw()


def test_zero_shot_prompt_shape(task: Task, prompts: dict):
    builder = task.config.prompt_builder
    example = prompts[0][0]
    assert example["input"].endswith(builder.output_prefix)
    if task.config.task_type is TaskType.MULTIPLE_CHOICE:
        assert example["target"] == example["target_options"][example["original_target"]]
        if builder.append_choices_to_input:
            for option in example["target_options"]:
                assert builder.choice_item_prefix + option + builder.choice_item_postfix in example["input"]
    elif task.config.task_type is TaskType.SEQUENCE_LABELING:
        assert example["target"] == builder.sequence_labeling_separator.join(example["original_target"])


@pytest.mark.parametrize("field", ["target", "original_target"])
def test_gold_predictions_reach_best_score(task: Task, prompts: dict, field: str):
    metrics = task.config.evaluation_metrics or []
    assert metrics, "a task without evaluation_metrics must override evaluate_predictions"
    for n_shots, dataset in prompts.items():
        result = task.evaluate_predictions(predictions=[{"target": t} for t in dataset[field]], gold=dataset)
        assert best_score_reached(result, metrics) == [], (n_shots, dict(result))


def test_finetuning_datasets(task: Task):
    if task.config.preparation_strategies.finetuning is None:
        pytest.skip("the task does not support finetuning")
    splits = task.get_prepared_datasets(PreparationStrategy.FINETUNING)
    assert "train" in splits and "test" in splits
    from genbench.review._preparation_checks import gold_predictions  # reranking: perfect scores, not texts

    result = task.evaluate_predictions(predictions=gold_predictions(splits["test"]), gold=splits["test"])
    assert best_score_reached(result, task.config.evaluation_metrics) == []


@pytest.mark.filterwarnings("ignore:.*ill-defined")  # the baseline never predicts some labels, by design
def test_baseline_is_below_perfect(task: Task, prompts: dict):
    pool = training_pool(task)
    for n_shots, dataset in prompts.items():
        result = task.evaluate_predictions(predictions=predict(task, dataset, pool), gold=dataset)
        if task.task_id in SAMPLE_BASELINE_SCORES:
            key, expected = SAMPLE_BASELINE_SCORES[task.task_id]
            assert result[key] == pytest.approx(expected, abs=1e-6), n_shots
        for metric in task.config.evaluation_metrics or []:
            key = main_score_key(metric.hf_id, result)
            if metric.best_score is not None and key is not None and task.task_id in SAMPLE_BASELINE_SCORES:
                assert result[key] < metric.best_score - 0.1, (n_shots, key, result[key])


# ------------------------------------------------------------------------------------------ sample specifics
def test_category_membership_test_categories_are_unseen():
    raw = load_task("category_membership").get_datasets_raw()
    assert {name: len(ds) for name, ds in raw.items()} == {"train": 100, "validation": 20, "test": 72}
    seen = set(raw["train"]["category"])
    assert set(raw["validation"]["category"]) == seen
    assert not seen & set(raw["test"]["category"])
    # Per-example options: many distinct option lists.
    assert len({tuple(options) for options in raw["test"]["target_options"]}) == len(raw["test"])


def test_arithmetic_length_test_operands_are_longer():
    raw = load_task("arithmetic_length").get_datasets_raw()
    assert max(raw["train"]["max_digits"]) == max(raw["validation"]["max_digits"]) == 2
    assert min(raw["test"]["max_digits"]) == 3
    assert not set(raw["train"]["input"]) & set(raw["validation"]["input"])


def test_ner_test_names_are_new():
    raw = load_task("ner_unseen_entities").get_datasets_raw()

    def names(dataset, label: str) -> set[str]:
        pairs = zip(dataset["input"], dataset["target"], strict=True)
        return {
            token for tokens, tags in pairs for token, tag in zip(tokens, tags, strict=True) if tag.endswith(label)
        }

    assert not names(raw["train"], "PER") & names(raw["test"], "PER")
    assert not names(raw["train"], "ORG") & names(raw["test"], "ORG")
    assert names(raw["train"], "LOC") & names(raw["test"], "LOC")  # some locations are seen
    assert max(map(len, raw["train"]["input"])) < min(map(len, raw["test"]["input"]))


def test_negation_consistency_task_dict_merges_with_gap():
    task_dict = load_task("negation_consistency")
    assert isinstance(task_dict, TaskDict)
    assert type(task_dict).__name__ == "NegationConsistencyTaskDict"
    assert list(task_dict) == ["affirmative", "negated"]
    affirmative, negated = (task_dict[s].get_datasets_raw()["test"] for s in task_dict)
    assert affirmative["pair_id"] == negated["pair_id"]
    assert all(a != n for a, n in zip(affirmative["target"], negated["target"], strict=True))
    # Both subtasks train on the same affirmative statements.
    train_inputs = [task_dict[s].get_datasets_raw()["train"]["input"] for s in task_dict]
    assert train_inputs[0] == train_inputs[1]
    assert not any(" not " in statement for statement in train_inputs[0])
    merged = task_dict.merge_evaluation_results(
        {"affirmative": {"hf_accuracy__accuracy": 0.9}, "negated": {"hf_accuracy__accuracy": 0.6}}
    )
    assert merged["affirmative.hf_accuracy__accuracy"] == 0.9
    assert merged["hf_accuracy__accuracy"] == pytest.approx(0.75)
    assert merged["negation_gap__hf_accuracy__accuracy"] == pytest.approx(0.3)


# --------------------------------------------------------------------------------------- data reproducibility
def _load_generator(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_make_data_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_committed_data_is_reproduced_by_its_generator():
    arithmetic = _load_generator(PACKAGE_TASKS_DIR / "arithmetic_length" / "make_data.py")
    for split, rows in arithmetic.make_splits().items():
        assert rows == _read_jsonl(PACKAGE_TASKS_DIR / "arithmetic_length" / "data" / f"{split}.jsonl")

    category = _load_generator(PACKAGE_TASKS_DIR / "category_membership" / "make_data.py")
    source, split_entries = category.make_data()
    for split, rows in source.items():
        assert rows == _read_jsonl(PACKAGE_TASKS_DIR / "category_membership" / "data" / f"{split}.jsonl")
    split_file = (PACKAGE_TASKS_DIR / "category_membership" / "split.jsonnet").read_text(encoding="utf-8")
    assert category._render_split_file(split_entries) == split_file

    ner = _load_generator(PACKAGE_TASKS_DIR / "ner_unseen_entities" / "make_data.py")
    for split, rows in ner.make_splits().items():
        assert rows == _read_jsonl(PACKAGE_TASKS_DIR / "ner_unseen_entities" / "data" / f"{split}.jsonl")

    negation = _load_generator(PACKAGE_TASKS_DIR / "negation_consistency" / "make_data.py")
    for subtask, splits in negation.make_splits().items():
        for split, rows in splits.items():
            assert rows == _read_jsonl(
                PACKAGE_TASKS_DIR / "negation_consistency" / subtask / "data" / f"{split}.jsonl"
            )


@pytest.mark.parametrize(
    "task_id", ["arithmetic_length", "category_membership", "ner_unseen_entities", "negation_consistency"]
)
def test_sample_task_data_is_small(task_id: str):
    data_files = [p for p in (PACKAGE_TASKS_DIR / task_id).rglob("*") if p.suffix in (".jsonl", ".jsonnet")]
    assert sum(p.stat().st_size for p in data_files) < 100_000


# ------------------------------------------------------------------------------------------------- baselines
def test_majority_option_baseline_rules():
    from genbench.runs.baselines import MajorityOptionBaseline

    pool = [
        {"input": "q", "target": 1, "target_options": ["a", "b", "c"]},
        {"input": "q", "target": 1, "target_options": ["x", "y", "z"]},
        {"input": "q", "target": 0, "target_options": ["b", "a"]},
    ]
    baseline = MajorityOptionBaseline(pool)
    assert baseline.predict_one(["c", "b"]) == "b"  # "b" was correct twice
    assert baseline.predict_one(["p", "q", "r"]) == "q"  # no option ever correct: the majority position (1)
    assert baseline.predict_one(["only"]) == "only"  # that position does not exist: the first option
    assert MajorityOptionBaseline(None).predict_one(["first", "second"]) == "first"
    tie = MajorityOptionBaseline([{"input": "q", "target": i, "target_options": ["t", "f"]} for i in (1, 0)])
    assert tie.predict_one(["t", "f"]) == "t"  # ties go to the earlier option, whatever the pool's order


def test_free_form_and_sequence_labeling_baselines():
    from genbench.runs.baselines import MostFrequentTargetBaseline, TokenMajorityLabelBaseline

    pool = [{"input": "1 + 1", "target": "2"}, {"input": "0 + 3", "target": "3"}, {"input": "2 + 1", "target": "3"}]
    assert MostFrequentTargetBaseline(pool).predict([{"input": "5 + 5"}]) == [{"target": "3"}]
    assert MostFrequentTargetBaseline([]).predict([{"original_input": "5 + 7", "input": "Q: 5 + 7"}]) == [
        {"target": "7"}
    ]
    tagger = TokenMajorityLabelBaseline(
        [{"input": ["Ann", "met", "Bo"], "target": ["B-PER", "O", "B-PER"]}, {"input": ["Bo"], "target": ["B-LOC"]}]
    )
    assert tagger.predict([{"original_input": ["Bo", "met", "Cy"], "input": "prompt"}]) == [
        {"target": ["B-PER", "O", "O"]}
    ]
