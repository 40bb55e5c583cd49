"""The contract every model runner implements, and how a spec becomes a runner.

A runner answers ``generate``, ``loglikelihood`` and ``score_pairs`` requests, raising :class:`RequestUnsupported`
for a kind it cannot answer; what a valid answer is, is written here once (:func:`answer_problem`). See
docs/running_models.md#broken-answers-are-errors and docs/plugins.md#the-groups.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genbench._core.urls import redact_url
from genbench.runs._errors import ModelSpecError
from genbench.runs.specs import ModelSpec


class RequestUnsupported(Exception):
    """The runner cannot answer this kind of request (the message says why)."""


class ModelRunner:
    """Base class of the runners.

    Attributes:
        spec: The parsed model spec.
        revision: What identifies the model's weights (a hub commit, a content hash of a local directory), or None
            when it cannot be told; part of the request cache key.
        cacheable: Whether answers may be cached (False for a user's Python predictor, whose code may change).
        chunk_size: Requests handed to the runner at once; each chunk's answers are cached before the next.
    """

    cacheable = True
    # Requests per model call between cache commits: what an interruption can lose at most.
    chunk_size = 32

    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.revision: str | None = None
        self.chat: dict[str, Any] | None = None  # how prompts became conversations, when they did

    def cache_identity(self) -> dict[str, Any]:
        """What, besides the request itself, decides an answer: spec, revision and output-affecting arguments (a
        password in a server URL does not decide an answer: it is redacted, so it is written to no cache or shard)."""
        identity = {"spec": redact_url(self.spec.text), "revision": self.revision, "args": self.output_args()}
        if self.chat is not None:  # the template's hash, system instruction and few-shot layout (chat.record)
            identity["chat"] = self.chat
        return identity

    def output_args(self) -> dict[str, str]:
        """The model arguments that change answers (not batch size, concurrency or timeouts)."""
        return {}

    def chat_template_text(self, template: str) -> str | None:
        """The text of the chat template ``template`` names (``"default"``, a name or a file), checked; None where
        the server applies its own. Called once before :meth:`chat_request`.

        Raises:
            ModelSpecError: this runner takes no chat templates, or not this one (the message says what fits).
        """
        raise ModelSpecError(
            f"{self.spec.kind}: models take no chat template (--apply-chat-template is for hf: and openai: api=chat)."
        )

    def chat_request(self, messages: list[dict[str, str]], template_text: str | None) -> str | list[dict[str, str]]:
        """What is asked for a conversation: its text rendered by the template, or the messages themselves."""
        raise ModelSpecError(f"{self.spec.kind}: models take no chat template.")

    def unused_chat_template(self) -> bool:
        """Whether the model has a chat template of its own (run without it, the user is told)."""
        return False

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, stop: str | None) -> list[str]:
        raise RequestUnsupported(f"{self.spec.kind}: models do not generate text")

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        raise RequestUnsupported(f"{self.spec.kind}: models give no log-likelihoods")

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        raise RequestUnsupported(
            f"{self.spec.kind}: models do not score (query, document) pairs; use cross-encoder:PATH or "
            "sentence-transformers:PATH"
        )


KINDS_EXPECT = {
    "generate": "one str per prompt",
    "loglikelihood": "one number (a log-probability; -inf allowed) per (context, continuation) pair",
    "score_pairs": "one number per (query, document) pair",
}
NAN_FIX = "The model produced NaN: check its dtype (float16 overflows; try dtype=float32 or bfloat16) and its weights."


@dataclass
class AnswerProblem:
    """Why a runner's answers break the contract.

    Attributes:
        position: The request's position in the list handed to the runner; None when the answer list itself is
            wrong (not a list, or of the wrong length).
        problem: What the runner answered and what was expected.
        fix: What to check.
    """

    position: int | None
    problem: str
    fix: str = ""


def shown_answer(value: Any) -> str:
    """An answer as it is quoted in messages: its ``repr``, cut after 60 characters."""
    text = repr(value)
    return f"{text[:60]}..." if len(text) > 60 else text


def answer_problem(kind: str, requests: Sequence[Any], answers: Any) -> AnswerProblem | list[Any]:
    """The answers of a runner to ``requests`` of ``kind``, normalised (plain ``str``, ``float``), or their problem.

    >>> answer_problem("loglikelihood", [("a", "b"), ("a", "c")], [-1, float("-inf")])
    [-1.0, -inf]
    >>> answer_problem("loglikelihood", [("a", "b")], [float("nan")]).problem
    'answered NaN: expected a number'
    >>> answer_problem("generate", ["a", "b"], None).problem
    "returned None for 2 'generate' requests: expected a list of 2 answers, one str per prompt"
    """
    expected = KINDS_EXPECT[kind]
    if not isinstance(answers, (list, tuple)):
        return AnswerProblem(
            None,
            f"returned {shown_answer(answers)} for {len(requests)} {kind!r} requests: expected a list of "
            f"{len(requests)} answers, {expected}",
        )
    if len(answers) != len(requests):
        return AnswerProblem(
            None, f"returned {len(answers)} answers for {len(requests)} {kind!r} requests: expected {expected}"
        )
    checked: list[Any] = []
    for position, answer in enumerate(answers):
        if kind == "generate":
            if not isinstance(answer, str):
                return AnswerProblem(
                    position, f"answered {shown_answer(answer)} ({type(answer).__name__}): expected a str"
                )
            try:
                answer.encode("utf-8")
            except UnicodeEncodeError as exc:
                return AnswerProblem(
                    position,
                    f"answered text with a lone surrogate ({shown_answer(answer[exc.start : exc.end])} at character "
                    f"{exc.start}): expected valid Unicode text",
                    "Decode the model's bytes with errors='replace'.",
                )
            checked.append(str(answer))
            continue
        if isinstance(answer, (str, bytes, bool)) or answer is None:
            return AnswerProblem(
                position, f"answered {shown_answer(answer)} ({type(answer).__name__}): expected a number"
            )
        try:
            value = float(answer)
        except (TypeError, ValueError):
            return AnswerProblem(
                position, f"answered {shown_answer(answer)} ({type(answer).__name__}): expected a number"
            )
        if math.isnan(value):
            return AnswerProblem(position, "answered NaN: expected a number", NAN_FIX)
        if kind == "loglikelihood" and value == math.inf:
            return AnswerProblem(
                position, "answered +inf: a log-probability is at most 0", NAN_FIX.replace("NaN", "+inf")
            )
        checked.append(value)
    return checked


def directory_revision(path: str | os.PathLike[str]) -> str | None:
    """``sha256:...`` of a local model directory's files (names and contents), or None for a non-directory.

    Reads every file once: weights retrained in place change the revision, so stale cached answers are never reused.
    """
    root = Path(path)
    if not root.is_dir():
        return None
    digest = hashlib.sha256()
    for file in sorted(p for p in root.rglob("*") if p.is_file() and ".cache" not in p.parts):
        digest.update(file.relative_to(root).as_posix().encode() + b"\0")
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return "sha256:" + digest.hexdigest()
