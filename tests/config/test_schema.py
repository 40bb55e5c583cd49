"""Each rule of the task config schema, and the error it gives."""

from __future__ import annotations

import copy
import json
import warnings

import pytest

from genbench import TaskConfig
from genbench._core.errors import ConfigError, GenbenchConfigWarning
from genbench._core.vocabulary import TaskType
from genbench.config import load_task_config, task_config_from_dict, task_config_json_schema
from genbench.config._documents import check_task_config

VALID = {
    "name": "My Awesome Task",
    "description": "Some short description of it",
    "keywords": ["addition", "math"],
    "authors": ["John Doe"],
    "data_source": {"type": "manual", "test": "data/test.jsonl", "train": "data/train.jsonl"},
    "has_train_set": True,
    "task_type": "multiple_choice",
    "field_mapping": {"input": "question", "target": "label", "target_options": "options"},
    "evaluation_metrics": [{"hf_id": "accuracy", "best_score": 1.0}],
    "preparation_strategies": {
        "finetuning": {"objective": "maximum_likelihood"},
        "prompt_based_testing": {"prompt_builder": {"instruction_zero_shot": "Answer.\n"}},
    },
}


def with_changes(**changes):
    doc = copy.deepcopy(VALID)
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        node = doc
        for p in parents:
            node = node[p]
        if value is KeyError:
            node.pop(last, None)
        else:
            node[last] = value
    return doc


