"""Checks of scoring and preparation: gold scores, prompts, finetuning datasets, TaskDict merging."""

from __future__ import annotations

import warnings

import pytest

from genbench import load_task
from genbench.review.checks import (
    TaskCheckFailure,
    TaskCheckSkipped,
    TaskCheckWarning,
    check_finetuning,
    check_gold_scores,
    check_prompts,
    check_task_dict_merge,
)

TEST_ONLY = {
    "has_train_set": False,
    "data_source": {"type": "manual", "test": "test.jsonl"},
    "preparation_strategies": {"prompt_based_testing": {"prompt_builder": {}}},
}
FREE_TEST = [{"input": f"{a} + 2", "target": str(a + 2)} for a in range(10)]
BEST_SCORE_HINT = (
    "Either a best_score in config.jsonnet is wrong, or the evaluation does not score correct answers as correct: "
    "check free_form_output_regex, stop_string and the metrics' compute_extra_kwargs."
)


def custom_task(body: str, base: str = "Task") -> str:
    return f"from genbench import Task\n\n\nclass TinyTask({base}):\n" + body


# ------------------------------------------------------------------------------------------------- gold_scores
def test_gold_scores_pass_on_a_good_task(make_task):
    make_task()
    with warnings.catch_warnings():
        warnings.simplefilter("error", TaskCheckWarning)
        check_gold_scores(load_task("tiny"))


def test_a_wrong_best_score_fails_for_targets_and_prompts(make_task, task_config):
    make_task(config=task_config(evaluation_metrics=[{"hf_id": "exact_match", "best_score": 100.0}]))
    with pytest.raises(TaskCheckFailure) as info:
        check_gold_scores(load_task("tiny"))
    tolerance = "(tolerance: rel 1e-09, abs 1e-06)"
    assert str(info.value) == (
        "Gold predictions do not reach best_score:\n"
        "  - with the test split's targets as predictions: hf_exact_match__exact_match is 1.0, expected best_score "
        f"100.0 {tolerance}\n"
        "  - with the 0-shot prompts' targets (the answer text of a perfect model) as predictions: "
        f"hf_exact_match__exact_match is 1.0, expected best_score 100.0 {tolerance}\n" + BEST_SCORE_HINT
    )


def test_an_answer_regex_that_cuts_gold_answers_fails(make_task, task_config):
    make_task(config=task_config(free_form_output_regex="[0-9]"))  # "10" and "11" lose a digit
    with pytest.raises(TaskCheckFailure, match=r"hf_exact_match__exact_match is 0\.8, expected best_score 1\.0"):
        check_gold_scores(load_task("tiny"))


def test_best_score_is_compared_with_a_tolerance_not_float_equality(make_task, task_config):
    metrics = [{"hf_id": "exact_match", "best_score": 1.0 - 5e-7}]  # within abs_tol 1e-6 of the perfect 1.0
    make_task(config=task_config(evaluation_metrics=metrics))
    check_gold_scores(load_task("tiny"))


def test_overridden_evaluation_is_skipped_even_from_a_base_class(make_task):
    # The original framework only looked at the task class's own __dict__, so an override in a base class slipped by.
    make_task(
        task_py="from genbench import Task\n\n\nclass Base(Task):\n"
        "    def evaluate_predictions(self, *, predictions=None, gold=None):\n        return {'x': 0.0}\n\n\n"
        "class TinyTask(Base):\n    pass\n"
    )
    with pytest.raises(TaskCheckSkipped) as info:
        check_gold_scores(load_task("tiny"))
    assert str(info.value) == (
        "TinyTask overrides evaluate_predictions, so genbench cannot tell what perfect predictions score; test your "
        "evaluation yourself"
    )


def test_no_best_score_anywhere_is_a_warning(make_task, task_config):
    make_task(config=task_config(evaluation_metrics=[{"hf_id": "exact_match"}]))
    with pytest.warns(TaskCheckWarning) as record:
        check_gold_scores(load_task("tiny"))
    assert str(record[0].message) == (
        "No metric in evaluation_metrics has a best_score, so genbench cannot check that perfect predictions get the "
        "best score: add best_score (e.g. 1.0 for accuracy or exact_match) to each metric."
    )


