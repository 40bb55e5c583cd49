"""Per-sample log lines are checked by a compiled validator first (fastjsonschema) and by jsonschema where it
refuses one: both must agree on every sample, valid or broken, or the fast path would weaken what is checked."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genbench.runs._errors import ResultsFileError
from genbench.runs._results import FAST_DEFINITIONS, read_results, results_schema_text, schema_problems
from tests.runs.results_pairs import write_pair

# Keywords that mean the same in draft 7 (what fastjsonschema implements) and draft 2020-12 (the schema's draft).
SAME_IN_BOTH_DRAFTS = {"type", "required", "properties", "additionalProperties", "items", "enum", "const", "minimum",
                       "maximum", "minLength", "maxLength", "pattern", "description", "$ref"}  # fmt: skip

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)
valid_samples = st.fixed_dictionaries(
    {
        "shots": st.none() | st.integers(min_value=0),
        "_genbench_idx": st.integers() | st.integers(-1000, 1000).map(float),  # 3.0 is an integer in JSON Schema
        "prompt": st.none() | st.text(),
        "raw_output": json_values,
        "prediction": json_values,
        "target": json_values,
        "metrics": st.dictionaries(st.text(), st.none() | st.integers() | st.floats(allow_nan=False)),
    },
    optional={"prediction_length_normalised": json_values, "extra": json_values},
)


@st.composite
def broken_samples(draw: st.DrawFn) -> Any:
    """A valid sample with one field dropped or replaced by any JSON value (often, not always, invalid)."""
    sample = draw(valid_samples)
    field = draw(st.sampled_from(sorted(sample)))
    if draw(st.booleans()):
        del sample[field]
    elif field == "metrics" and sample["metrics"] and draw(st.booleans()):
        sample["metrics"][draw(st.sampled_from(sorted(sample["metrics"])))] = draw(json_values)
    else:
        sample[field] = draw(json_values)
    if draw(st.booleans()):  # sometimes not an object at all
        return draw(st.sampled_from([[sample], json.dumps(sample), None]))
    return sample


SAMPLE_SCHEMA = {**json.loads(results_schema_text()), "$ref": "#/$defs/sample"}
for _key in ("required", "properties", "additionalProperties", "type"):
    SAMPLE_SCHEMA.pop(_key, None)
COMPILED = fastjsonschema.compile(SAMPLE_SCHEMA)
INTERPRETED = jsonschema.Draft202012Validator(SAMPLE_SCHEMA)


def compiled_accepts(document: Any) -> bool:
    try:
        COMPILED(document)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def jsonschema_accepts(document: Any) -> bool:
    return not list(INTERPRETED.iter_errors(document))


def keywords(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(keywords(item) for item in node))
    if not isinstance(node, dict):
        return set()
    found = set(node)
    for key, value in node.items():  # the names under "properties" are field names, their values schemas
        found |= set().union(*map(keywords, value.values())) if key == "properties" else keywords(value)
    return found


def test_fast_definitions_use_only_keywords_both_drafts_share() -> None:
    definitions = json.loads(results_schema_text())["$defs"]
    for name in FAST_DEFINITIONS:
        assert keywords(definitions[name]) <= SAME_IN_BOTH_DRAFTS, name


@settings(max_examples=300, deadline=None)
@given(valid_samples)
def test_both_validators_accept_valid_samples(sample: dict[str, Any]) -> None:
    before = copy.deepcopy(sample)
    assert jsonschema_accepts(sample) and compiled_accepts(sample)
    assert schema_problems(sample, "sample") == [] and sample == before  # the compiled check never fills defaults


@settings(max_examples=500, deadline=None)
@given(broken_samples())
def test_the_compiled_validator_accepts_exactly_what_jsonschema_accepts(document: Any) -> None:
    assert compiled_accepts(document) == jsonschema_accepts(document)
    assert (schema_problems(document, "sample") == []) == jsonschema_accepts(document)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"_genbench_idx": True}, "_genbench_idx: True is not of type 'integer'"),
        ({"_genbench_idx": 1.5}, "_genbench_idx: 1.5 is not of type 'integer'"),
        ({"metrics": {"accuracy": "1"}}, "metrics.accuracy: '1' is not of type 'number', 'null'"),
        ({"shots": "0"}, "shots: '0' is not of type 'integer', 'null'"),
    ],
)
def test_a_broken_log_line_is_named_with_its_file_line_and_problem(
    tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    path = write_pair(tmp_path)
    document = json.loads(path.read_text())
    log = tmp_path / document["samples_file"]
    lines = log.read_text().splitlines()
    lines[2] = json.dumps({**json.loads(lines[2]), **change})
    log.write_text("\n".join(lines) + "\n")
    document.pop("samples_sha256")
    document.pop("samples_count")
    path.write_text(json.dumps(document))
    with pytest.raises(ResultsFileError) as error:
        read_results(path)
    assert f"{log}:3: {problem}" in str(error.value)
