"""test-task's taxonomy, primary_metric and prompt_lint checks."""

from __future__ import annotations

import json
import warnings

import pytest

from genbench import load_task
from genbench.review._base import TaskCheckFailure, TaskCheckSkipped, TaskCheckWarning
from genbench.review._metadata_checks import (
    check_metric_directions,
    check_primary_metric,
    check_task_dict_metric_directions,
    check_task_dict_primary_metric,
    check_taxonomy,
)
from genbench.review._plan import run_checks
from genbench.review._prompt_checks import check_prompt_lint


def _warnings(check, *args, **kwargs) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(*args, **kwargs)
    return [str(w.message) for w in caught if issubclass(w.category, TaskCheckWarning)]


def test_a_task_without_taxonomy_gets_a_warning_naming_the_fields(make_task, task_config):
    config = task_config(keywords=["Multilinguality", "o.o.d. generalisation", "covariate shift"])
    del config["taxonomy"]
    task_dir = make_task(config=config)
    (message,) = _warnings(check_taxonomy, task_dir)
    assert message.startswith("config.jsonnet: taxonomy: not declared; add a taxonomy block")
    assert "taxonomy.generalisation_type: 'across_language' (keyword 'Multilinguality')" in message
    assert "taxonomy.shift_type: 'covariate' (keyword 'covariate shift')" in message
    assert "still to choose: taxonomy.motivation, taxonomy.shift_source, taxonomy.shift_locus" in message
    # a warning, never a failure: older tasks stay valid
    report = run_checks("tiny")
    assert report.ok and next(r for r in report.results if r.check == "taxonomy").outcome == "warning"


def test_nothing_is_filled_in_from_keywords(make_task, task_config):
    config = task_config(keywords=["robustness"])
    del config["taxonomy"]
    make_task(config=config)
    assert load_task("tiny").config.taxonomy is None


def test_a_partial_block_warns_about_the_axes_left_out(make_task, task_config):
    task_dir = make_task(config=task_config(taxonomy={"generalisation_type": "robustness"}))
    (message,) = _warnings(check_taxonomy, task_dir)
    assert "leaves out taxonomy.motivation (motivation), taxonomy.shift_type (shift type)" in message


def test_subtasks_inherit_the_taxonomy_of_their_task_dict(make_task_dict, task_root):
    task_dir = make_task_dict(config={"name": "Tiny dict", "taxonomy": {"generalisation_type": "compositional",
                              "motivation": "intrinsic", "shift_type": "covariate", "shift_source":
                              "fully_generated_data", "shift_locus": "train-test"}})  # fmt: skip
    sub = task_dir / "first"
    config = json.loads((sub / "config.jsonnet").read_text())
    del config["taxonomy"]
    (sub / "config.jsonnet").write_text(json.dumps(config))
    assert _warnings(check_taxonomy, sub) == []
    assert _warnings(check_taxonomy, task_dir, task_dict=True) == []


def test_a_task_dict_needs_none_when_every_subtask_declares_one(make_task_dict):
    task_dir = make_task_dict()
    assert _warnings(check_taxonomy, task_dir, task_dict=True) == []
    config = json.loads((task_dir / "second" / "config.jsonnet").read_text())
    del config["taxonomy"]
    (task_dir / "second" / "config.jsonnet").write_text(json.dumps(config))
    assert len(_warnings(check_taxonomy, task_dir, task_dict=True)) == 1
    assert len(_warnings(check_taxonomy, task_dir / "second")) == 1


def test_primary_metric_must_be_a_result_key(make_task, task_config):
    make_task(config=task_config(primary_metric="hf_exact_match__exactmatch"))
    with pytest.raises(TaskCheckFailure) as failure:
        check_primary_metric(load_task("tiny"))
    message = str(failure.value)
    assert message.startswith("config.jsonnet: primary_metric: 'hf_exact_match__exactmatch' is not a key")
    assert "did you mean 'hf_exact_match__exact_match'?" in message


def test_a_right_primary_metric_passes_and_none_is_skipped(make_task, task_config, task_root):
    make_task(config=task_config(primary_metric="hf_exact_match__exact_match"))
    check_primary_metric(load_task("tiny"))
    make_task("other")
    with pytest.raises(TaskCheckSkipped):
        check_primary_metric(load_task("other"))