def test_no_metrics_and_no_override_fails(make_task, task_config):
    make_task(config=task_config(evaluation_metrics=None))
    with pytest.raises(TaskCheckFailure) as info:
        check_gold_scores(load_task("tiny"))
    assert str(info.value) == (
        "config.jsonnet has no evaluation_metrics and task.py does not override evaluate_predictions, so predictions "
        "cannot be scored: add evaluation_metrics, e.g. [{hf_id: 'exact_match', best_score: 1.0}]."
    )


def test_gold_scores_of_multiple_choice_and_sequence_labeling(make_task, task_config):
    mc_rows = [{"input": f"q{i}", "target": i % 3, "target_options": ["a", "b", "c"]} for i in range(9)]
    make_task(
        "mc",
        config=task_config(
            task_type="multiple_choice", evaluation_metrics=[{"hf_id": "accuracy", "best_score": 1.0}], **TEST_ONLY
        ),
        rows={"test": mc_rows},
    )
    sl_rows = [{"input": ["Ada", "sings", str(i)], "target": ["B-PER", "O", "O"]} for i in range(5)]
    make_task(
        "sl",
        config=task_config(
            task_type="sequence_labeling", evaluation_metrics=[{"hf_id": "seqeval", "best_score": 1.0}], **TEST_ONLY
        ),
        rows={"test": sl_rows},
    )
    check_gold_scores(load_task("mc"))
    check_gold_scores(load_task("sl"))


# ------------------------------------------------------------------------------------------------------ prompts
def test_prompts_pass_with_shots_from_the_test_split(make_task, task_config):
    make_task(config=task_config(**TEST_ONLY), rows={"test": FREE_TEST})
    check_prompts(load_task("tiny"))


def test_prompts_warn_when_the_pool_is_too_small_for_three_shots(make_task, task_config):
    make_task(config=task_config(**TEST_ONLY), rows={"test": FREE_TEST[:3]})
    with pytest.warns(TaskCheckWarning) as record:
        check_prompts(load_task("tiny"))
    assert str(record[0].message) == (
        "The few-shot pool (the test split) has only 2 usable examples, so prompts with 3 shots cannot be built; "
        "checked up to 2 shots."
    )


def test_prompts_with_the_wrong_number_of_shots_fail(make_task):
    make_task(task_py=custom_task(
        "    def get_prepared_datasets(self, preparation_strategy, shot_list=None, random_seed=42):\n"
        "        out = super().get_prepared_datasets(preparation_strategy, shot_list, random_seed)\n"
        "        if 3 in out:\n"
        "            out[3] = out[3].map(lambda row: {'_genbench_shot_ids': row['_genbench_shot_ids'][:1]})\n"
        "        return out\n"
    ))  # fmt: skip
    with pytest.raises(TaskCheckFailure) as info:
        check_prompts(load_task("tiny"))
    assert str(info.value) == (
        "Prompts (shots from the train split) are wrong:\n"
        "  - 3-shot: the prompt of test example _genbench_idx 0 has 1 shots instead of 3"
    )


def test_a_query_among_its_own_shots_fails(make_task, task_config):
    make_task(
        config=task_config(**TEST_ONLY),
        rows={"test": FREE_TEST},
        task_py=custom_task(
            "    def get_prepared_datasets(self, preparation_strategy, shot_list=None, random_seed=42):\n"
            "        out = super().get_prepared_datasets(preparation_strategy, shot_list, random_seed)\n"
            "        if 1 in out:\n"
            "            out[1] = out[1].map(lambda row: {'_genbench_shot_ids': [row['_genbench_idx']]})\n"
            "        return out\n"
        ),
    )
    with pytest.raises(TaskCheckFailure) as info:
        check_prompts(load_task("tiny"))
    assert str(info.value) == (
        "Prompts (shots from the test split) are wrong:\n"
        "  - 1-shot: the prompt of test example _genbench_idx 0 contains the query itself among its shots, which "
        "gives the answer away"
    )


