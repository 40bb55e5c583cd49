"""The ``hf:`` runner against lm-evaluation-harness 0.4.13 on the same requests (docs/running_models.md's claim).

Three tiny random GPT-2s (2 layers, width 32): ``tiny`` and ``tiny-bos``, the word-level tokenizer of ``conftest.py``
without and with a BOS token, and ``tiny-bpe``, a byte-level BPE tokenizer as GPT-2's (a space is part of the next
token, so where a prompt's trailing space goes matters; options are several tokens; no pad token).

genbench side: :func:`genbench.runs._execute.run` (what ``genbench-cli run`` calls) over two shipped tasks,
``category_membership`` (multiple choice: a log-likelihood per option) and ``arithmetic_length`` (greedy generation
up to ``\\n``), 0- and 2-shot; and its ``Requester`` on raw log-likelihood pairs that the tasks do not reach
(continuations of several words, trailing spaces, an empty context, a context longer than the model's window) and raw
generations cut at stop strings the random models do emit (the task's ``\\n`` rarely comes).

lm-evaluation-harness side: the same prompts as tasks of its own format, run by its evaluator with ``HFLM`` in its
own venv (``benchmarks/_lmeval.py``, ``benchmarks/_lmeval_reference.py``, shared with
``benchmarks/run_vs_lmeval.py``), and the same raw requests through ``HFLM.loglikelihood``
and ``HFLM.generate_until``.

Chat templates: ``tiny-chat`` (the word-level tokenizer with BOS, role-marker words and a chat template that starts
with the BOS text) runs both tasks with the template applied, as ``run --apply-chat-template`` and lm-eval's
``--apply_chat_template`` do it, once with a system instruction and the shots as user/assistant turns
(``--fewshot-as-multiturn``, ``--system-instruction``), once with the shots in the one user turn and no system
instruction. lm-eval gets the prompts' parts apart (the query as ``doc_to_text``, the task's instruction as its
``description``, each document's own shots through a sampler: ``benchmarks/_lmeval.py``'s
``write_lmeval_chat_tasks``); the rendered prompts, log-likelihoods, choices and generations are compared.

Both sides run float32 on the CPU, with the same torch, transformers and tokenizers (checked below), batch size 4.
Log-likelihoods are compared to a relative 1e-6 (plus 1e-6 absolute), about 8 float32 ulps: a continuation of several
tokens is the sum of their log-probabilities, and the two sides add them in different orders (genbench with
``index_add_`` over the batch, lm-evaluation-harness per request), which moves the last bit (measured: at most
1.1e-7 relative, e.g. 1.5e-5 on -144). The one-token options of the word-level models involve no sum and came out
equal to the last bit; they are held to the same bound, as BLAS kernels chosen per matrix shape (the sides pad and
batch differently) may round differently on another CPU. A real difference (a token more or less, a space on the
wrong side, another data type, a BOS mishandled) moves a log-likelihood by far more: moving no trailing space to the
continuation, for one, is off by 6.4 on ``tiny-bpe``'s options. Chosen options and generations are compared exactly.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from genbench.runs._chat import ChatSettings, chat_requests, use_chat
from genbench.runs._execute import Requester, prompt_settings, run
from genbench.runs._hf import HFCausalLMRunner
from genbench.runs._scoring import BootstrapSettings
from genbench.runs.specs import parse_model_spec
from tests.runs.lmeval_parity import LMEVAL_VERSION, SETUP, lmeval_answers, lmeval_side, reference_python
from tests.runs.plain_tasks import plain_task

MC_TASK, GEN_TASK, MC_NAME, GEN_NAME = (
    lmeval_side.MC_TASK,
    lmeval_side.GEN_TASK,
    lmeval_side.MC_NAME,
    lmeval_side.GEN_NAME,
)
SHOTS, SEED, LIMIT, MAX_NEW_TOKENS, BATCH_SIZE = [0, 2], 42, 8, 12, 4
RTOL = ATOL = 1e-6
MODEL_ARGS = f"batch_size={BATCH_SIZE},dtype=float32,device=cpu"
FAST = BootstrapSettings(resamples=20, statistic_resamples=5)
# requests the two shipped tasks do not make (their prompts are short; with the word-level tokenizers every option is
# one token)
EDGE_PAIRS = [
    ("Q: Which of these is a part of the body?\nA:", " elbow, finger and the moon"),  # several tokens
    ("Q: 612 + 6\nA: ", "618"),  # trailing space: it moves to the continuation
    ("Q: 612 + 6\nA:\t ", "6 1 8\n"),
    ("", "the answer is true"),  # no context: the first token is conditioned on BOS (or EOS)
    ("one " * 300 + "word:", " each word"),  # longer than the 256 positions: cut on the left
    ("Q: what is the statement?\nA:", " (true) [false] 'a' \"b\" */"),
    ("<s>Q: 612 + 6\nA:", " 618"),  # starts with the BOS text: no second BOS (on the BOS model)
    ("<|endoftext|>Q: 612 + 6\nA:", " 618"),  # ... and EOS's, which stands for BOS where a tokenizer has none
]
# what the random models emit ("= = = * * *", "( A choices choices", "\n \n \n", "the the the") holds these stops
STOPS = ["\n", "* *", "choices"]
GEN_PROMPTS = ["Q: which word fits?\nA:", "the", "write one word per answer, separated by commas:\n", "1 + 2 = ", "("]
# prompts that start with the BOS text (as one rendered from a chat template): no second BOS. Asked on their own:
# lm-evaluation-harness decides it for a batch of generations by its first prompt only.
BOS_GEN_PROMPTS = ["<s>" + prompt for prompt in GEN_PROMPTS]
RAW_NEW_TOKENS = 12
RAW_REQUESTS = [*((GEN_PROMPTS, stop) for stop in STOPS), (BOS_GEN_PROMPTS, "\n")]
MODELS = ("tiny", "tiny-bos", "tiny-bpe")
# runs of tiny-chat with its chat template: lm-eval's --system_instruction and --fewshot_as_multiturn
CHAT_RUNS: dict[str, dict[str, Any]] = {
    "multiturn-system": {"system_instruction": "Answer with one word.", "fewshot_as_multiturn": True},
    "one-turn": {"system_instruction": None, "fewshot_as_multiturn": False},
}


@dataclass
class Side:
    """One model's answers on one side: per multiple-choice question, per generation prompt, per edge pair, per
    raw generation (by stop string)."""

    questions: list[dict[str, Any]]
    generations: list[str]
    pairs: list[float]
    raw_generations: list[list[str]]


@dataclass
class ChatSide:
    """One chat run's answers on one side: the prompts as asked (rendered by the template), per multiple-choice
    question, per generation."""

    prompts: list[str]
    questions: list[dict[str, Any]]
    generations: list[str]


@dataclass
class Parity:
    genbench: dict[str, Side]
    lmeval: dict[str, Side]
    versions: dict[str, str]
    chat: dict[str, dict[str, ChatSide]]  # by chat run: "genbench" and "lmeval"


def _task_runs(path: Path, chat: ChatSettings | None = None) -> dict[str, Any]:
    return {
        r.task_id: r
        for r in run(
            f"hf:{path}",
            [MC_TASK, GEN_TASK],
            model_args=MODEL_ARGS,
            shots=SHOTS,
            seed=SEED,
            limit=LIMIT,
            max_new_tokens=MAX_NEW_TOKENS,
            use_cache=False,
            bootstrap=FAST,
            chat=chat,
        )
    }


def _genbench_side(path: Path) -> Side:
    runs = _task_runs(path)
    questions = [
        {
            "loglikelihoods": s["raw_output"]["loglikelihoods"],
            "prediction": s["prediction"],
            "accuracy": s["metrics"]["hf_accuracy__accuracy"],
            "accuracy_length_normalised": s["metrics"]["length_normalised.hf_accuracy__accuracy"],
            "prompt": s["prompt"],
        }
        for s in runs[MC_TASK].samples
    ]
    generations = [s["raw_output"] for s in runs[GEN_TASK].samples]
    requester = Requester(HFCausalLMRunner(parse_model_spec(f"hf:{path}", MODEL_ARGS)), None)
    raw = [requester.generate(prompts, max_new_tokens=RAW_NEW_TOKENS, stop=stop) for prompts, stop in RAW_REQUESTS]
    return Side(questions, generations, requester.loglikelihood(EDGE_PAIRS), raw)


def _genbench_chat_side(path: Path, turns: dict[str, list[Any]], options: dict[str, Any]) -> ChatSide:
    settings = ChatSettings("default", options["system_instruction"], options["fewshot_as_multiturn"])
    runs = _task_runs(path, settings)
    for task_run in runs.values():  # the results file records the template, the instruction and the layout
        recorded = task_run.document["run_identity"]["chat"]
        assert recorded["template_sha256"] and recorded["system_instruction"] == settings.system_instruction
        assert recorded["fewshot_as_multiturn"] is settings.fewshot_as_multiturn
    runner = HFCausalLMRunner(parse_model_spec(f"hf:{path}", MODEL_ARGS))
    text = use_chat(runner, settings)
    prompts = [prompt for name in (MC_NAME, GEN_NAME) for prompt in chat_requests(runner, settings, text, turns[name])]
    questions = [
        {
            "loglikelihoods": s["raw_output"]["loglikelihoods"],
            "prediction": s["prediction"],
            "accuracy": s["metrics"]["hf_accuracy__accuracy"],
            "accuracy_length_normalised": s["metrics"]["length_normalised.hf_accuracy__accuracy"],
        }
        for s in runs[MC_TASK].samples
    ]
    return ChatSide(prompts, questions, [s["raw_output"] for s in runs[GEN_TASK].samples])


def tiny_gpt2_bpe(path: Path) -> Path:
    """The tiny GPT-2's shape with a byte-level BPE tokenizer (as GPT-2's: a space belongs to the word after it, and
    there is no pad token), trained here on the shipped tasks' words: the tokenizer where the split of a prompt's
    trailing space between context and continuation changes the tokens, which the word-level ones ignore."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    questions = prompt_settings(plain_task(MC_TASK), [2], SEED, 40)[0][1]["input"]
    corpus = list(questions) + [f"Q: {a} + {b}\nA: {a + b}\n\n" for a in range(0, 1000, 7) for b in (6, 40)]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(corpus, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|endoftext|>", bos_token="<|endoftext|>")
    torch.manual_seed(0)
    eos = tokenizer.token_to_id("<|endoftext|>")
    config = GPT2Config(vocab_size=tokenizer.get_vocab_size(), n_positions=256, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=eos, eos_token_id=eos)  # fmt: skip
    GPT2LMHeadModel(config).save_pretrained(path)
    fast.save_pretrained(path)
    return path


def _both_sides(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Parity:
    import torch

    python = reference_python()
    scratch = tmp_path_factory.mktemp("lmeval-parity")
    # the two tasks' prompts, as `run` builds them, as lm-evaluation-harness tasks
    prompts = lmeval_side.write_lmeval_tasks(scratch / "tasks", SHOTS, SEED, LIMIT, MAX_NEW_TOKENS)
    words, words_bos = request.getfixturevalue("tiny_gpt2"), request.getfixturevalue("tiny_gpt2_bos")
    paths = dict(zip(MODELS, (words, words_bos, tiny_gpt2_bpe(tmp_path_factory.mktemp("tiny-gpt2-bpe"))), strict=True))
    raw = [{"prompts": prompts, "stop": stop, "max_new_tokens": RAW_NEW_TOKENS} for prompts, stop in RAW_REQUESTS]
    chat_model = request.getfixturevalue("tiny_gpt2_chat")
    chat_tasks = scratch / "chat-tasks"
    turns = lmeval_side.write_lmeval_chat_tasks(chat_tasks, SHOTS, SEED, LIMIT, MAX_NEW_TOKENS)
    chat_runs = [
        {
            "label": label,
            "model": str(chat_model),
            "task_dir": str(chat_tasks),
            "tasks": [MC_NAME, GEN_NAME],
            **options,
        }
        for label, options in CHAT_RUNS.items()
    ]
    answers = lmeval_answers(
        python, scratch, paths, tasks=[MC_NAME, GEN_NAME], pairs=EDGE_PAIRS, generations=raw, batch_size=BATCH_SIZE,
        chat=chat_runs,
    )  # fmt: skip
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the reference side (lmeval_answers): see there
    try:
        genbench = {label: _genbench_side(path) for label, path in paths.items()}
        genbench_chat = {label: _genbench_chat_side(chat_model, turns, o) for label, o in CHAT_RUNS.items()}
    finally:
        torch.set_num_threads(threads)
    for side in genbench.values():  # the lm-eval tasks hold the very prompts that `run` asked
        assert [q["prompt"] for q in side.questions] == prompts[MC_NAME]
        assert len(side.generations) == len(prompts[GEN_NAME])
    lmeval = {
        label: Side(
            model["tasks"][MC_NAME],
            [row["generation"] for row in model["tasks"][GEN_NAME]],
            model["pairs"],
            model["generations"],
        )
        for label, model in answers["models"].items()
    }
    chat = {
        label: {
            "genbench": genbench_chat[label],
            "lmeval": ChatSide(
                [row["context"] for name in (MC_NAME, GEN_NAME) for row in tasks[name]],
                tasks[MC_NAME],
                [row["generation"] for row in tasks[GEN_NAME]],
            ),
        }
        for label, tasks in answers["chat"].items()
    }
    versions = {k: v for k, v in answers.items() if k not in ("models", "chat")}
    return Parity(genbench, lmeval, versions, chat)


@pytest.fixture(scope="module")
def parity(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Parity:
    """Both sides' answers, computed once per test run: under pytest-xdist (``make test``) the first worker to get
    here computes them and the other reads its file (pytest-xdist's recipe for a fixture that must run once), as the
    tests of one module may go to both workers."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _both_sides(request, tmp_path_factory)
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent / "lmeval-parity.json"  # this run's, shared by its workers
    with FileLock(f"{shared}.lock"):
        if shared.is_file():
            data = json.loads(shared.read_text(encoding="utf-8"))
            return Parity(
                {k: Side(**v) for k, v in data["genbench"].items()},
                {k: Side(**v) for k, v in data["lmeval"].items()},
                data["versions"],
                {k: {side: ChatSide(**v) for side, v in sides.items()} for k, sides in data["chat"].items()},
            )
        computed = _both_sides(request, tmp_path_factory)
        shared.write_text(json.dumps(dataclasses.asdict(computed)), encoding="utf-8")
        return computed


def test_the_reference_is_lmeval_with_this_venvs_torch_and_transformers(parity: Parity) -> None:
    assert parity.versions["lm_eval"] == LMEVAL_VERSION, f"the reference venv is stale: run {SETUP}"
    for name in ("torch", "transformers", "tokenizers"):
        assert parity.versions[name] == importlib.metadata.version(name), f"{name} differs: run {SETUP}"


@pytest.mark.parametrize("model", MODELS)
def test_multiple_choice_log_likelihoods_agree(parity: Parity, model: str) -> None:
    ours, theirs = parity.genbench[model].questions, parity.lmeval[model].questions
    assert len(ours) == len(theirs) == LIMIT * len(SHOTS)
    ours_ll = np.array([q["loglikelihoods"] for q in ours])
    theirs_ll = np.array([q["loglikelihoods"] for q in theirs])
    assert ours_ll.shape == theirs_ll.shape == (len(ours), 4)
    np.testing.assert_allclose(ours_ll, theirs_ll, rtol=RTOL, atol=ATOL)
    assert np.all(np.isfinite(ours_ll)) and np.ptp(ours_ll) > 0.1  # real, varied numbers, not a constant


@pytest.mark.parametrize("model", MODELS)
def test_the_same_option_is_chosen_raw_and_length_normalised(parity: Parity, model: str) -> None:
    """genbench's prediction is lm-eval's argmax; its accuracy is lm-eval's ``acc``, length-normalised ``acc_norm``."""
    ours, theirs = parity.genbench[model].questions, parity.lmeval[model].questions
    assert [q["prediction"] for q in ours] == [int(np.argmax(q["loglikelihoods"])) for q in theirs]
    assert [q["accuracy"] for q in ours] == [q["acc"] for q in theirs]
    assert [q["accuracy_length_normalised"] for q in ours] == [q["acc_norm"] for q in theirs]


@pytest.mark.parametrize("model", MODELS)
def test_greedy_generations_are_identical(parity: Parity, model: str) -> None:
    ours, theirs = parity.genbench[model].generations, parity.lmeval[model].generations
    assert ours == theirs
    assert len(ours) == LIMIT * len(SHOTS) and sum(bool(text.strip()) for text in ours) >= len(ours) // 2


@pytest.mark.parametrize("model", MODELS)
def test_log_likelihoods_of_raw_pairs_agree(parity: Parity, model: str) -> None:
    """Continuations of several tokens, moved trailing spaces, no context and a context cut to the window."""
    ours, theirs = parity.genbench[model].pairs, parity.lmeval[model].pairs
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL)
    # real, varied numbers; on the BOS model "<s>Q: ..." is the same tokens as "Q: ..." with its one BOS
    assert len(set(ours)) == len(EDGE_PAIRS) - (model == "tiny-bos")


def test_a_request_that_starts_with_the_bos_text_gets_no_second_bos(parity: Parity) -> None:
    """As lm-evaluation-harness: the ``<s>`` a prompt starts with is its BOS (the word-level tokenizer drops spaces,
    so the two requests are the same tokens exactly when no second BOS is added)."""
    pairs = parity.genbench["tiny-bos"].pairs
    with_bos_text = pairs[EDGE_PAIRS.index(("<s>Q: 612 + 6\nA:", " 618"))]
    assert with_bos_text == pairs[EDGE_PAIRS.index(("Q: 612 + 6\nA: ", "618"))]
    assert (
        parity.genbench["tiny-bos"].raw_generations[-1]
        == parity.genbench["tiny-bos"].raw_generations[STOPS.index("\n")]
    )


@pytest.mark.parametrize("model", MODELS)
def test_raw_generations_cut_at_a_stop_string_are_identical(parity: Parity, model: str) -> None:
    ours, theirs = parity.genbench[model].raw_generations, parity.lmeval[model].raw_generations
    assert ours == theirs


def test_the_stop_strings_cut_some_raw_generations(parity: Parity) -> None:
    for model in ("tiny", "tiny-bos"):  # the same prompt, another stop string: another (cut) answer
        by_prompt = zip(*parity.genbench[model].raw_generations, strict=True)
        assert any(len(set(answers)) > 1 for answers in by_prompt), model


def test_the_bos_model_really_starts_with_bos(tiny_gpt2: Path, tiny_gpt2_bos: Path) -> None:
    from transformers import AutoTokenizer

    with_bos, without = AutoTokenizer.from_pretrained(tiny_gpt2_bos), AutoTokenizer.from_pretrained(tiny_gpt2)
    assert with_bos("Q: A")["input_ids"][0] == with_bos.bos_token_id == with_bos.convert_tokens_to_ids("<s>")
    assert without("Q: A")["input_ids"] == without("Q: A", add_special_tokens=False)["input_ids"]


def test_a_missing_reference_venv_fails_when_required_and_skips_a_bare_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.runs import lmeval_parity

    monkeypatch.setattr(lmeval_parity, "DEFAULT_VENV", tmp_path / "no-venv")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("GENBENCH_LMEVAL_PYTHON", str(tmp_path / "missing" / "python"))  # as `make test` names it
    with pytest.raises(pytest.fail.Exception, match="GENBENCH_LMEVAL_PYTHON=.*is not an executable python"):
        reference_python()
    monkeypatch.delenv("GENBENCH_LMEVAL_PYTHON")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(
        pytest.fail.Exception, match="CI is set and the lm-evaluation-harness reference venv is missing"
    ):
        reference_python()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="run make lmeval-venv"):
        reference_python()
    python = tmp_path / "no-venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n", encoding="utf-8")
    python.chmod(0o755)
    assert reference_python() == python  # the default venv, once made, is used without being named


