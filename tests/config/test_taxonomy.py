"""The GenBench taxonomy: its values (checked against the published ones), the config block and keyword hints."""

from __future__ import annotations

import pytest

from genbench._core.errors import ConfigError
from genbench._core.taxonomy import AXES, check_value, mentions_generalisation, suggest_from_keywords
from genbench.config import task_config_from_dict
from genbench.config._json_schema import task_config_json_schema
from genbench.config._taxonomy_block import TaxonomyConfig

# genbench.org's evaluation card generator (GenBench/GenBench.github.io, eval_cards.html, `attrValues`), verbatim.
PUBLISHED = {
    "motivation": ["practical", "cognitive", "intrinsic", "fairness_inclusivity"],
    "generalisation_type": ["compositional", "structural", "across_task", "across_language", "across_domain",
                            "robustness"],
    "shift_type": ["covariate", "label", "full", "assumed"],
    "shift_source": ["naturally_occurring", "partitioned_natural_data", "generated_shifts", "fully_generated_data"],
    "shift_locus": ["train-test", "finetune_train-test", "pretrain-train", "pretrain-test"],
}  # fmt: skip


def _config(**taxonomy: object) -> dict:
    return {
        "name": "x",
        "description": "d",
        "keywords": ["k"],
        "authors": ["a"],
        "data_source": {"type": "manual", "test": "t.jsonl"},
        "task_type": "free_form",
        "preparation_strategies": {"prompt_based_testing": {}},
        "taxonomy": taxonomy,
    }


def _error(**taxonomy: object) -> str:
    with pytest.raises(ConfigError) as error:
        task_config_from_dict(_config(**taxonomy))
    return str(error.value)


def test_the_values_are_the_published_ones_in_the_cards_order():
    assert {name: list(axis.values) for name, axis in AXES.items()} == PUBLISHED
    assert [len(axis.labels) for axis in AXES.values()] == [len(v) for v in PUBLISHED.values()]


def test_a_full_block_loads_and_lists_every_axis():
    config = task_config_from_dict(
        _config(
            motivation="intrinsic",
            generalisation_type="across_language",
            shift_type=["covariate", "label"],
            shift_source="partitioned_natural_data",
            shift_locus="finetune_train-test",
        )
    )
    assert config.taxonomy is not None
    assert config.taxonomy.as_lists() == {
        "motivation": ["intrinsic"],
        "generalisation_type": ["across_language"],
        "shift_type": ["covariate", "label"],
        "shift_source": ["partitioned_natural_data"],
        "shift_locus": ["finetune_train-test"],
    }


def test_a_config_without_the_block_stays_valid():
    document = _config()
    del document["taxonomy"]
    assert task_config_from_dict(document).taxonomy is None


@pytest.mark.parametrize(
    ("taxonomy", "expected"),
    [
        ({"motivation": "pratical"}, "taxonomy.motivation: unknown motivation 'pratical'; did you mean 'practical'?"),
        ({"generalisation_type": "cross-lingual"}, "did you mean 'across_language'?"),
        ({"generalisation_type": "cross-task"}, "did you mean 'across_task'?"),
        ({"shift_source": "generated shift"}, "did you mean 'generated_shifts'?"),
        ({"shift_locus": "finetune train-test"}, "did you mean 'finetune_train-test'?"),
        ({"motivation": "fairness"}, "did you mean 'fairness_inclusivity'?"),
        ({"shift_type": "double shift"}, "a double shift is written as a list of the shift types"),
        ({"shift_locus": ["train-test", "multiple loci"]}, "several loci are written as a list"),
        ({"shift_type": "banana"}, "expected one of 'covariate', 'label', 'full', 'assumed'"),
    ],
)
def test_a_wrong_value_is_an_error_with_a_did_you_mean(taxonomy, expected):
    assert expected in _error(**taxonomy)


def test_one_value_axes_refuse_lists_and_lists_refuse_repeats():
    message = _error(generalisation_type=["compositional", "robustness"])
    assert "taxonomy.generalisation_type: takes one value" in message and "subtasks" in message
    assert "taxonomy.shift_locus: lists a value twice" in _error(shift_locus=["train-test", "train-test"])


def test_an_empty_block_and_an_unknown_axis_are_errors():
    assert "taxonomy: names no axis" in _error()
    assert "taxonomy.shift: unknown field" in _error(shift="covariate")


def test_the_json_schema_lists_the_values():
    definition = task_config_json_schema()["$defs"]["TaxonomyConfig"]
    assert definition["additionalProperties"] is False and definition["minProperties"] == 1
    locus = definition["properties"]["shift_locus"]["anyOf"]
    assert locus[0]["enum"] == PUBLISHED["shift_locus"] and locus[1]["items"]["enum"] == PUBLISHED["shift_locus"]


@pytest.mark.parametrize(
    ("keyword", "field", "value"),
    [
        ("robustness", "generalisation_type", "robustness"),
        ("compositional generalisation", "generalisation_type", "compositional"),
        ("Multilinguality", "generalisation_type", "across_language"),
        ("cross-lingual", "generalisation_type", "across_language"),
        ("cross-domain generalisation", "generalisation_type", "across_domain"),
        ("covariate shift", "shift_type", "covariate"),
        ("naturally occurring shift", "shift_source", "naturally_occurring"),
        ("generated shift", "shift_source", "generated_shifts"),
        ("train-test locus", "shift_locus", "train-test"),
    ],
)
def test_keywords_suggest_values(keyword, field, value):
    (suggestion,) = suggest_from_keywords([keyword])
    assert (suggestion.field, suggestion.value, suggestion.keyword) == (field, value, keyword)


def test_vague_keywords_suggest_nothing_but_ood_is_noticed():
    assert suggest_from_keywords(["o.o.d. generalisation", "task", "language", "math", "sample_task"]) == []
    assert mentions_generalisation(["o.o.d. generalisation", "math"]) == ["o.o.d. generalisation"]


def test_check_value_accepts_only_the_ids():
    assert check_value("shift_locus", "train-test") is None
    assert check_value("shift_locus", "Train-test") is not None  # one spelling, so that groupings agree


def test_the_block_validates_alone():
    assert TaxonomyConfig.model_validate({"shift_type": "full"}).values("shift_type") == ["full"]