def test_a_task_dicts_primary_metric_is_a_key_of_the_merged_results(make_task_dict):
    make_task_dict(config={"name": "Tiny dict", "primary_metric": "first.hf_exact_match__exact_match"})
    check_task_dict_primary_metric(load_task("tiny_dict"))  # a subtask's key


def test_the_shipped_primary_metrics_are_result_keys():
    check_task_dict_primary_metric(load_task("negation_consistency"))  # the mean accuracy over the subtasks
    check_primary_metric(load_task("arithmetic_length"))


def test_a_task_dicts_wrong_primary_metric_fails(make_task_dict):
    make_task_dict(config={"name": "Tiny dict", "primary_metric": "hf_accuracy__accuracy"})
    with pytest.raises(TaskCheckFailure, match="is not a key of the merged results"):
        check_task_dict_primary_metric(load_task("tiny_dict"))


def test_metric_directions_must_match_result_keys(make_task, task_config):
    make_task(config=task_config(metric_directions={"hf_exact_match__exactmatch": "lower", "hf_exact_*": "higher"}))
    with pytest.raises(TaskCheckFailure) as failure:
        check_metric_directions(load_task("tiny"))
    message = str(failure.value)
    assert message.startswith("config.jsonnet: metric_directions: 'hf_exact_match__exactmatch' (did you mean ")
    assert "'hf_exact_*'" not in message  # the pattern matches a key
    assert "'hf_exact_match__exact_match'" in message and "glob pattern" in message


def test_right_metric_directions_pass_and_none_is_skipped(make_task, task_config):
    make_task(config=task_config(metric_directions={"hf_exact_match__*": "higher"}))
    check_metric_directions(load_task("tiny"))
    make_task("other")
    with pytest.raises(TaskCheckSkipped, match="declares no metric_directions"):
        check_metric_directions(load_task("other"))


def test_a_task_dicts_metric_directions_match_its_merged_results(make_task_dict):
    directions = {"first.*": "higher", "negation_gap__*": "lower"}
    make_task_dict(config={"name": "Tiny dict", "metric_directions": directions})
    with pytest.raises(TaskCheckFailure, match=r"'negation_gap__\*' matches no key of the merged results"):
        check_task_dict_metric_directions(load_task("tiny_dict"))


def test_a_closer_to_zero_direction_is_checked_like_the_others(make_task, task_config):
    make_task(config=task_config(metric_directions={"hf_exact_match__*": "zero"}))
    check_metric_directions(load_task("tiny"))
    make_task("typo", config=task_config(metric_directions={"hf_exact_mach__*": "zero"}))
    with pytest.raises(TaskCheckFailure, match=r"'hf_exact_mach__\*' \(did you mean 'hf_exact_match__exact_match'"):
        check_metric_directions(load_task("typo"))


def test_the_shipped_negation_gap_is_declared_closer_to_zero_is_better():
    task = load_task("negation_consistency")
    assert task.config.metric_directions == {"negation_gap__*": "zero"}
    check_task_dict_metric_directions(task)  # the pattern matches the merged negation_gap__ keys


def test_the_prompt_lint_check_warns_with_line_and_field(make_task, task_config):
    builder = {"instruction_zero_shot": "Add two numbers together", "input_prefix": "Q: ", "output_prefix": "A: "}
    config = task_config(preparation_strategies={"prompt_based_testing": {"prompt_builder": builder}})
    task_dir = make_task(config=config)
    messages = _warnings(check_prompt_lint, task_dir)
    assert any(
        m.startswith("config.jsonnet:1: preparation_strategies.prompt_based_testing.prompt_builder.output_prefix:")
        and "`6A:`" in m
        for m in messages
    )
    report = run_checks("tiny")
    assert report.ok and next(r for r in report.results if r.check == "prompt_lint").outcome == "warning"


def test_the_prompt_lint_check_skips_tasks_without_prompts(make_task, task_config):
    task_dir = make_task(
        config=task_config(preparation_strategies={"finetuning": {"objective": "maximum_likelihood"}})
    )
    with pytest.raises(TaskCheckSkipped, match="no prompt-based testing"):
        check_prompt_lint(task_dir)
