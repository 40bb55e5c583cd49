"""Per-sample log lines are checked by the typed model (``Sample``): it must accept exactly the lines the shipped
schema accepts (jsonschema, as other tools read it), valid or broken, and name a broken line's file, line and field."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genbench.runs._errors import ResultsFileError
from genbench.runs._results import read_results, results_schema_text, schema_problems, write_results
from tests.runs.results_pairs import results_document, samples, write_pair

# Integers within a float's range: the strict JSON reader refuses a larger one in a log, the model refuses it as a
# metric (a JSON Schema number has no bound), so a line holding one is never read.
integers = st.integers(min_value=-(10**300), max_value=10**300)
json_scalars = (
    st.none()
    | st.booleans()
    | integers
    | integers.map(float).filter(lambda number: abs(number) < 1e300)  # 3.0: an integer in JSON Schema
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)
valid_samples = st.fixed_dictionaries(
    {
        "shots": st.none() | st.integers(min_value=0) | st.integers(0, 10).map(float),
        "_genbench_idx": integers | st.integers(-1000, 1000).map(float),
        "prompt": st.none() | st.text(),
        "raw_output": json_values,
        "prediction": json_values,
        "target": json_values,
        "metrics": st.dictionaries(st.text(), st.none() | integers | st.floats(allow_nan=False)),
    },
    optional={"prediction_length_normalised": json_values, "contained": st.booleans(), "extra": json_values},
)


@st.composite
def broken_samples(draw: st.DrawFn) -> Any:
    """A valid sample with one field dropped or replaced by any JSON value (often, not always, invalid)."""
    sample: dict[str, Any] = draw(valid_samples)
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
REFERENCE = jsonschema.Draft202012Validator(SAMPLE_SCHEMA)
"""The shipped schema's `sample` definition, as other tools check it."""


def schema_accepts(document: Any) -> bool:
    return not list(REFERENCE.iter_errors(document))


def model_accepts(document: Any) -> bool:
    before = copy.deepcopy(document)
    problems = schema_problems(document, "sample")
    assert document == before  # the check never fills defaults or converts values in place
    return problems == []


@settings(max_examples=300, deadline=None)
@given(valid_samples)
def test_the_model_and_the_schema_accept_valid_samples(sample: dict[str, Any]) -> None:
    assert schema_accepts(sample) and model_accepts(sample)


@settings(max_examples=500, deadline=None)
@given(broken_samples())
def test_the_model_accepts_exactly_what_the_schema_accepts(document: Any) -> None:
    assert model_accepts(document) == schema_accepts(document)


VALID = samples([1.0])[0]


@pytest.mark.parametrize(
    ("change", "accepted"),
    [
        ({"_genbench_idx": 3.0, "shots": 2.0}, True),  # JSON Schema: a number without a fraction is an integer
        ({"_genbench_idx": -0.0}, True),
        ({"_genbench_idx": 1.5}, False),
        ({"_genbench_idx": True}, False),  # a boolean is no integer, nor a number
        ({"shots": False}, False),
        ({"metrics": {"accuracy": True}}, False),
        ({"metrics": {"accuracy": 1}}, True),  # an integer is a number
        ({"metrics": {"accuracy": None}}, True),
        ({"contained": None}, False),  # may be left out, never null
        ({"contained": 0}, False),
        ({"prediction_length_normalised": None}, True),  # any JSON value
        ({"genbench_idx": 1, "_genbench_idx": 1}, True),  # the field's Python name is a task's own field here
        ({"model_config": 1, "__dict__": 2}, True),
    ],
)
def test_where_strict_pydantic_and_json_schema_could_differ(change: dict[str, Any], accepted: bool) -> None:
    sample = {**VALID, **change}
    assert schema_accepts(sample) is accepted
    assert model_accepts(sample) is accepted


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"_genbench_idx": True}, "_genbench_idx: Input should be a valid integer"),
        ({"_genbench_idx": 1.5}, "_genbench_idx: Input should be a valid integer"),
        ({"metrics": {"accuracy": "1"}}, "metrics.accuracy: Input should be a valid number"),
        ({"shots": "0"}, "shots: Input should be a valid integer"),
        ({"contained": None}, "contained: null is not allowed here: leave the field out"),
        ({"prompt": None, "target": None, "metrics": []}, "metrics: Input should be a valid dictionary"),
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


def test_a_missing_field_of_a_line_is_named_when_written(tmp_path: Path) -> None:
    rows = samples([1.0, 0.0])
    del rows[1]["prompt"]
    with pytest.raises(ResultsFileError) as error:
        write_results(results_document("toy_task"), tmp_path / "toy_task.json", rows)
    assert f"sample 2 for {tmp_path / 'toy_task.json'}: prompt: 'prompt' is required" in str(error.value)
    assert not list(tmp_path.iterdir())
