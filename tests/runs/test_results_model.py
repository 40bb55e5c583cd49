"""The typed results model (``ResultsDocument``) and the shipped results JSON Schema describe the same documents.

Until the schema is generated from the model, this test is what keeps the two from drifting apart: the same fields,
the same required ones, in every object of a results document; and documents written by every command read by both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from genbench.cli import cli
from genbench.runs.results import read_results, results_schema_text
from genbench.runs.results_model import (
    BootstrapRecord,
    CacheRecord,
    Evaluation,
    Fingerprint,
    MergedFrom,
    Metric,
    ModelRecord,
    ResultsDocument,
    RunIdentity,
    TaskRecord,
    Taxonomy,
)

SCHEMA = json.loads(results_schema_text())
OBJECTS: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (ResultsDocument, SCHEMA),
    (TaskRecord, SCHEMA["properties"]["task"]),
    (Fingerprint, SCHEMA["properties"]["task"]["properties"]["fingerprint"]),
    (Taxonomy, SCHEMA["properties"]["task"]["properties"]["taxonomy"]),
    (RunIdentity, SCHEMA["properties"]["run_identity"]),
    (MergedFrom, SCHEMA["properties"]["merged_from"]["items"]),
    (ModelRecord, SCHEMA["properties"]["model"]),
    (BootstrapRecord, SCHEMA["properties"]["bootstrap"]),
    (Evaluation, SCHEMA["$defs"]["evaluation"]),
    (Metric, SCHEMA["$defs"]["metric"]),
    (CacheRecord, SCHEMA["$defs"]["evaluation"]["properties"]["cache"]),
]


@pytest.mark.parametrize(("model", "schema"), OBJECTS, ids=[model.__name__ for model, _ in OBJECTS])
def test_the_model_has_the_fields_of_the_schema(model: type[BaseModel], schema: dict[str, Any]) -> None:
    assert set(model.model_fields) == set(schema["properties"])
    required = {name for name, field in model.model_fields.items() if field.is_required()}
    assert required == set(schema.get("required", []))
    assert model.model_config.get("extra") == "forbid" and schema["additionalProperties"] is False


PREDICTOR = """
def predict(requests, task, **options):
    if task == "generate":
        return ["42" for _ in requests]
    return [-float(len(continuation)) for _, continuation in requests]
"""


def test_documents_of_run_and_demo_read_as_the_model(tmp_path: Path) -> None:
    """run (a task, a task with subtasks and its merged result) and demo (baselines): valid for both."""
    (tmp_path / "predictor.py").write_text(PREDICTOR, encoding="utf-8")
    model = f"python:{tmp_path / 'predictor.py'}:predict"
    commands = [
        ["run", "-m", model, "-t", "arithmetic_length,negation_consistency", "--limit", "4",
         "-o", str(tmp_path / "run"),
         "--bootstrap-resamples", "20", "--no-progress"],
        ["demo", "-t", "arithmetic_length", "-o", str(tmp_path / "demo"), "--results-dir", str(tmp_path / "demo_run")],
    ]  # fmt: skip
    for args in commands:
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
    kinds = set()
    for path in sorted([*(tmp_path / "run").rglob("*.json"), *(tmp_path / "demo_run").rglob("*.json")]):
        document, _ = read_results(path)  # the schema's check
        typed = ResultsDocument.model_validate(document)
        assert typed.model_dump(mode="json", exclude_unset=True) == document
        kinds.add((typed.model.kind, typed.task.subtasks is not None))
    assert kinds == {("python", False), ("python", True), ("baseline", False)}
