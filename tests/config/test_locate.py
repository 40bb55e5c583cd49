"""The line a config problem names is the line of the value itself: not a comment or a string that mentions the
field, the last of a field set twice; a file's problems are listed in file order (in the CLI too)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from genbench._core.errors import ConfigError
from genbench.authoring._scaffold import create_task
from genbench.cli import cli
from genbench.config._documents import load_task_config
from genbench.config._locate import locate

COMMENTED = """\
// has_train_set: true (a line comment)
# has_train_set: true (a hash comment)
/* has_train_set: true,
   data_source: { type: 'hf' } (a block comment) */
{
  description: 'set has_train_set: true when ...',
  notes: |||
    has_train_set: true
  |||,
  data_source: {
    // type: 'hf',
    type: 'manual',
  },
  has_train_set: 'true',
}
"""


def line_containing(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(
    ("field", "expected"),
    [("has_train_set", "has_train_set: 'true'"), ("data_source.type", "type: 'manual'")],
)
def test_comments_and_strings_that_name_the_field_are_skipped(field, expected):
    assert locate(COMMENTED, field) == line_containing(COMMENTED, expected)


def test_a_field_set_twice_is_located_where_it_wins():
    source = "{\n  task_type: 'free_form',\n  data_source: {type: 'manual'},\n}\n+ {\n  task_type: 'multi',\n}\n"
    assert locate(source, "task_type") == 6
    assert locate(source, "data_source.type") == 3


def test_array_elements_and_quoted_keys():
    source = "{\n  'evaluation_metrics': [\n    {hf_id: 'a'},\n    {\n      hf_id: 'b',\n    },\n  ],\n}\n"
    assert locate(source, "evaluation_metrics.1.hf_id") == 5
    assert locate(source, "evaluation_metrics.0.hf_id") == 3
    assert locate(source, "evaluation_metrics.1") == 4
    assert locate(source, "evaluation_metrics.1.missing") == 4  # the nearest parent that is defined


def test_local_bindings_are_not_the_document():
    source = "local base = {\n  task_type: 'x',\n};\n{\n  task_type: 'free_form',\n}\n"
    assert locate(source, "task_type") == 5


def test_problems_of_a_file_are_listed_in_file_order(tmp_path):
    path = tmp_path / "config.jsonnet"
    path.write_text(
        "{\n  name: 'N',\n  description: 'D',\n  keywords: ['k'],\n  authors: ['A'],\n"
        "  data_source: {type: 'manual'},\n  has_validation_set: 'false',\n"
        "  has_train_set: 'true',\n  task_type: 'multi_choice',\n  evaluation_metrics: [{hf_id: 'exact_match'}],\n"
        "  preparation_strategies: {prompt_based_testing: {prompt_builder: {}}},\n}\n"
    )
    with pytest.raises(ConfigError) as info:
        load_task_config(jsonnet_path=path)
    # The missing test split is found by a cross-field rule, after the schema's errors: listed by line all the same.
    assert info.value.fields == ["data_source.test", "has_validation_set", "has_train_set", "task_type"]
    lines = [int(m) for m in re.findall(r"config\.jsonnet:(\d+):", str(info.value))]
    assert lines == [6, 7, 8, 9]


def _break_created_task(task_dir):
    config = task_dir / "config.jsonnet"
    source = config.read_text().replace("has_train_set: true,", "has_train_set: 'true',")
    source = source.replace("task_type: 'free_form',", "task_type: 'multi_choice',")
    config.write_text(source)
    return config, source


def test_a_created_task_with_a_bool_written_as_a_string_points_at_the_value(task_root):
    # The template's comments mention `has_train_set: true` above the field (the docs' standard example).
    config, source = _break_created_task(create_task("Line Finder", tasks_dir=task_root))
    true_lines = [line_containing(source, "has_train_set: 'true'"), line_containing(source, "task_type: 'multi")]
    with pytest.raises(ConfigError) as info:
        load_task_config(jsonnet_path=config)
    named = [int(m) for m in re.findall(r"config\.jsonnet:(\d+): ", str(info.value))]
    assert named == true_lines


def test_show_task_names_the_same_lines(task_root):
    config, source = _break_created_task(create_task("Line Finder", tasks_dir=task_root))
    result = CliRunner().invoke(cli, ["show-task", "-t", "line_finder"])
    assert result.exit_code != 0
    output = result.output
    true_lines = [line_containing(source, "has_train_set: 'true'"), line_containing(source, "task_type: 'multi")]
    named = [int(m) for m in re.findall(r"config\.jsonnet:(\d+): ", output)]
    assert named == true_lines, output
