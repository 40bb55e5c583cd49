"""Broken model answers are genbench errors naming the model, the task, the request and the fix; -inf is an answer.

Regression tests of issue 18: NaN / +inf log-likelihoods used to be scored (argmax picks option 0), a legitimate -inf
crashed every rerun with the request cache on, malformed answers ended in TypeError / AttributeError, and a predictor's
SystemExit(0) ended `run` with status 0 and no results.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench import load_task
from genbench.cli import cli
from genbench.runs._errors import ModelAnswerError, ModelRunError
from genbench.runs._execute import run, run_model_on_task
from genbench.runs._request_cache import RequestCache
from genbench.runs._scoring import BootstrapSettings
from genbench.runs.model_runner import ModelRunner
from genbench.runs.specs import ModelSpec, parse_model_spec
from tests.runs.fake_openai import fake_openai_server

FAST = BootstrapSettings(resamples=50, statistic_resamples=10)

PREDICTORS = """
def loglikelihoods(value):
    def predictor(requests, task, **options):
        if task == "loglikelihood":
            return [value] * len(requests)
        raise NotImplementedError
    return predictor

nan = loglikelihoods(float("nan"))
plus_inf = loglikelihoods(float("inf"))
text = loglikelihoods("abc")
surrogate_number = loglikelihoods("\\ud800")
nothing = loglikelihoods(None)

def returns_none(requests, task, **options):
    return None

def returns_a_dict(requests, task, **options):
    return {"answers": ["42"] * len(requests)}

def generates_none(requests, task, **options):
    return [None] * len(requests)

def generates_numbers(requests, task, **options):
    return [42] * len(requests)

def generates_a_surrogate(requests, task, **options):
    return ["4\\ud8002"] * len(requests)

def numpy_lengths(requests, task, **options):
    import numpy as np

    if task == "loglikelihood":
        return -np.array([len(c) for _, c in requests], dtype=np.float32)
    raise NotImplementedError

def generator(requests, task, **options):
    return (prompt[-2:] for prompt in requests)

def exits(requests, task, **options):
    raise SystemExit(0)

def interrupts(requests, task, **options):
    raise KeyboardInterrupt
