"""``hf:`` runs with a tiny random GPT-2 through every task type of the registry."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from genbench.runs._execute import TaskRun, run
from genbench.runs._hf import HFCausalLMRunner, default_device
from genbench.runs._results import read_results
from genbench.runs._scoring import BootstrapSettings
from genbench.runs.specs import parse_model_spec
from tests.task_roots import registered_task_roots

FAST = BootstrapSettings(resamples=50, statistic_resamples=10)


@pytest.fixture(scope="module")
def all_task_runs(tiny_gpt2: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, TaskRun]:
    output = tmp_path_factory.mktemp("hf-runs")
    with registered_task_roots(package_tasks="shipped"):  # "all": the shipped tasks, not an author's drafts
        runs = run(
            f"hf:{tiny_gpt2}", "all", model_args="batch_size=4,dtype=float32", output_dir=output, shots=[1], limit=3,
            max_new_tokens=6, use_cache=False, bootstrap=FAST,
        )  # fmt: skip
    return {r.task_id: r for r in runs}


def test_every_task_type_runs_and_writes_valid_results(all_task_runs: dict[str, TaskRun]) -> None:
    types = {r.document["task"]["task_type"] for r in all_task_runs.values()}
    # None: the merged result of a task with subtasks, next to its subtasks' files
    assert types == {"free_form", "multiple_choice", "sequence_labeling", "reranking", None}
    for task_run in all_task_runs.values():
        document, samples = read_results(task_run.results_path)  # validated against the schema
        settings = [e["shots"] for e in document["evaluations"]]
        assert settings == ([None] if document["task"]["task_type"] == "reranking" else [1])
        if document["task"]["task_type"] is None:
            assert samples is None and len(document["merged_from"]) == len(document["task"]["subtasks"]) >= 2
            assert document["evaluations"][0]["num_examples"] == 3 * len(document["task"]["subtasks"])
            continue
        assert samples is not None and len(samples) == 3 * len(settings)
        assert document["model"]["revision"].startswith("sha256:")
        if settings != [None]:  # one-shot prompts: the shots' source is recorded
            assert document["evaluations"][0]["shot_source"]
            assert document["evaluations"][0]["prompt_builder_sha256"]
        for evaluation in document["evaluations"]:
            assert evaluation["num_examples"] == 3
            assert evaluation["primary_metric"] in evaluation["metrics"]


def test_generation_is_cut_at_the_stop_string(all_task_runs: dict[str, TaskRun]) -> None:
    for task_id in ("arithmetic_length", "ner_unseen_entities"):
        stop = "\n" if task_id == "arithmetic_length" else "\n\n"
        for sample in all_task_runs[task_id].samples:
            assert isinstance(sample["raw_output"], str) and stop not in sample["raw_output"]
    labels = [s["prediction"] for s in all_task_runs["ner_unseen_entities"].samples]
    assert all(isinstance(p, list) for p in labels)  # parsed with sequence_labeling_separator


def test_a_models_junk_labels_make_no_metric_keys(all_task_runs: dict[str, TaskRun]) -> None:
    # the random model emits words of its vocabulary, "," and ")" among them: none may become an entity type
    import re

    from genbench import load_task

    labels = load_task("ner_unseen_entities").label_set() or set()
    task_key = re.compile(r"^hf_seqeval__((PER|LOC|ORG)__(precision|recall|f1)|overall_\w+)$|^out_of_set_label_rate$")
    task_run = all_task_runs["ner_unseen_entities"]
    assert all(task_key.match(key) for key in task_run.document["evaluations"][0]["metrics"])
    assert all(task_key.match(key) for sample in task_run.samples for key in sample["metrics"])
    assert all(label in labels for sample in task_run.samples for label in sample["prediction"])
    emitted = [label.strip() for sample in task_run.samples for label in sample["raw_output"].split(",")]
    assert any(label and label not in labels for label in emitted)  # there was junk to keep out
    assert task_run.document["evaluations"][0]["metrics"]["out_of_set_label_rate"]["value"] > 0


def test_multiple_choice_picks_the_most_likely_option_raw_and_length_normalised(
    all_task_runs: dict[str, TaskRun],
) -> None:
    from genbench import load_task

    task_run = all_task_runs["category_membership"]
    evaluation = task_run.document["evaluations"][0]
    assert evaluation["multiple_choice_method"] == "loglikelihood"
    assert "length_normalised.hf_accuracy__accuracy" in evaluation["metrics"]
    test = load_task("category_membership").get_datasets_raw()["test"]
    for sample in task_run.samples:
        scores = np.array(sample["raw_output"]["loglikelihoods"])
        lengths = np.array([len(o) for o in test[sample["_genbench_idx"]]["target_options"]])
        assert sample["prediction"] == int(np.argmax(scores))
        assert sample["prediction_length_normalised"] == int(np.argmax(scores / lengths))


def test_reranking_scores_one_per_candidate(all_task_runs: dict[str, TaskRun]) -> None:
    task_run = all_task_runs["passage_reranking_shift"]
    metrics = task_run.document["evaluations"][0]["metrics"]
    assert "cross_encoder_reranking__map" in metrics
    for sample in task_run.samples:
        assert isinstance(sample["raw_output"], list) and all(s <= 0 for s in sample["raw_output"])


def test_loglikelihood_matches_a_direct_forward_pass_and_does_not_depend_on_batching(tiny_gpt2: Path) -> None:
    import torch

    pairs = [("Q: which is a part of the body ?\nA: ", "elbow"), ("true or false", " false , O"), ("A:", "elm")]
    one = HFCausalLMRunner(parse_model_spec(f"hf:{tiny_gpt2}", "batch_size=1,device=cpu"))
    many = HFCausalLMRunner(parse_model_spec(f"hf:{tiny_gpt2}", "batch_size=3,device=cpu"))
    batched = many.loglikelihood(pairs)
    assert batched == pytest.approx(one.loglikelihood(pairs), abs=1e-4)
    tokenizer, model = one.tokenizer, one.model
    for (context, continuation), score in zip(pairs, batched, strict=False):
        context_ids = tokenizer(context.rstrip())["input_ids"]
        whole = tokenizer(context.rstrip() + context[len(context.rstrip()) :] + continuation)["input_ids"]
        with torch.no_grad():
            log_probs = torch.log_softmax(model(torch.tensor([whole])).logits[0], dim=-1)
        expected = sum(float(log_probs[i - 1, whole[i]]) for i in range(len(context_ids), len(whole)))
        assert score == pytest.approx(expected, abs=1e-4)


def test_the_cache_key_names_the_encoding_so_older_answers_are_asked_again(tiny_gpt2: Path) -> None:
    # answers cached before a prompt starting with the BOS text stopped getting a second BOS were keyed without it
    identity = HFCausalLMRunner(parse_model_spec(f"hf:{tiny_gpt2}", "device=cpu")).cache_identity()
    assert identity["encoding"] == 2 and {"spec", "revision", "args"} <= set(identity)


def test_generation_does_not_depend_on_batching(tiny_gpt2: Path) -> None:
    prompts = ["Q: 1 + 2 =", "Q: which of these is a part of the body ?\nchoices :\n- elm\n- elbow\nA:", "true"]
    one = HFCausalLMRunner(parse_model_spec(f"hf:{tiny_gpt2}", "batch_size=1"))
    many = HFCausalLMRunner(parse_model_spec(f"hf:{tiny_gpt2}", "batch_size=3"))
    assert many.generate(prompts, max_new_tokens=5, stop=None) == one.generate(prompts, max_new_tokens=5, stop=None)


def test_device_is_cuda_when_available_else_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert default_device() == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert default_device() == "cpu"


def test_unknown_model_args_and_bad_dtype_are_refused(tiny_gpt2: Path) -> None:
    from genbench.runs._errors import ModelSpecError

    with pytest.raises(ModelSpecError, match="batchsize"):
        HFCausalLMRunner(parse_model_spec(f"hf:{tiny_gpt2}", "batchsize=4"))
    with pytest.raises(ModelSpecError, match="dtype='float8'"):
        HFCausalLMRunner(parse_model_spec(f"hf:{tiny_gpt2}", "dtype=float8"))
