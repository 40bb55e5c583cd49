"""``run --apply-chat-template``, ``--system-instruction``, ``--[no-]fewshot-as-multiturn`` (genbench.runs._chat):
recorded in the results, the request cache's key and the settings folder; refused where they cannot apply; the
warning for a model whose template is left unused; ``openai: api=chat`` sends the same messages.

That the prompts, log-likelihoods and generations are lm-evaluation-harness's is tests/runs/test_lmeval_parity.py.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.prompting._turns import PromptTurns
from genbench.runs._chat import ChatSettings, messages
from genbench.runs._errors import ModelSpecError
from genbench.runs._execute import TaskRun, run, run_model_on_task
from genbench.runs._openai import OpenAIRunner
from genbench.runs._results import read_results
from genbench.runs._scoring import BootstrapSettings
from genbench.runs.specs import parse_model_spec
from tests.runs.fake_openai import fake_openai_server
from tests.runs.plain_tasks import plain_task

FAST = BootstrapSettings(resamples=20, statistic_resamples=5)
ARGS = "device=cpu,dtype=float32,batch_size=4"


def _run(model: Path, tmp_path: Path, chat: ChatSettings | None, **options: Any) -> TaskRun:
    return run(f"hf:{model}", "arithmetic_length", model_args=ARGS, shots=[0, 2], limit=3, max_new_tokens=4,
               output_dir=tmp_path / "out", cache_dir=tmp_path / "cache", bootstrap=FAST, chat=chat,
               **options)[0]  # fmt: skip


def test_the_template_instruction_and_layout_are_recorded_beside_the_plain_run(tiny_gpt2_chat: Path, tmp_path: Path):
    plain = _run(tiny_gpt2_chat, tmp_path, None)
    chat = _run(tiny_gpt2_chat, tmp_path, ChatSettings("default", "Be brief.", None))
    template = (tiny_gpt2_chat / "chat_template.jinja").read_text(encoding="utf-8")
    assert chat.results_path is not None and plain.results_path is not None
    recorded = read_results(chat.results_path)[0]["run_identity"]["chat"]  # read back: valid against the schema
    assert recorded == {
        "template": "default",
        "template_sha256": hashlib.sha256(template.encode()).hexdigest(),
        "system_instruction": "Be brief.",
        "fewshot_as_multiturn": True,
    }
    assert "chat" not in plain.document["run_identity"]  # plain runs keep their identity (and key)
    assert chat.results_path != plain.results_path and plain.results_path.is_file()  # not written over
    assert chat.results_path.parent.name.startswith(plain.results_path.parent.name + ".chat-")
    assert chat.document["run_identity"]["key"] != plain.document["run_identity"]["key"]
    # other prompts: nothing from the plain run's cache
    assert all(e["cache"]["hits"] == 0 for e in chat.document["evaluations"])
    one_turn = _run(tiny_gpt2_chat, tmp_path, ChatSettings("default", "Be brief.", False))
    assert one_turn.document["run_identity"]["chat"]["fewshot_as_multiturn"] is False
    assert one_turn.results_path is not None and one_turn.results_path.parent != chat.results_path.parent
    again = _run(tiny_gpt2_chat, tmp_path, ChatSettings("default", "Be brief.", None))
    assert all(e["cache"]["computed"] == 0 for e in again.document["evaluations"])  # the same run: all cached


def test_a_template_file_is_applied_and_hashed(tiny_gpt2_chat: Path, tmp_path: Path) -> None:
    template = tmp_path / "plain.jinja"
    template.write_text("{% for m in messages %}{{ m['content'] }}{% endfor %}", encoding="utf-8")
    with_file = _run(tiny_gpt2_chat, tmp_path, ChatSettings(str(template), None, None))
    recorded = with_file.document["run_identity"]["chat"]
    assert recorded["template_sha256"] == hashlib.sha256(template.read_bytes()).hexdigest()
    # this template joins the messages' contents: a 0-shot prompt is the task's instruction (the system message) and
    # the query, the plain prompt exactly, so the answers are the plain run's
    plain = _run(tiny_gpt2_chat, tmp_path, None)
    ours = [s["raw_output"] for s in with_file.samples if s["shots"] == 0]
    assert ours == [s["raw_output"] for s in plain.samples if s["shots"] == 0] and len(ours) == 3
    assert all(e["cache"]["hits"] == 0 for e in with_file.document["evaluations"])  # asked all the same


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        (ChatSettings("chatml"), "has one chat template, not named ones"),
        (ChatSettings(None, None, True), "--fewshot-as-multiturn needs --apply-chat-template"),
    ],
)
def test_what_cannot_apply_is_refused_naming_the_fix(
    tiny_gpt2_chat: Path, tmp_path: Path, settings: ChatSettings, match: str
) -> None:
    with pytest.raises(ModelSpecError, match=match):
        _run(tiny_gpt2_chat, tmp_path, settings)


def test_a_tokenizer_without_a_template_asks_for_a_file(tiny_gpt2: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelSpecError, match=r"has no chat template; give a Jinja template file"):
        _run(tiny_gpt2, tmp_path, ChatSettings("default"))


def test_a_model_with_an_unused_template_gets_one_warning(
    tiny_gpt2_chat: Path, tiny_gpt2: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="genbench.runs._execute"):
        _run(tiny_gpt2_chat, tmp_path, None)
    warned = [r.getMessage() for r in caplog.records if "chat template" in r.getMessage()]
    assert len(warned) == 1 and "--apply-chat-template" in warned[0] and "\n" not in warned[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="genbench.runs._execute"):
        _run(tiny_gpt2_chat, tmp_path, ChatSettings("default"))
        _run(tiny_gpt2, tmp_path, None)  # no template of its own: nothing to say
    assert not [r for r in caplog.records if "chat template" in r.getMessage()]


def test_the_cli_options(tiny_gpt2_chat: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        ["run", "-m", f"hf:{tiny_gpt2_chat}", "--model-args", ARGS, "-t", "arithmetic_length", "--limit", "2",
         "--max-new-tokens", "2", "--apply-chat-template", "--system-instruction", "Be brief.",
         "--no-fewshot-as-multiturn", "--shots", "0,1", "-o", str(tmp_path / "out"), "--no-cache"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    written = next((tmp_path / "out").rglob("arithmetic_length.json"))
    chat = json.loads(written.read_text(encoding="utf-8"))["run_identity"]["chat"]
    assert chat["template"] == "default" and chat["system_instruction"] == "Be brief."
    assert chat["fewshot_as_multiturn"] is False


def test_openai_chat_sends_the_system_message_and_the_shots_as_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with fake_openai_server() as server:
        spec = parse_model_spec(f"openai:{server.url}", "model=fake-model,api=chat")
        task_run = run_model_on_task(
            plain_task("arithmetic_length"), OpenAIRunner(spec), shots=[2], limit=2, use_cache=False, bootstrap=FAST,
            chat=ChatSettings("default", "Be brief."),
        )  # fmt: skip
    sent = [r["messages"] for r in server.requests if r["path"].endswith("/chat/completions")]
    assert len(sent) == 2
    assert [m["role"] for m in sent[0]] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert sent[0][0]["content"].startswith("Be brief.\n\nAdd the two numbers.")
    assert sent[0][-1]["content"].startswith("Q: ") and sent[0][-1]["content"].endswith("A: ")
    recorded = task_run.document["run_identity"]["chat"]
    assert recorded["template_sha256"] is None and recorded["template"] == "default"  # the server's own


def test_openai_completions_and_named_templates_are_refused() -> None:
    with fake_openai_server() as server:
        for args, match in (("api=completions", "needs --model-args api=chat"), ("api=chat", "applies its own")):
            runner = OpenAIRunner(parse_model_spec(f"openai:{server.url}", f"model=fake-model,{args}"))
            template = "default" if args == "api=completions" else "chatml"
            with pytest.raises(ModelSpecError, match=match):
                run_model_on_task(plain_task("arithmetic_length"), runner, limit=1, use_cache=False,
                                  chat=ChatSettings(template))  # fmt: skip


def test_messages_follow_lmevals_layout() -> None:
    turns = PromptTurns("Add.", (("Q: 1+1\nA:", " 2"), ("Q: 2+3\nA:", " 5")), "Q: 2+2\nA:", "\n\n")
    multi = messages(turns, ChatSettings("default", "Be brief."))
    assert multi[0] == {"role": "system", "content": "Be brief.\n\nAdd."}  # joined by the separator
    assert multi[1:] == [
        {"role": "user", "content": "Q: 1+1\nA:"}, {"role": "assistant", "content": " 2"},
        {"role": "user", "content": "Q: 2+3\nA:"}, {"role": "assistant", "content": " 5"},
        {"role": "user", "content": "Q: 2+2\nA:"},
    ]  # fmt: skip
    one = messages(turns, ChatSettings("default", None, False))
    assert one == [{"role": "system", "content": "Add."},
                   {"role": "user", "content": "Q: 1+1\nA: 2\n\nQ: 2+3\nA: 5\n\nQ: 2+2\nA:"}]  # fmt: skip
    assert messages(PromptTurns("", (), "Q", "\n\n"), ChatSettings("default")) == [{"role": "user", "content": "Q"}]


def test_an_unprompted_task_records_no_chat(tiny_gpt2_chat: Path, tmp_path: Path) -> None:
    """A reranking task has no prompts: nothing becomes a conversation, and its results say so (no ``chat``)."""
    reranking = run(f"hf:{tiny_gpt2_chat}", "passage_reranking_shift", model_args=ARGS, limit=2, use_cache=False,
                    bootstrap=FAST, chat=ChatSettings("default", "Be brief."))[0]  # fmt: skip
    assert reranking.document["evaluations"][0]["shots"] is None
    assert "chat" not in reranking.document["run_identity"]
