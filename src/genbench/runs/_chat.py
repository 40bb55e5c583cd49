"""Chat conversations of prompts: ``--apply-chat-template``, ``--system-instruction``, ``--fewshot-as-multiturn``.

A prompt's parts become messages as lm-evaluation-harness's ``fewshot_context`` makes them; the model's runner
renders them (:meth:`~genbench.runs.model_runner.ModelRunner.chat_request`). See docs/running_models.md#chat-templates.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from genbench.prompting._turns import PromptTurns, prompt_turns
from genbench.runs._errors import ModelSpecError

if TYPE_CHECKING:
    import datasets

    from genbench.runs.model_runner import ModelRunner
    from genbench.task import Task

Messages = list[dict[str, str]]


@dataclass(frozen=True)
class ChatSettings:
    """How prompts become conversations.

    Attributes:
        template: None: no chat template (plain prompts); ``"default"``: the tokenizer's own (its ``default`` one
            when it has several); another name: that one of the tokenizer's named templates; a path to a file: the
            Jinja template it holds.
        system_instruction: The system message's text (before the task's instruction), or None.
        fewshot_as_multiturn: Shots as user/assistant turns (True) or all in the one user turn (False); None: True
            with a template (lm-evaluation-harness's default), and it needs a template.
    """

    template: str | None = None
    system_instruction: str | None = None
    fewshot_as_multiturn: bool | None = None

    @property
    def multiturn(self) -> bool:
        """Whether shots are turns of their own."""
        return self.template is not None if self.fewshot_as_multiturn is None else self.fewshot_as_multiturn

    @property
    def changes_prompts(self) -> bool:
        """Whether prompts differ from the task's plain prompts."""
        return self.template is not None or bool(self.system_instruction)

    def check(self) -> None:
        """Refuse few-shot turns without a template (as lm-evaluation-harness does).

        Raises:
            ValueError: ``fewshot_as_multiturn`` set without a template.
        """
        if self.fewshot_as_multiturn and self.template is None:
            raise ValueError(
                "--fewshot-as-multiturn needs --apply-chat-template: without a template the shots are one text."
            )

    def record(self, template_text: str | None) -> dict[str, Any]:
        """What the results file and the request cache's key record: the template's name and the sha256 of its text,
        the system instruction and the few-shot layout."""
        return {
            "template": self.template,
            "template_sha256": hashlib.sha256(template_text.encode()).hexdigest() if template_text else None,
            "system_instruction": self.system_instruction,
            "fewshot_as_multiturn": self.multiturn if self.template is not None else False,
        }


def _join(prefix: str | None, suffix: str | None, delimiter: str) -> str:
    """``prefix + delimiter + suffix`` where neither has whitespace at the join, else the two joined (either may be
    empty): lm-evaluation-harness's ``maybe_delimit``.

    >>> _join("Be brief.", "Add.\\n\\n", "\\n\\n"), _join("Be brief. ", "Add.", "\\n\\n"), _join(None, "Add.", "\\n")
    ('Be brief.\\n\\nAdd.\\n\\n', 'Be brief. Add.', 'Add.')
    """
    if not prefix:
        return suffix or ""
    if not suffix:
        return prefix
    return prefix + suffix if prefix[-1].isspace() or suffix[0].isspace() else prefix + delimiter + suffix


def messages(turns: PromptTurns, settings: ChatSettings) -> Messages:
    """The conversation of one prompt (docs/running_models.md#chat-templates).

    >>> turns = PromptTurns("Add.\\n\\n", (("Q: 1+1\\nA: ", "2"),), "Q: 2+2\\nA: ", "\\n\\n")
    >>> [m["role"] for m in messages(turns, ChatSettings("default"))]
    ['system', 'user', 'assistant', 'user']
    >>> messages(turns, ChatSettings("default", fewshot_as_multiturn=False))[1]["content"]
    'Q: 1+1\\nA: 2\\n\\nQ: 2+2\\nA: '
    """
    result: Messages = []
    system = _join(settings.system_instruction, turns.instruction, turns.separator)
    if system:
        result.append({"role": "system", "content": system})
    if settings.multiturn:
        for shot_input, target in turns.shots:
            result += [{"role": "user", "content": shot_input}, {"role": "assistant", "content": target}]
        result.append({"role": "user", "content": turns.query})
    else:
        result.append({"role": "user", "content": PromptTurns("", turns.shots, turns.query, turns.separator).text})
    return result


def plain_prompt(turns: PromptTurns, system_instruction: str | None) -> str:
    """A prompt without a template: the system instruction joined to the task's instruction, then the rest.

    >>> plain_prompt(PromptTurns("Add.\\n\\n", (), "Q: 2+2\\nA: ", "\\n\\n"), "Be brief.")
    'Be brief.\\n\\nAdd.\\n\\nQ: 2+2\\nA: '
    """
    system = _join(system_instruction, turns.instruction, turns.separator)
    return system + PromptTurns("", turns.shots, turns.query, turns.separator).text


def task_prompt_turns(task: Task, prompts: datasets.Dataset, seed: int) -> list[PromptTurns]:
    """The turns of each prompt of a task's prompt dataset (built with ``seed``)."""
    from genbench.task._task import Task as BaseTask

    custom = type(task)._format_example_for_in_context_learning is not BaseTask._format_example_for_in_context_learning
    strategy = task.config.preparation_strategies.prompt_based_testing
    assert strategy is not None  # a prompt dataset was built
    return prompt_turns(
        task.get_datasets_raw(),
        prompts,
        task_type=task.config.task_type,
        prompt_builder=strategy.prompt_builder,
        random_seed=seed,
        example_formatter=task._format_example_for_in_context_learning if custom else None,
    )


def use_chat(runner: ModelRunner, settings: ChatSettings) -> str | None:
    """Check ``settings`` against the runner and record them on it (:attr:`ModelRunner.chat`, part of the request
    cache's key); returns the template's text (None: no template, or the server's own).

    Raises:
        ModelSpecError: the runner takes no such template, or few-shot turns without a template.
    """
    try:
        settings.check()
    except ValueError as exc:
        raise ModelSpecError(str(exc)) from None
    text = runner.chat_template_text(settings.template) if settings.template is not None else None
    runner.chat = settings.record(text) if settings.changes_prompts else None
    return text


def conversation_key(conversation: Messages) -> str:
    """The sha256 of a conversation's messages (what a sharded run's renderings are kept by).

    >>> conversation_key([{"role": "user", "content": "Hi"}])[:12]
    '557f6d9586f5'
    """
    canonical = json.dumps(conversation, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def chat_requests(
    runner: ModelRunner,
    settings: ChatSettings,
    template_text: str | None,
    turns: list[PromptTurns],
    renders: dict[str, Any] | None = None,
) -> list[Any]:
    """What is asked for each prompt: its conversation rendered by the runner (text, or messages for a chat API),
    or without a template the plain prompt after the system instruction.

    ``renders``: where given, gets each rendering that is not the messages themselves, by :func:`conversation_key`
    (a sharded run's merge asks with them, without the model's tokenizer).
    """
    if settings.template is None:
        return [plain_prompt(t, settings.system_instruction) for t in turns]
    requests = []
    for t in turns:
        conversation = messages(t, settings)
        rendered = runner.chat_request(conversation, template_text)
        if renders is not None and rendered != conversation:
            renders[conversation_key(conversation)] = rendered
        requests.append(rendered)
    return requests


def unused_template_warning(runner: ModelRunner) -> str:
    """The one line that says a model's own chat template is not applied, and how to apply it."""
    return (
        f"{runner.spec.text}: the tokenizer has a chat template, but prompts are sent without it (as plain text); "
        "an instruction-tuned model usually expects it: add --apply-chat-template (and --system-instruction TEXT, "
        "--no-fewshot-as-multiturn as wanted)."
    )
