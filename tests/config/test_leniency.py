"""Lenient at the door: what the original framework accepted loads, with one GenbenchConfigWarning per deviation."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from genbench import TaskConfig
from genbench._core.errors import ConfigError, GenbenchConfigWarning
from genbench.config import collect_config_warnings, load_task_config, load_task_dict_config
from genbench.config._schema import EvaluationMetricConfig

BASE = {
    "name": "Lenient",
    "description": "A task written for the original framework.",
    "keywords": ["k"],
    "authors": ["A"],
    "data_source": {"type": "manual", "test": "test.jsonl"},
    "task_type": "free_form",
    "preparation_strategies": {"prompt_based_testing": {"prompt_builder": {}}},
}


def write_config(directory: Path, **fields) -> Path:
    """A config.jsonnet with one key per line (so that line numbers are predictable), BASE updated by ``fields``."""
    directory.mkdir(parents=True, exist_ok=True)
    document = {**BASE, **fields}
    lines = ["{"] + [f"  {key}: {json.dumps(value)}," for key, value in document.items()] + ["}"]
    path = directory / "config.jsonnet"
    path.write_text("\n".join(lines) + "\n")
    return path


def line_of(path: Path, key: str) -> int:
    return next(n for n, text in enumerate(path.read_text().splitlines(), 1) if text.startswith(f"  {key}:"))


def quietly_load(path: Path) -> TaskConfig:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GenbenchConfigWarning)
        return load_task_config(jsonnet_path=path)


def load_warning_texts(path: Path) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_task_config(jsonnet_path=path)
    assert all(issubclass(w.category, GenbenchConfigWarning) for w in caught), [str(w.message) for w in caught]
    return [str(w.message) for w in caught]


def test_a_misspelt_key_warns_with_file_line_field_and_did_you_mean(tmp_path):
    path = write_config(tmp_path, has_train_sett=False)
    (message,) = load_warning_texts(path)
    assert message == f"{path}:{line_of(path, 'has_train_sett')}: has_train_sett: unknown field, ignored; " + (
        "did you mean `has_train_set`?"
    )


def test_a_field_at_the_wrong_level_is_told_where_it_belongs(tmp_path):
    path = write_config(tmp_path, input_prefix="In: ")
    (message,) = load_warning_texts(path)
    assert "input_prefix: unknown field, ignored; it belongs in " in message
    assert "`preparation_strategies.prompt_based_testing.prompt_builder`" in message


def test_extra_metric_keys_are_kept_but_not_passed_to_compute(tmp_path):
    metrics = [{"hf_id": "f1", "average": "macro", "best_score": 1.0}]
    path = write_config(tmp_path, task_type="multiple_choice", evaluation_metrics=metrics)
    (message,) = load_warning_texts(path)
    assert "evaluation_metrics.0.average: unknown field, kept on the config, but not used" in message
    assert 'write compute_extra_kwargs: {average: "macro"}' in message
    config = quietly_load(path)
    metric = config.evaluation_metrics[0]
    assert metric.model_extra == {"average": "macro"}
    assert metric.compute_extra_kwargs is None  # the original passed only compute_extra_kwargs to compute


@pytest.mark.parametrize(
    ("entry", "key", "fix"),
    [
        (
            {"hf_id": "f1", "average": "macro"},
            "average",
            'to pass it to the metric\'s compute, write compute_extra_kwargs: {average: "macro"}',
        ),
        ({"hf_id": "accuracy", "best_scor": 1.0}, "best_scor", "did you mean `best_score`?"),
        (
            {"hf_id": "accuracy", "input_prefix": "Q: "},
            "input_prefix",
            "it belongs in `preparation_strategies.prompt_based_testing.prompt_builder`: move it there",
        ),
    ],
)
def test_a_metric_entry_validated_alone_warns_as_the_loader_does_and_keeps_the_key(tmp_path, entry, key, fix):
    path = write_config(tmp_path, task_type="multiple_choice", evaluation_metrics=[entry])
    (loader_message,) = load_warning_texts(path)
    with pytest.warns(GenbenchConfigWarning) as caught:
        metric = EvaluationMetricConfig.model_validate(entry)
    (warning,) = caught
    assert metric.model_extra == {key: entry[key]} and metric.compute_extra_kwargs is None  # lenient: accepted
    assert str(warning.message) == f"<config>: {key}: unknown field, kept on the config, but not used; {fix}"
    assert warning.message.field == key
    # The loader's text is the same, with the file, line and the entry's path in front.
    assert loader_message.endswith(
        f"evaluation_metrics.0.{key}: unknown field, kept on the config, but not used; {fix}"
    )


def test_the_loader_warns_once_per_unknown_metric_key(tmp_path):
    path = write_config(tmp_path, evaluation_metrics=[{"hf_id": "exact_match", "ignore_case": True}])
    assert len(load_warning_texts(path)) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a known entry validates without any warning
        EvaluationMetricConfig.model_validate({"hf_id": "exact_match", "compute_extra_kwargs": {"ignore_case": True}})


def test_legacy_metric_forms_of_the_seed_guide_load_as_exact_match(tmp_path):
    path = write_config(tmp_path, evaluation_metrics=[{"type": "hf", "path": ["EM"]}, {"hf_id": "EM"}])
    first, second = load_warning_texts(path)
    assert "evaluation_metrics.0.path: the original guide's legacy metric form; write hf_id: 'exact_match'" in first
    assert "evaluation_metrics.1.hf_id: 'EM' is a legacy metric name; write hf_id: 'exact_match'" in second
    config = quietly_load(path)
    assert [m.hf_id for m in config.evaluation_metrics] == ["exact_match", "exact_match"]


def test_the_seed_guide_sample_config_loads(tmp_path):
    # The free-form sample of the original guide: legacy metric and flat prompt builder options.
    path = tmp_path / "config.jsonnet"
    path.write_text(
        """{
name: 'Sample LLM json task',
description: 'Sample LLM task with dummy data that works with only json, for illustration purposes',
keywords: ['sample_task'], authors: ['GenBench team'],
data_source: {type: 'manual', test: 'https://github.com/GenBench/genbench_cbt/dummy_data/LLM_test.jsonl'},
has_validation_set: false, has_train_set: false,
task_type: 'free_form',
evaluation_metrics: [{type: 'hf', path: ['EM']}],
preparation_strategies: {prompt_based_testing: {instruction: 'Add two numbers together', input_prefix: 'Q: ',
                                                output_prefix: 'A: '}},
}"""
    )
    with pytest.warns(GenbenchConfigWarning) as record:
        config = TaskConfig.from_jsonnet(jsonnet_path=path)
    assert [str(w.message).split(": ")[1] for w in record] == [
        "evaluation_metrics.0.path",
        "preparation_strategies.prompt_based_testing.input_prefix",  # jsonnet outputs keys sorted
        "preparation_strategies.prompt_based_testing.prompt_builder.instruction",
    ]
    assert config.evaluation_metrics[0].hf_id == "exact_match"
    assert config.prompt_builder.instruction_zero_shot == "Add two numbers together"
    assert config.prompt_builder.output_prefix == "A: "


def test_empty_strategies_and_metrics_load_with_warnings(tmp_path):
    path = write_config(tmp_path, preparation_strategies={}, evaluation_metrics=[])
    messages = load_warning_texts(path)
    assert [m.split(": ")[1] for m in messages] == ["preparation_strategies", "evaluation_metrics"]
    assert "names no strategy" in messages[0] and "is an empty list" in messages[1]


def test_our_cross_field_rules_are_warnings(tmp_path):
    # The original framework's own test tasks: a regex on a multiple-choice task, finetuning without a train set.
    path = write_config(
        tmp_path,
        task_type="multiple_choice",
        free_form_output_regex=r"\d+",
        preparation_strategies={"finetuning": {"objective": "maximum_likelihood"}},
    )
    messages = load_warning_texts(path)
    assert any("free_form_output_regex: is not used by a multiple_choice task" in m for m in messages)
    assert any(
        "preparation_strategies.finetuning: needs a train set, but has_train_set is not true" in m for m in messages
    )
    config = quietly_load(path)
    assert config.free_form_output_regex == r"\d+"


def test_task_fields_in_a_task_dict_config_are_shared_information(tmp_path):
    path = tmp_path / "config.jsonnet"
    path.write_text("{\n  name: 'D',\n  task_type: 'free_form',\n  colour: 'blue',\n}\n")
    with pytest.warns(GenbenchConfigWarning) as record:
        config = load_task_dict_config(jsonnet_path=path)
    messages = [str(w.message) for w in record]
    assert messages[0].startswith(f"{path}:3: task_type: a task field in the config of a task with subtasks")
    assert messages[1].startswith(f"{path}:4: colour: unknown field, kept on the config")
    assert config.model_extra == {"task_type": "free_form", "colour": "blue"}


def test_what_makes_a_task_unusable_stays_an_error(tmp_path):
    path = write_config(tmp_path, data_source={"type": "manual"}, task_type="multi_choice")
    with pytest.raises(ConfigError) as info:
        load_task_config(jsonnet_path=path)
    assert info.value.fields == ["data_source.test", "task_type"]  # in file order
    assert "got the string 'multi_choice'; did you mean 'multiple_choice'?" in str(info.value)


def test_the_cause_is_reported_not_its_consequences(tmp_path):
    # A bad has_train_set is an error; the rules it would break (finetuning needs a train set, train file given
    # without has_train_set) are not reported on top of it.
    path = write_config(
        tmp_path,
        has_train_set="false",
        data_source={"type": "manual", "test": "t.jsonl", "train": "r.jsonl"},
        preparation_strategies={"finetuning": {"objective": "maximum_likelihood"}},
    )
    with warnings.catch_warnings(record=True) as caught, pytest.raises(ConfigError) as info:
        warnings.simplefilter("always")
        load_task_config(jsonnet_path=path)
    assert str(info.value) == (
        f"{path}:{line_of(path, 'has_train_set')}: has_train_set: expected a valid boolean, got the string 'false'"
    )
    assert caught == []


def test_independent_warnings_are_shown_with_an_error(tmp_path):
    path = write_config(tmp_path, name=5, colour="blue")
    with pytest.warns(GenbenchConfigWarning, match="colour: unknown field"), pytest.raises(ConfigError) as info:
        load_task_config(jsonnet_path=path)
    assert info.value.fields == ["name"]


def test_collect_config_warnings_returns_records_for_the_gate(tmp_path):
    path = write_config(tmp_path / "task", colour="blue", free_form_output_regex="")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # collecting never emits
        found = collect_config_warnings(tmp_path / "task")
    assert [(w.field, w.line) for w in found] == [
        ("colour", line_of(path, "colour")),
        ("free_form_output_regex", line_of(path, "free_form_output_regex")),
    ]
    assert all(isinstance(w, GenbenchConfigWarning) and w.file == str(path) for w in found)
    assert str(found[0]).startswith(f"{path}:{line_of(path, 'colour')}: colour: unknown field")
    assert collect_config_warnings(write_config(tmp_path / "clean")) == []


def test_collect_config_warnings_covers_a_task_dict_and_its_subtasks(tmp_path):
    root = tmp_path / "dict_task"
    root.mkdir()
    config = "{name: 'D', subtasks_order: ['first', 'second'], data_source: {type: 'manual', test: 't.jsonl'}}"
    (root / "config.jsonnet").write_text(config)
    (root / "task.py").write_text("")  # a stray task.py next to subtask directories
    write_config(root / "first")
    write_config(root / "second", colour="blue")
    found = collect_config_warnings(root)
    assert [(Path(w.file).parent.name, w.field) for w in found] == [
        ("dict_task", "data_source"),
        ("dict_task", ""),
        ("second", "colour"),
    ]
    # The loader's own warning, with the loader's text, naming the task.py it ignores.
    assert str(found[1]) == (
        f"{root / 'task.py'}: ignored: dict_task is a task with subtasks (its config lists subtasks_order). "
        "Remove this task.py, or move it into a subtask directory."
    )
    assert [w.field for w in collect_config_warnings(root, subtasks=False)] == ["data_source", ""]


def test_collect_config_warnings_raises_for_a_config_that_does_not_load(tmp_path):
    path = write_config(tmp_path, keywords=[])
    with pytest.raises(ConfigError, match="keywords: expected at least 1 item"):
        collect_config_warnings(path)