def problems(doc) -> dict[str, str]:
    with pytest.raises(ConfigError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore", GenbenchConfigWarning)  # the lenient problems are tested with `warned`
        task_config_from_dict(doc, file="config.jsonnet")
    assert isinstance(info.value, ValueError)
    return {p.field: p.message for p in info.value.problems}


def warned(doc) -> dict[str, str]:
    """The lenient problems of a document that loads (each a GenbenchConfigWarning when loaded)."""
    _, found = check_task_config(doc, file="config.jsonnet")
    return {p.field: p.message for p in found}


def test_valid_config_and_defaults():
    assert warned(VALID) == {}
    config = task_config_from_dict(VALID)
    assert config.task_type is TaskType.MULTIPLE_CHOICE
    assert config.has_validation_set is False
    builder = config.preparation_strategies.prompt_based_testing.prompt_builder
    assert builder.instruction_zero_shot == "Answer.\n"
    assert (builder.input_prefix, builder.output_prefix, builder.choices_prefix) == ("Q: ", "\nA: ", "\nchoices: \n")
    assert (builder.choice_item_prefix, builder.choice_item_postfix) == ("- ", "\n")
    assert (builder.few_shot_example_separator, builder.stop_string) == ("\n\n", "\n\n")
    assert builder.sequence_labeling_separator == "," and builder.permute_choices is False
    assert builder.append_choices_to_input is True and builder.instruction_few_shot == ""


def test_unknown_key_warns_with_its_path_and_a_suggestion():
    found = warned(with_changes(preparation_strategies__prompt_based_testing__prompt_builder__input_prefx="Q"))
    message = found["preparation_strategies.prompt_based_testing.prompt_builder.input_prefx"]
    assert message == "unknown field, ignored; did you mean `input_prefix`?"


def test_string_false_for_bool_is_an_error():
    found = problems(with_changes(has_train_set="false"))
    assert found["has_train_set"] == "expected a valid boolean, got the string 'false'"


def test_missing_required_fields_reported_together():
    found = problems(with_changes(name=KeyError, authors=KeyError, preparation_strategies=KeyError))
    assert {"name", "authors", "preparation_strategies"} <= set(found)
    assert all(found[f] == "required field is missing" for f in ("name", "authors", "preparation_strategies"))


def test_wrong_task_type_names_the_allowed_values():
    found = problems(with_changes(task_type="multi_choice"))
    assert "'free_form', 'multiple_choice', 'sequence_labeling' or 'reranking'" in found["task_type"]
    assert "'multi_choice'" in found["task_type"]


def test_empty_keywords_and_authors_rejected():
    found = problems(with_changes(keywords=[], authors=[]))
    assert "at least 1" in found["keywords"] and "at least 1" in found["authors"]


def test_hf_source_requires_id_and_sha_and_forbids_urls():
    doc = with_changes(data_source={"type": "hf", "test": "x.jsonl"}, has_train_set=False)
    found = problems(doc)
    assert found["data_source.hf_id"] == "required when data_source.type is 'hf'"
    assert found["data_source.git_commit_sha"] == "required when data_source.type is 'hf'"
    doc["data_source"].update(hf_id="snli", git_commit_sha="abc")
    assert "is not used by an 'hf' data source" in warned(doc)["data_source.test"]


def test_manual_source_requires_test_and_known_scheme():
    found = problems(with_changes(data_source={"type": "manual", "train": "ftp://x/train.jsonl"}))
    assert "required when data_source.type is 'manual'" in found["data_source.test"]
    assert "unsupported URI scheme 'ftp'" in found["data_source.train"]


def test_has_train_set_must_match_the_data_source():
    found = warned(with_changes(data_source={"type": "manual", "test": "t.jsonl"}))
    assert found["has_train_set"].startswith("is true but data_source.train is not given")
    found = warned(with_changes(has_validation_set=False, data_source__validation="v.jsonl"))
    assert found["data_source.validation"].startswith("is given but has_validation_set is not true: set has_valid")


def test_split_file_lifts_the_train_set_check():
    config = task_config_from_dict(
        with_changes(data_source={"type": "manual", "test": "t.jsonl"}, split_file="s.jsonnet")
    )
    assert config.split_file == "s.jsonnet"


def test_sha256_must_be_hex_and_name_a_declared_file():
    found = problems(with_changes(data_source__sha256={"test": "abc", "validation": "0" * 64}))
    assert "data_source.sha256.test" in found
    found = warned(with_changes(data_source__sha256={"validation": "0" * 64}))
    assert found["data_source.sha256.validation"].startswith("no data_source.validation file is declared")


def test_field_mapping_must_map_input_and_target_and_fit_the_task_type():
    found = problems(with_changes(field_mapping={"input": "q"}))
    assert "must map 'target'" in found["field_mapping"]
    found = warned(with_changes(task_type="free_form"))
    assert found["field_mapping.target_options"].startswith("is not used: only multiple-choice and reranking")
    found = warned(with_changes(field_mapping__labels="x"))
    assert "unknown field, ignored" in found["field_mapping.labels"]


def test_regex_must_compile_and_only_for_free_form():
    found = problems(with_changes(task_type="free_form", field_mapping=None, free_form_output_regex="(unclosed"))
    assert found["free_form_output_regex"].startswith("not a valid regular expression")
    found = warned(with_changes(free_form_output_regex=r"\d+"))
    assert found["free_form_output_regex"] == "is not used by a multiple_choice task (only free_form); delete it"


def test_preparation_strategies_need_one_and_finetuning_needs_train():
    found = warned(with_changes(preparation_strategies={}))
    assert "give at least one of" in found["preparation_strategies"]
    doc = with_changes(data_source={"type": "manual", "test": "t.jsonl"}, has_train_set=False)
    assert "needs a train set" in warned(doc)["preparation_strategies.finetuning"]


def test_metric_entries_validated():
    found = problems(with_changes(evaluation_metrics=[{"hf_id": "accuracy", "best_score": "1.0", "extra": 1}]))
    assert set(found) == {"evaluation_metrics.0.best_score"}
    found = warned(with_changes(evaluation_metrics=[{"hf_id": "accuracy", "best_score": 1.0, "extra": 1}]))
    assert found["evaluation_metrics.0.extra"].startswith("unknown field, kept on the config, but not used")


def test_legacy_instruction_is_accepted_with_a_deprecation_warning():
    doc = with_changes(preparation_strategies__prompt_based_testing__prompt_builder={"instruction": "Add."})
    with pytest.warns(GenbenchConfigWarning, match="instruction: legacy spelling; write `instruction_zero_shot`"):
        config = task_config_from_dict(doc)
    assert config.prompt_builder.instruction_zero_shot == "Add."


def test_legacy_flat_prompt_builder_of_the_guide_is_accepted():
    doc = with_changes(preparation_strategies__prompt_based_testing={"instruction": "Add.", "input_prefix": "In: "})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = task_config_from_dict(doc)
    assert {type(w.message) for w in caught} == {GenbenchConfigWarning}
    assert config.prompt_builder.input_prefix == "In: " and config.prompt_builder.instruction_zero_shot == "Add."


def test_errors_name_file_and_line():
    source = """{
  name: 'x', description: 'y', keywords: ['k'], authors: ['a'],
  data_source: {type: 'manual', test: 't.jsonl'},
  task_type: 'free_form',
  has_train_set: 'yes',
  preparation_strategies: {prompt_based_testing: {}},
}"""
    with pytest.raises(ConfigError) as info:
        load_task_config(jsonnet_str=source)
    (problem,) = info.value.problems
    assert problem.field == "has_train_set" and problem.line == 5
    assert str(info.value) == "<config>:5: has_train_set: expected a valid boolean, got the string 'yes'"


def test_jsonnet_syntax_error_keeps_line_and_column(tmp_path):
    path = tmp_path / "config.jsonnet"
    path.write_text("{\n  name: 'x',\n  description: }\n")
    with pytest.raises(ConfigError) as info:
        TaskConfig.from_jsonnet(jsonnet_path=path)
    (problem,) = info.value.problems
    assert (problem.line, problem.column) == (3, 16)
    assert str(info.value).startswith(f"{path}:3:16: syntax error")


def test_jsonnet_imports_are_confined_to_the_task_dir(tmp_path):
    task_dir = tmp_path / "task"
    task_dir.mkdir()
    (tmp_path / "secret.txt").write_text("secret")
    (task_dir / "shared.libsonnet").write_text("{ name: 'from lib' }")
    ok = task_dir / "ok.jsonnet"
    ok.write_text("(import 'shared.libsonnet').name")
    from genbench.config import evaluate_jsonnet

    assert evaluate_jsonnet(path=ok) == "from lib"
    bad = task_dir / "config.jsonnet"
    bad.write_text("{ x: importstr '../secret.txt' }")
    with pytest.raises(ConfigError, match="confined to the task directory"):
        evaluate_jsonnet(path=bad)


def test_top_level_must_be_an_object():
    with pytest.raises(ConfigError, match="expected an object at the top level, got a list"):
        load_task_config(jsonnet_str="[1, 2]")


def test_original_framework_config_test_still_passes():
    # The original framework's tests/test_task_config.py config, unchanged (legacy `instruction` key).
    source = """{
    name: 'My Awesome Task', description: 'Some short description of it',
    keywords: ['addition', 'math', 'numbers'], authors: ['John Doe'],
    data_source: {type: 'hf', hf_id: 'snli', git_commit_sha: '070042b...............'},
    has_validation_set: true, has_train_set: true,
    task_type: 'free_form', free_form_output_regex: '',
    field_mapping: {input: 'hf_ds_field_1', target: 'hf_ds_field_2'},
    split_file: 'split.json',
    evaluation_metrics: [
        {hf_id: 'accuracy', git_commit_sha: '758135da6a37ce962b7bc38c6dd5eab672d2b742', best_score: 1.0},
    ],
    preparation_strategies: {prompt_based_testing: {prompt_builder: {
        instruction: 'Add two numbers together', input_prefix: 'Q: ', output_prefix: 'A: ',
        choices_prefix: '\\n  choice: ', append_choices_to_input: true, few_shot_example_separator: '\\n',
        stop_string: '\\n\\n'}}},
}"""
    with pytest.warns(GenbenchConfigWarning):
        config = TaskConfig.from_jsonnet(jsonnet_str=source)
    assert config.name == "My Awesome Task"
    assert config.keywords == ["addition", "math", "numbers"]
    assert config.preparation_strategies.prompt_based_testing.prompt_builder.input_prefix == "Q: "


def test_json_schema_covers_every_field_and_forbids_extras():
    schema = task_config_json_schema()
    assert set(schema["properties"]) == set(TaskConfig.model_fields)
    assert schema["additionalProperties"] is False
    builder = schema["$defs"]["PromptBuilderConfig"]
    assert builder["additionalProperties"] is False and builder["properties"]["input_prefix"]["default"] == "Q: "
    json.dumps(schema)  # serialisable


def test_to_json_round_trips(tmp_path):
    config = task_config_from_dict(VALID)
    path = tmp_path / "config.json"
    config.to_json(path)
    assert task_config_from_dict(json.loads(path.read_text())) == config


def test_docs_config_reference_is_generated_from_the_schema():
    from pathlib import Path

    from genbench.config._reference import update_reference_block

    docs = Path(__file__).resolve().parents[2] / "docs" / "config.md"
    text = docs.read_text()
    assert update_reference_block(text) == text, "run: python -m genbench.config._reference docs/config.md"


def test_schema_command_prints_and_writes_the_schema(tmp_path):
    from click.testing import CliRunner

    from genbench.cli import cli

    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 0 and json.loads(result.output)["title"] == "GenBench task config"
    out = tmp_path / "schema.json"
    result = CliRunner().invoke(cli, ["schema", "--task-dict", "-o", str(out)])
    assert result.exit_code == 0 and "subtasks_order" in json.loads(out.read_text())["properties"]


def test_local_hf_folder_written_as_a_path_needs_no_commit():
    config = task_config_from_dict(with_changes(data_source={"type": "hf", "hf_id": "./hf_data"}))
    assert config.data_source.git_commit_sha is None
    found = problems(with_changes(data_source={"type": "hf", "hf_id": "hf_data"}, has_train_set=False))
    assert found["data_source.git_commit_sha"] == "required when data_source.type is 'hf'"