def test_a_failing_reference_script_fails_the_test_with_its_output(tmp_path: Path) -> None:
    """The reference side's exit status and the end of its output reach the test report (not a bare JSON error)."""
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho 'ModuleNotFoundError: lm_eval' >&2\nexit 3\n", encoding="utf-8")
    python.chmod(0o755)
    with pytest.raises(pytest.fail.Exception, match=r"(?s)failed \(exit 3\).*ModuleNotFoundError: lm_eval"):
        lmeval_answers(python, tmp_path, {}, tasks=[], pairs=[], generations=[], batch_size=1)


@pytest.mark.parametrize("chat_run", CHAT_RUNS)
def test_chat_template_prompts_are_lmevals(parity: Parity, chat_run: str) -> None:
    """The rendered prompts, character for character: system message, shots as turns or in one turn, the query,
    the assistant's header; one BOS text at the start (the template's)."""
    ours, theirs = parity.chat[chat_run]["genbench"].prompts, parity.chat[chat_run]["lmeval"].prompts
    assert ours == theirs
    assert len(ours) == 2 * LIMIT * len(SHOTS)
    assert all(p.startswith("<s><|system|>\n") and p.endswith("<|assistant|>") for p in ours)
    assert not any(p.startswith("<s><s>") for p in ours)
    system = CHAT_RUNS[chat_run]["system_instruction"]
    assert all(p.startswith(f"<s><|system|>\n{system or ''}") for p in ours)
    turns = {p.count("<|user|>") for p in ours}  # 0- and 2-shot prompts: 1 and 3 user turns when multi-turn
    assert turns == ({1, 3} if CHAT_RUNS[chat_run]["fewshot_as_multiturn"] else {1})