"""


@pytest.fixture
def predictors(tmp_path: Path) -> Path:
    path = tmp_path / "predictors.py"
    path.write_text(PREDICTORS)
    return path


@pytest.mark.parametrize(
    ("name", "task", "message"),
    [
        ("nan", "category_membership", r"answered NaN: expected a number\. The model produced NaN: check its dtype"),
        (
            "plus_inf",
            "category_membership",
            r"answered \+inf: a log-probability is at most 0\. The model produced \+inf",
        ),
        ("text", "category_membership", r"answered 'abc' \(str\): expected a number"),
        ("surrogate_number", "category_membership", r"answered '\\ud800' \(str\): expected a number"),
        ("nothing", "category_membership", r"answered None \(NoneType\): expected a number"),
        (
            "returns_none",
            "arithmetic_length",
            r"returned None for 3 'generate' requests: expected a list of 3 answers",
        ),
        ("returns_a_dict", "arithmetic_length", r"returned \{'answers': .* expected a list of 3 answers, one str"),
        ("generates_none", "arithmetic_length", r"answered None \(NoneType\): expected a str"),
        ("generates_numbers", "arithmetic_length", r"answered 42 \(int\): expected a str"),
        ("generates_a_surrogate", "arithmetic_length", r"lone surrogate \('\\ud800' at character 1\): expected valid"),
    ],
)
def test_a_broken_answer_is_an_error_naming_model_task_and_request(
    predictors: Path, name: str, task: str, message: str
) -> None:
    spec = f"python:{predictors}:{name}"
    with pytest.raises(ModelAnswerError, match=message) as error:
        run(spec, task, limit=3, bootstrap=FAST)
    text = str(error.value)
    assert text.startswith(f"Model {spec}, task {task!r} (0-shot):")
    if not name.startswith("returns_"):  # a wrong answer list names no single request
        assert "request 0 (" in text and ("prompt '" in text or "context '" in text)


@pytest.mark.parametrize(
    ("name", "task"), [("numpy_lengths", "category_membership"), ("generator", "arithmetic_length")]
)
def test_a_predictor_may_return_any_iterable_of_valid_answers(predictors: Path, name: str, task: str) -> None:
    (task_run,) = run(f"python:{predictors}:{name}", task, limit=3, bootstrap=FAST)
    assert len(task_run.samples) == 3


def test_the_cli_reports_a_broken_answer_with_status_1(predictors: Path, tmp_path: Path) -> None:
    args = ["run", "--model", f"python:{predictors}:nan", "-t", "category_membership", "--limit", "2",
            "-o", str(tmp_path / "out"), "--no-progress"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: Model python:{predictors}:nan, task 'category_membership'")
    assert "TypeError" not in result.output and not (tmp_path / "out").exists()


def test_a_predictor_that_exits_fails_the_run(predictors: Path, tmp_path: Path) -> None:
    args = ["run", "--model", f"python:{predictors}:exits", "-t", "arithmetic_length", "--limit", "2",
            "-o", str(tmp_path / "out"), "--no-progress"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert f"python:{predictors}:exits raised SystemExit(0) on 2 'generate' requests" in result.output
    assert not (tmp_path / "out").exists()


def test_a_predictor_interrupt_stops_the_run_naming_the_predictor(
    predictors: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    args = ["run", "--model", f"python:{predictors}:interrupts", "-t", "arithmetic_length", "--limit", "2",
            "-o", str(tmp_path / "out"), "--no-progress"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code != 0
    assert f"Interrupted in python:{predictors}:interrupts while it answered 2 'generate' requests" in caplog.text
    with pytest.raises(KeyboardInterrupt, match="Interrupted in python:"):
        run(f"python:{predictors}:interrupts", "arithmetic_length", limit=2, bootstrap=FAST)


class ScriptedRunner(ModelRunner):
    """A cacheable runner whose log-likelihood is -inf for the option 'elbow' and -len(option) otherwise."""

    def __init__(self) -> None:
        super().__init__(ModelSpec("scripted", "minus-inf"))
        self.calls = 0

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        self.calls += len(pairs)
        return [-math.inf if option.strip() == "elbow" else -float(len(option)) for _, option in pairs]


def test_minus_inf_is_a_valid_answer_cached_and_scored(tmp_path: Path) -> None:
    task = load_task("category_membership")
    first_runner, second_runner = ScriptedRunner(), ScriptedRunner()
    first = run_model_on_task(task, first_runner, limit=6, cache_dir=tmp_path, bootstrap=FAST)
    second = run_model_on_task(task, second_runner, limit=6, cache_dir=tmp_path, bootstrap=FAST)
    assert first_runner.calls > 0 and second_runner.calls == 0  # every answer, -inf included, from the cache
    assert second.document["evaluations"][0]["cache"]["hits"] == first_runner.calls
    assert [s["prediction"] for s in second.samples] == [s["prediction"] for s in first.samples]
    assert first.document["evaluations"][0]["metrics"] == second.document["evaluations"][0]["metrics"]
    raw = [s["raw_output"]["loglikelihoods"] for s in second.samples]
    assert any(-math.inf in row for row in raw)  # the option 'elbow' of some question: never chosen
    assert all(row[s["prediction"]] != -math.inf for row, s in zip(raw, second.samples, strict=True))


def test_the_request_cache_round_trips_minus_inf_and_never_stores_nan(tmp_path: Path) -> None:
    cache = RequestCache(tmp_path)
    cache.put_many({"a": -math.inf, "b": -1.5})
    assert cache.get_many(["a", "b"]) == {"a": -math.inf, "b": -1.5}
    with pytest.raises(ValueError, match="NaN: never cached"):
        cache.put_many({"c": float("nan")})
    assert cache.get_many(["c"]) == {}
    cache.close()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda body: {**body, "choices": []}, r"answered with no choices \(\[\]\): expected a completion in choices"),
        (
            lambda body: {**body, "choices": [{**body["choices"][0], "text": 42}]},
            r"'generate' request \d \(prompt 'Add the two.*'\) answered choices\[0\]\.text = 42 \(int\): "
            "expected a str",
        ),
    ],
)
def test_a_malformed_server_answer_is_a_genbench_error(
    mutate: object, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from genbench.runs._openai import OpenAIRunner

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with fake_openai_server(mutate=mutate) as server:  # type: ignore[arg-type]
        runner = OpenAIRunner(parse_model_spec(f"openai:{server.url}", "concurrency=1,max_retries=0"))
        with pytest.raises(ModelRunError, match=message):
            run_model_on_task(load_task("arithmetic_length"), runner, limit=2, use_cache=False, bootstrap=FAST)


def test_a_model_with_nan_weights_fails_the_run(tiny_gpt2: Path, tmp_path: Path) -> None:
    import torch
    from transformers import GPT2LMHeadModel

    broken = tmp_path / "nan-gpt2"
    shutil.copytree(tiny_gpt2, broken)
    model = GPT2LMHeadModel.from_pretrained(broken)
    with torch.no_grad():
        model.transformer.ln_f.weight.fill_(float("nan"))
    model.save_pretrained(broken)
    with pytest.raises(ModelAnswerError, match=r"answered NaN: expected a number\. The model produced NaN") as error:
        run(f"hf:{broken}", "category_membership", model_args="dtype=float32", limit=2, use_cache=False,
            bootstrap=FAST)  # fmt: skip
    assert f"Model hf:{broken}, task 'category_membership' (0-shot): 'loglikelihood' request 0" in str(error.value)