def test_prompts_that_cannot_be_built_fail_with_the_error(make_task):
    make_task(task_py=custom_task(
        "    def _format_example_for_in_context_learning(self, example, random_seed):\n"
        "        return {'formatted_input': example['question'], 'formatted_target': example['target']}\n"
    ))  # fmt: skip
    with pytest.raises(TaskCheckFailure) as info:
        check_prompts(load_task("tiny"))
    assert str(info.value).startswith("Building prompts (shot_list=[0, 1, 3]) failed: ")
    assert "KeyError: 'question'" in str(info.value)


def test_prompts_are_skipped_without_prompt_based_testing(make_task, task_config):
    make_task(config=task_config(preparation_strategies={"finetuning": {"objective": "maximum_likelihood"}}))
    with pytest.raises(TaskCheckSkipped, match=r"^the config has no preparation_strategies.prompt_based_testing$"):
        check_prompts(load_task("tiny"))


# --------------------------------------------------------------------------------------------------- finetuning
def test_finetuning_datasets_need_input_and_target(make_task):
    make_task(task_py=custom_task(
        "    def get_prepared_datasets(self, preparation_strategy, shot_list=None, random_seed=42):\n"
        "        out = super().get_prepared_datasets(preparation_strategy, shot_list, random_seed)\n"
        "        return {k: v.rename_column('target', 'label') for k, v in out.items()}\n"
    ))  # fmt: skip
    with pytest.raises(TaskCheckFailure) as info:
        check_finetuning(load_task("tiny"))
    assert str(info.value) == (
        "Finetuning datasets are wrong:\n"
        "  - the train split has no target column\n"
        "  - the test split has no target column"
    )


def test_finetuning_needs_the_declared_splits(make_task):
    make_task(task_py=custom_task(
        "    def get_prepared_datasets(self, preparation_strategy, shot_list=None, random_seed=42):\n"
        "        return {'test': super().get_prepared_datasets(preparation_strategy)['test']}\n"
    ))  # fmt: skip
    with pytest.raises(TaskCheckFailure) as info:
        check_finetuning(load_task("tiny"))
    assert str(info.value) == "Finetuning datasets are wrong:\n  - there is no train split (splits: test)"


def test_finetuning_is_skipped_without_it(make_task, task_config):
    make_task(config=task_config(**TEST_ONLY), rows={"test": FREE_TEST})
    with pytest.raises(TaskCheckSkipped, match=r"^the config has no preparation_strategies.finetuning$"):
        check_finetuning(load_task("tiny"))


def test_good_finetuning_passes(make_task):
    make_task()
    check_finetuning(load_task("tiny"))


# -------------------------------------------------------------------------------------------------------- merge
def test_merge_of_gold_results_passes(make_task_dict):
    make_task_dict()
    check_task_dict_merge(load_task("tiny_dict"))


def test_a_failing_merge_names_the_class_and_file(make_task_dict):
    make_task_dict(
        init_py="from genbench import TaskDict\n\n\nclass TinyDict(TaskDict):\n"
        "    def merge_evaluation_results(self, results):\n        return results['third']\n"
    )
    with pytest.raises(TaskCheckFailure) as info:
        check_task_dict_merge(load_task("tiny_dict"))
    assert str(info.value) == (
        "TinyDict.merge_evaluation_results (defined in __init__.py) failed on the subtasks' gold results: "
        "KeyError: 'third'. It receives an ordered dict subtask id -> that subtask's evaluation result."
    )


def test_a_merge_must_return_a_mapping(make_task_dict):
    make_task_dict(
        init_py="from genbench import TaskDict\n\n\nclass TinyDict(TaskDict):\n"
        "    def merge_evaluation_results(self, results):\n        return None\n"
    )
    with pytest.raises(TaskCheckFailure) as info:
        check_task_dict_merge(load_task("tiny_dict"))
    assert str(info.value) == (
        "TinyDict.merge_evaluation_results (defined in __init__.py) returned a NoneType (None), expected a non-empty "
        "mapping metric key -> value."
    )