@pytest.mark.parametrize("chat_run", CHAT_RUNS)
def test_chat_template_log_likelihoods_and_choices_agree(parity: Parity, chat_run: str) -> None:
    ours, theirs = parity.chat[chat_run]["genbench"].questions, parity.chat[chat_run]["lmeval"].questions
    assert len(ours) == len(theirs) == LIMIT * len(SHOTS)
    ours_ll = np.array([q["loglikelihoods"] for q in ours])
    np.testing.assert_allclose(ours_ll, np.array([q["loglikelihoods"] for q in theirs]), rtol=RTOL, atol=ATOL)
    assert np.all(np.isfinite(ours_ll)) and np.ptp(ours_ll) > 0.1
    assert [q["prediction"] for q in ours] == [int(np.argmax(q["loglikelihoods"])) for q in theirs]
    assert [q["accuracy"] for q in ours] == [q["acc"] for q in theirs]
    assert [q["accuracy_length_normalised"] for q in ours] == [q["acc_norm"] for q in theirs]


@pytest.mark.parametrize("chat_run", CHAT_RUNS)
def test_chat_template_generations_are_identical(parity: Parity, chat_run: str) -> None:
    ours, theirs = parity.chat[chat_run]["genbench"].generations, parity.chat[chat_run]["lmeval"].generations
    assert ours == theirs
    assert len(ours) == LIMIT * len(SHOTS) and sum(bool(text.strip()) for text in ours) >= len(ours) // 2


def test_the_chat_runs_differ_from_each_other(parity: Parity) -> None:
    """The system instruction and the few-shot layout reach the model: other prompts, other log-likelihoods."""
    first, second = (parity.chat[label]["genbench"] for label in CHAT_RUNS)
    assert first.prompts != second.prompts
    assert [q["loglikelihoods"] for q in first.questions] != [q["loglikelihoods"] for q in second.questions]
