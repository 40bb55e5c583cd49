"""The shipped results JSON Schema is generated from the typed model (``ResultsDocument``), which checks results
documents; the schema (for other tools) and the model accept the files genbench writes and refuse the same broken
ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from genbench.cli import cli
from genbench.runs._results import read_results, results_schema_text
from genbench.runs._results_model import ResultsDocument
from genbench.runs._results_schema import results_schema_json

SCHEMA = jsonschema.Draft202012Validator(json.loads(results_schema_text()))
"""The shipped schema, as other tools read it (genbench checks documents with the model itself)."""


def test_the_shipped_schema_is_generated_from_the_model() -> None:
    stale = "out of date: python -m genbench.runs._results_schema src/genbench/runs/results.schema.json"
    assert results_schema_text() == results_schema_json(), stale


@pytest.mark.parametrize(
    ("change", "schema_path", "model_path"),
    [
        (lambda d: d.update(extra=1), "(top)", "extra"),
        (lambda d: d.update(seed="42"), "seed", "seed"),
        (lambda d: d.update(seed=True), "seed", "seed"),
        (lambda d: d.update(limit=0), "limit", "limit"),
        (lambda d: d.update(run_identity=None), "run_identity", "run_identity"),
        (lambda d: d["task"].update(subtasks=None), "task.subtasks", "task.subtasks"),
        (lambda d: d["task"].update(id="bad\n"), "task.id", "task.id"),
        (lambda d: d["task"].update(taxonomy={"shift_locus": 1}), "task.taxonomy.shift_locus", "task.taxonomy"),
        (lambda d: d["task"].update(taxonomy={"shift_locus": ["a", "a"]}), "task.taxonomy.shift_locus",
         "task.taxonomy.shift_locus"),
        (lambda d: d["model"].pop("kind"), "model", "model.kind"),
        (lambda d: d["evaluations"][0]["metrics"].update(x={"value": None, "ci": None}), "evaluations.0.metrics.x",
         "evaluations.0.metrics.x"),
        (lambda d: d["evaluations"][0]["metrics"].update(x={"value": 1, "ci": [0]}), "evaluations.0.metrics.x.ci",
         "evaluations.0.metrics.x.ci"),
        (lambda d: d["evaluations"][0].update(cache={"hits": -1}), "evaluations.0.cache.hits",
         "evaluations.0.cache.hits"),
    ],
)  # fmt: skip
def test_the_model_and_the_schema_refuse_the_same_documents(
    document: dict[str, Any], change: Any, schema_path: str, model_path: str
) -> None:
    assert list(SCHEMA.iter_errors(document)) == []
    ResultsDocument.model_validate(document)
    change(document)
    problems = [f"{'.'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in SCHEMA.iter_errors(document)]
    assert any(problem.startswith(f"{schema_path}:") for problem in problems), problems
    with pytest.raises(ValidationError) as raised:
        ResultsDocument.model_validate(document)
    locations = {".".join(str(part) for part in error["loc"]) for error in raised.value.errors()}
    assert any(location.startswith(model_path) for location in locations), locations


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Results files of run (a task, a task with subtasks and its merged result) and of demo (baselines)."""
    tmp_path = tmp_path_factory.mktemp("results")
    (tmp_path / "predictor.py").write_text(PREDICTOR, encoding="utf-8")
    model = f"python:{tmp_path / 'predictor.py'}:predict"
    commands = [
        ["run", "-m", model, "-t", "arithmetic_length,negation_consistency", "--limit", "4",
         "-o", str(tmp_path / "run"), "--bootstrap-resamples", "20", "--no-progress"],
        ["demo", "-t", "arithmetic_length", "-o", str(tmp_path / "demo"), "--results-dir", str(tmp_path / "demo_run")],
    ]  # fmt: skip
    for args in commands:
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
    return sorted([*(tmp_path / "run").rglob("*.json"), *(tmp_path / "demo_run").rglob("*.json")])


@pytest.fixture
def document(written: list[Path]) -> dict[str, Any]:
    return dict(json.loads(written[0].read_text(encoding="utf-8")))


PREDICTOR = """
def predict(requests, task, **options):
    if task == "generate":
        return ["42" for _ in requests]
    return [-float(len(continuation)) for _, continuation in requests]
"""


def test_documents_of_run_and_demo_read_as_the_model(written: list[Path]) -> None:
    kinds = set()
    for path in written:
        document, _ = read_results(path)  # the schema's check
        typed = ResultsDocument.model_validate(document)
        assert typed.model_dump(mode="json", exclude_unset=True) == document
        kinds.add((typed.model.kind, typed.task.subtasks is not None))
    assert kinds == {("python", False), ("python", True), ("baseline", False)}


def _integers_as_floats(node: Any) -> tuple[Any, int]:
    """``node`` with every integer (not bool) written as a float (``3`` -> ``3.0``), and how many there were."""
    if isinstance(node, dict):
        pairs = [(key, _integers_as_floats(value)) for key, value in node.items()]
        return {key: value for key, (value, _) in pairs}, sum(count for _, (_, count) in pairs)
    if isinstance(node, list):
        items = [_integers_as_floats(value) for value in node]
        return [value for value, _ in items], sum(count for _, count in items)
    if isinstance(node, int) and not isinstance(node, bool):
        return float(node), 1
    return node, 0


def test_integers_written_as_floats_are_integers_to_the_model_as_to_the_schema(written: list[Path]) -> None:
    # JSON Schema counts 3.0 as an integer, so another tool may write one: the model (which checks every results
    # file genbench reads) must not refuse what the shipped schema accepts.
    for path in written:
        document = json.loads(path.read_text(encoding="utf-8"))
        floats, count = _integers_as_floats(document)
        assert count >= 8
        assert list(SCHEMA.iter_errors(floats)) == []
        assert ResultsDocument.model_validate(floats).model_dump(mode="json", exclude_unset=True) == document
    floats["seed"] = 2.5
    assert list(SCHEMA.iter_errors(floats))
    with pytest.raises(ValidationError):
        ResultsDocument.model_validate(floats)
