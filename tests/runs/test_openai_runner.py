"""``openai:`` runs against a loopback fake server: retries on 429/500, a timeout, prompt logprobs, fallbacks."""

from __future__ import annotations

import math

import pytest

from genbench import load_task
from genbench.runs._execute import run_model_on_task
from genbench.runs._openai import OpenAIRunner
from genbench.runs._results import read_results
from genbench.runs._scoring import BootstrapSettings
from genbench.runs.specs import parse_model_spec
from tests.runs.fake_openai import fake_answer, fake_openai_server, fake_token_logprobs

FAST = BootstrapSettings(resamples=50, statistic_resamples=10)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")


def test_generation_survives_429_500_and_a_timeout(tmp_path) -> None:
    with fake_openai_server(faults={1: 429, 2: 500, 3: "slow"}) as server:
        spec = parse_model_spec(f"openai:{server.url}", "model=fake-model,concurrency=1,timeout=0.5,max_retries=3")
        run = run_model_on_task(
            load_task("arithmetic_length"), OpenAIRunner(spec), limit=4, output_dir=tmp_path, use_cache=False,
            bootstrap=FAST,
        )  # fmt: skip
    prompts = [r["prompt"] for r in server.generation_requests()]
    # 4 prompts; the first was refused (429), retried and refused (500), retried and timed out, retried: 3 repeats
    assert len(prompts) == 4 + 3
    assert len(set(prompts)) == 4
    assert server.statuses.count(429) == 1 and server.statuses.count(500) == 1
    # arithmetic_length stops at "\n"
    assert all(r["temperature"] == 0 and r["stop"] == ["\n"] and r["model"] == "fake-model" for r in server.requests)
    # the fake answer "42\n\nQ: more" is cut at the stop string by the server (the runner cuts too)
    assert [s["raw_output"] for s in run.samples] == ["42"] * 4
    document, samples = read_results(run.results_path)
    assert document["model"]["spec"] == f"openai:{server.url}"
    assert len(samples) == 4


def test_multiple_choice_by_prompt_logprobs(tmp_path) -> None:
    task = load_task("category_membership")
    with fake_openai_server() as server:
        spec = parse_model_spec(f"openai:{server.url}", "concurrency=4")  # model: the server's only one
        run = run_model_on_task(task, OpenAIRunner(spec), limit=3, use_cache=False, bootstrap=FAST)
    evaluation = run.document["evaluations"][0]
    assert evaluation["multiple_choice_method"] == "loglikelihood"
    echo = [r for r in server.requests if r.get("echo")]
    assert echo and all(r["logprobs"] == 1 and r["model"] == "fake-model" for r in echo)
    for sample in run.samples:
        options = [o for o in task.get_datasets_raw()["test"][sample["_genbench_idx"]]["target_options"]]
        context = sample["prompt"].rstrip()
        expected = []
        for option in options:
            _, offsets, values = fake_token_logprobs(context + sample["prompt"][len(context) :] + option)
            pairs = zip(offsets, values, strict=True)
            expected.append(sum(v for o, v in pairs if o >= len(context) and v is not None))
        assert sample["raw_output"]["loglikelihoods"] == pytest.approx(expected)
        best = max(range(len(options)), key=lambda i: expected[i])
        assert sample["prediction"] == best


def test_multiple_choice_falls_back_to_generation_without_logprobs(tmp_path) -> None:
    with fake_openai_server(logprobs=False) as server:
        spec = parse_model_spec(f"openai:{server.url}", "model=fake-model")
        run = run_model_on_task(load_task("category_membership"), OpenAIRunner(spec), limit=3, use_cache=False,
                                bootstrap=FAST)  # fmt: skip
    evaluation = run.document["evaluations"][0]
    assert evaluation["multiple_choice_method"] == "generation"
    # the fake server names the first listed choice; the match is its index among the (unpermuted) options
    for sample in run.samples:
        listed = fake_answer(sample["prompt"]).split("\n")[0].strip()
        assert sample["raw_output"].strip() == listed
        task_options = load_task("category_membership").get_datasets_raw()["test"][sample["_genbench_idx"]]
        assert sample["prediction"] == list(task_options["target_options"]).index(listed)
    assert not any("length_normalised" in key for key in evaluation["metrics"])


def test_chat_api_generates_and_never_asks_for_logprobs() -> None:
    with fake_openai_server() as server:
        spec = parse_model_spec(f"openai:{server.url}", "model=fake-model,api=chat")
        run = run_model_on_task(load_task("category_membership"), OpenAIRunner(spec), limit=2, use_cache=False,
                                bootstrap=FAST)  # fmt: skip
    assert run.document["evaluations"][0]["multiple_choice_method"] == "generation"
    assert all(r["path"].endswith("/chat/completions") for r in server.requests)
    assert all(math.isfinite(s["metrics"]["hf_accuracy__accuracy"]) for s in run.samples)


