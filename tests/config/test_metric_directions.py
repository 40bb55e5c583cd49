"""``metric_directions``: which way a task's metrics are better, checked in form at load (keys are checked by
test-task, which scores the gold targets), in the JSON Schema and the docs' field table."""

from __future__ import annotations

from pathlib import Path

import pytest

from genbench._core.errors import ConfigError
from genbench._core.metric_direction import declared_direction
from genbench.config import task_config_from_dict, task_config_json_schema
from genbench.config._documents import load_task_config
from genbench.config._schema import TaskDictConfig


def test_a_mapping_of_keys_and_patterns_to_higher_lower_or_zero_loads(task_config) -> None:
    directions = {"hf_wer__wer": "lower", "hf_*": "higher", "gap__*": "zero"}
    config = task_config_from_dict(task_config(metric_directions=directions))
    assert config.metric_directions == directions
    assert declared_direction("hf_wer__wer", config.metric_directions) == "lower"  # the key named exactly wins
    assert declared_direction("hf_exact_match__exact_match", config.metric_directions) == "higher"
    assert declared_direction("gap__hf_exact_match__exact_match", config.metric_directions) == "zero"


def test_a_direction_other_than_higher_lower_or_zero_is_an_error_naming_file_line_and_values(tmp_path: Path) -> None:
    path = tmp_path / "config.jsonnet"
    path.write_text(
        "{\n  name: 'T',\n  description: 'd',\n  keywords: ['k'],\n  authors: ['a'],\n"
        "  data_source: {type: 'manual', test: 'test.jsonl'},\n  has_train_set: false,\n  task_type: 'free_form',\n"
        "  evaluation_metrics: [{hf_id: 'exact_match'}],\n"
        "  preparation_strategies: {prompt_based_testing: {prompt_builder: {}}},\n"
        "  metric_directions: {hf_wer__wer: 'smaller'},\n}\n"
    )
    with pytest.raises(ConfigError) as error:
        load_task_config(jsonnet_path=path)
    assert "config.jsonnet:11: metric_directions.hf_wer__wer: expected 'higher', 'lower' or 'zero'" in str(error.value)


def test_an_empty_key_is_refused() -> None:
    with pytest.raises(ValueError, match="metric_directions"):
        TaskDictConfig.model_validate({"name": "T", "metric_directions": {"": "lower"}})


def test_the_json_schemas_know_the_field() -> None:
    field = task_config_json_schema()["properties"]["metric_directions"]
    (mapping,) = [option for option in field["anyOf"] if option.get("type") == "object"]
    assert mapping["additionalProperties"]["enum"] == ["higher", "lower", "zero"]
    assert "metric_directions" in TaskDictConfig.model_json_schema()["properties"]


def test_the_docs_field_table_lists_it() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "config.md").read_text()
    assert docs.count("| `metric_directions` | mapping \\| null |") == 2  # task config and TaskDict config
