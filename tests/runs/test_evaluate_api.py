"""``genbench.evaluate``: explicit keyword arguments, typed results; ``genbench-cli run`` calls it.

This file is type-checked by mypy (``[tool.mypy] files``): the calls below are how a user's typed code calls it.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

import genbench
from genbench.cli import cli
from genbench.runs import ResultsDocument, TaskResult
from genbench.runs._results_model import Metric
from genbench.runs._shards import ShardError

PREDICTOR = """
def predict(requests, task, **options):
    if task == "generate":
        return ["42" for _ in requests]
    return [-float(len(continuation)) for _, continuation in requests]
"""


@pytest.fixture
def predictor(tmp_path: Path) -> str:
    path = tmp_path / "predictor.py"
    path.write_text(PREDICTOR, encoding="utf-8")
    return f"python:{path}:predict"


def test_evaluate_runs_each_seed_and_task_and_returns_typed_results(predictor: str, tmp_path: Path) -> None:
    results: list[TaskResult] = genbench.evaluate(
        model=predictor,
        tasks=["arithmetic_length", "category_membership"],
        shots=[0, 1],
        seeds=[1, 2],
        limit=3,
        output_dir=tmp_path / "out",
        bootstrap_resamples=20,
    )
    assert [(r.seed, r.task_id) for r in results] == [
        (1, "arithmetic_length"), (1, "category_membership"), (2, "arithmetic_length"), (2, "category_membership"),
    ]  # fmt: skip
    for result in results:
        document: ResultsDocument = result.results
        assert document.seed == result.seed and document.bootstrap.resamples == 20
        assert [e.shots for e in document.evaluations] == [0, 1]
        score: Metric | None = document.score(shots=1)
        assert score is not None and isinstance(score.value, float) and score.ci is not None
        assert result.results_path is not None and len(result.samples) == 6
        written = json.loads(result.results_path.read_text(encoding="utf-8"))
        assert document.model_dump(mode="json", exclude_unset=True) == written  # the file, field for field
    multiple_choice = results[1].results.evaluation(0)
    assert multiple_choice.multiple_choice_method == "loglikelihood"
    with pytest.raises(KeyError, match="no 5-shot evaluation"):
        results[0].results.evaluation(5)


def test_evaluate_takes_only_keyword_arguments_it_names() -> None:
    parameters = inspect.signature(genbench.evaluate).parameters.values()
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters)
    assert {"model", "tasks", "shots", "seeds", "limit", "output_dir", "shard"} <= {p.name for p in parameters}


def _document(predictor: str) -> dict[str, Any]:
    (result,) = genbench.evaluate(model=predictor, tasks="arithmetic_length", limit=2, bootstrap_resamples=10)
    return result.results.model_dump(mode="json", exclude_unset=True)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(extra=1), "extra"),
        (lambda d: d.update(seed="42"), "seed"),
        (lambda d: d["model"].pop("kind"), "model.kind"),
        (
            lambda d: d["evaluations"][0]["metrics"].update(acc={"value": None, "ci": None}),
            "evaluations.0.metrics.acc",
        ),
        (lambda d: d["task"].update(id="Bad Id"), "task.id"),
    ],
)
def test_the_results_model_refuses_what_the_schema_refuses(predictor: str, change: Any, field: str) -> None:
    document = _document(predictor)
    ResultsDocument.model_validate(document)
    change(document)
    with pytest.raises(ValidationError) as raised:
        ResultsDocument.model_validate(document)
    assert field in {".".join(str(part) for part in error["loc"]) for error in raised.value.errors()}


def test_the_run_command_is_a_layer_over_evaluate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []

    def recording_evaluate(**options: Any) -> list[TaskResult]:
        calls.append(options)
        return []

    monkeypatch.setattr("genbench.runs._evaluation.evaluate", recording_evaluate)
    args = ["run", "-m", "python:x.py:f", "-t", "arithmetic_length", "--shots", "0,3", "--seed", "7", "-o", "out"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    (options,) = calls
    assert options["model"] == "python:x.py:f" and options["tasks"] == ["arithmetic_length"]
    assert list(options["shots"]) == [0, 3] and options["seeds"] == 7 and options["shard"] is None


def test_a_shard_needs_an_output_folder_and_cached_answers(predictor: str, tmp_path: Path) -> None:
    with pytest.raises(ShardError, match="give output_dir"):
        genbench.evaluate(model=predictor, tasks="arithmetic_length", shard="1/2")
    with pytest.raises(ShardError, match="its answers are never cached, so shards cannot hand them to the merge"):
        genbench.evaluate(model=predictor, tasks="arithmetic_length", shard="1/2", output_dir=tmp_path)
    assert not (tmp_path / "shards").exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"tasks": []}, r"\[\] names no task"),
        ({"tasks": " , "}, "names no task"),
        ({"tasks": "arithmetic_length", "seeds": []}, r"seeds: give at least one seed"),
        ({"tasks": "arithmetic_length", "shots": []}, r"shots: give at least one number of few-shot examples"),
    ],
    ids=["no-tasks", "blank-tasks", "no-seeds", "no-shots"],
)
def test_an_empty_choice_is_an_error_not_an_empty_run(tmp_path: Path, arguments: dict[str, Any], message: str) -> None:
    # no tasks or no seeds returned [] silently; no shots failed on the results schema ("evaluations: List should
    # have at least 1 item"), naming an internal file
    from genbench._core.errors import GenBenchError

    with pytest.raises(GenBenchError, match=message):
        genbench.evaluate(model="python:no_such_module:predict", output_dir=tmp_path, **arguments)
    assert not any(tmp_path.iterdir())  # checked before the model is loaded or anything written