def test_a_server_that_keeps_failing_is_one_clear_error() -> None:
    from genbench.runs._errors import ModelRunError

    with fake_openai_server(faults={1: 500, 2: 500}) as server:
        spec = parse_model_spec(f"openai:{server.url}", "model=fake-model,max_retries=1,concurrency=1")
        with pytest.raises(ModelRunError, match="HTTP 500 after its retries"):
            OpenAIRunner(spec).generate(["hello"], max_new_tokens=4, stop=None)
    assert len(server.requests) == 2


def test_a_password_in_the_server_url_is_never_printed() -> None:
    """``openai:https://user:PASSWORD@host/v1``: the errors show ``user:***@`` (issue 20)."""
    import socket

    from genbench.runs._errors import ModelRunError

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    spec = parse_model_spec(f"openai:http://user:Sup3r-secret@127.0.0.1:{port}/v1", "model=m,max_retries=0,timeout=2")
    with pytest.raises(ModelRunError) as failed:
        OpenAIRunner(spec).generate(["hello"], max_new_tokens=4, stop=None)
    assert "Sup3r-secret" not in str(failed.value) and "user:***@127.0.0.1" in str(failed.value)


def test_a_password_in_the_server_url_is_not_written_to_the_results(tmp_path) -> None:
    with fake_openai_server() as server:
        url = server.url.replace("://", "://user:Sup3r-secret@")
        spec = parse_model_spec(f"openai:{url}", "model=fake-model,api=chat")
        run_model_on_task(load_task("category_membership"), OpenAIRunner(spec), limit=2, use_cache=False,
                          bootstrap=FAST, output_dir=tmp_path)  # fmt: skip
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert written
    for path in written:
        assert "Sup3r-secret" not in str(path) and "Sup3r-secret" not in path.read_text()
    assert any("user:***@" in path.read_text() for path in written)


# ------------------------------------------------------------------ servers that do not answer GET /models
def test_a_server_without_models_runs_with_a_named_model_and_a_warning(tmp_path, caplog) -> None:
    with fake_openai_server(models=False) as server:
        spec = parse_model_spec(f"openai:{server.url}", "model=fake-model")
        with caplog.at_level("WARNING", logger="genbench.runs._openai"):
            runner = OpenAIRunner(spec)
        run = run_model_on_task(load_task("arithmetic_length"), runner, limit=2, use_cache=False, bootstrap=FAST)
    assert server.gets == ["/v1/models"]  # the check was made, and answered 404
    assert [s["raw_output"] for s in run.samples] == ["42"] * 2
    assert all(r["model"] == "fake-model" for r in server.requests)
    assert f"GET {server.url}/models answered HTTP 404" in caplog.text
    assert "going on with model=fake-model" in caplog.text


def test_a_server_without_models_and_no_model_argument_asks_for_one() -> None:
    from genbench.runs._errors import ModelSpecError

    with fake_openai_server(models=False) as server, pytest.raises(ModelSpecError) as failed:
        OpenAIRunner(parse_model_spec(f"openai:{server.url}", ""))
    message = str(failed.value)
    assert f"openai:{server.url} does not list its models (GET {server.url}/models answered HTTP 404" in message
    assert "--model-args model=NAME" in message and "http://localhost:8000/v1" in message
    assert server.requests == []  # nothing was asked of the model


def test_a_url_without_the_api_path_fails_at_the_first_request_naming_the_fix() -> None:
    from genbench.runs._errors import ModelRunError

    with fake_openai_server() as server:
        base = server.url.removesuffix("/v1")  # the server's root: every path answers 404
        runner = OpenAIRunner(parse_model_spec(f"openai:{base}", "model=fake-model,max_retries=3"))
        with pytest.raises(ModelRunError) as failed:
            runner.generate(["hello"], max_new_tokens=4, stop=None)
    message = str(failed.value)
    assert f"openai:{base} answered HTTP 404 to POST /completions" in message
    assert "OpenAI API base" in message and "e.g. http://localhost:8000/v1" in message
    assert server.gets == ["/models"] and server.requests == []  # 404 is not retried


def test_a_refused_api_key_fails_before_any_work(monkeypatch) -> None:
    from genbench.runs._errors import ModelRunError

    with fake_openai_server() as server:
        monkeypatch.setattr(server, "refuse_key", True)
        with pytest.raises(ModelRunError) as failed:
            OpenAIRunner(parse_model_spec(f"openai:{server.url}", "model=fake-model"))
    assert f"GET {server.url}/models answered HTTP 401" in str(failed.value)
    assert "Set OPENAI_API_KEY" in str(failed.value)
