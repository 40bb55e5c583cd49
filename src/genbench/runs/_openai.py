"""``openai:BASE_URL``: an OpenAI-compatible server (vLLM, TGI, llama.cpp, Ollama, or the OpenAI API itself).

Generation through ``/completions`` or ``/chat/completions``, multiple choice by prompt log-probabilities (falling
back to generation), through the official ``openai`` client with retries; an answer that is not a completion is a
:class:`MalformedAnswer`. Model arguments and errors: docs/running_models.md#a-vllm-or-any-openai-compatible-server.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import Any

from genbench._core.urls import redact_url
from genbench.runs._errors import MalformedAnswer, ModelRunError, ModelSpecError
from genbench.runs._http_deadline import deadline_http_client, map_interruptibly
from genbench.runs.model_runner import ModelRunner, RequestUnsupported, shown_answer
from genbench.runs.specs import ModelSpec, check_known_args, float_arg, int_arg

logger = logging.getLogger(__name__)

KNOWN_ARGS = ("model", "api", "concurrency", "max_retries", "timeout", "revision")
CONNECT_TIMEOUT = 10.0  # seconds to open a connection (the `timeout` argument covers the whole request)
BASE_URL_HINT = (
    "If the server answers 404 to every request, the URL is not its OpenAI API base: give the scheme, host, port and "
    "path, e.g. http://localhost:8000/v1."
)


def _chat_messages(prompt: str | list[dict[str, str]]) -> Any:
    """The messages of a chat request: a conversation as it is (``--apply-chat-template``), a prompt as one user
    message."""
    return prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]


class OpenAIRunner(ModelRunner):
    """A client of one OpenAI-compatible server and model."""

    def __init__(self, spec: ModelSpec):
        super().__init__(spec)
        check_known_args(spec, KNOWN_ARGS)
        import openai

        self._openai = openai
        self._map_interruptibly = map_interruptibly
        self.api = spec.args.get("api", "completions")
        if self.api not in ("completions", "chat"):
            raise ModelSpecError(f"--model-args api={self.api!r}: expected completions or chat.")
        self.concurrency = int_arg(spec, "concurrency", 8)
        self.chunk_size = 4 * self.concurrency
        timeout = float_arg(spec, "timeout", 120.0)
        self.client = openai.OpenAI(
            base_url=spec.target,
            api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY",
            max_retries=int_arg(spec, "max_retries", 5, minimum=0),
            # a server that does not accept the connection is not waited for as long as one that computes
            timeout=openai.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT)),
            http_client=deadline_http_client(timeout),
        )
        self.shown = redact_url(spec.target)  # the server in messages, without a password given in the URL
        self._unlisted = ""
        models = self._preflight()
        self.model = spec.args.get("model") or self._only_model(models)
        if models is None:  # some servers serve completions but no list of models: the run goes on, with a note
            logger.warning(
                "openai:%s does not list its models (%s); going on with model=%s. %s",
                self.shown,
                self._unlisted,
                self.model,
                BASE_URL_HINT,
            )
        self.revision = spec.args.get("revision")
        self._logprobs_refused: str | None = None

    def _preflight(self) -> list[str] | None:
        """One request (``GET /models``, no retries) before any work: a server that cannot be reached fails the run
        at once, naming the URL; the model names it serves, or None when it does not list them."""
        try:
            listed = self.client.with_options(max_retries=0).models.list().data
        except self._openai.APIConnectionError as exc:  # also APITimeoutError: no connection, no answer
            reason = exc.__cause__ or exc
            raise ModelRunError(
                redact_url(
                    f"openai:{self.shown}: cannot reach the server ({type(reason).__name__}: {reason}). Check that "
                    "it is running and that the URL is its OpenAI API base (scheme, host, port and path, e.g. "
                    "http://localhost:8000/v1)."
                )
            ) from exc
        except self._openai.APIStatusError as exc:  # reachable, but no list of models
            answer = f"GET {self.shown.rstrip('/')}/models answered HTTP {exc.status_code}: {exc.message}"
            if exc.status_code in (401, 403):  # every request would be refused the same way
                raise ModelRunError(
                    f"openai:{self.shown} refused the API key ({answer}). Set OPENAI_API_KEY to the server's key."
                ) from exc
            self._unlisted = answer
            return None
        return [m.id for m in listed]

    def _only_model(self, models: list[str] | None) -> str:
        if models is None:
            raise ModelSpecError(
                f"openai:{self.shown} does not list its models ({self._unlisted}): name the model with "
                f"--model-args model=NAME. {BASE_URL_HINT}"
            )
        if len(models) != 1:
            raise ModelSpecError(
                f"openai:{self.shown} serves {len(models)} models ({', '.join(models[:10]) or 'none'}): "
                "choose one with --model-args model=NAME."
            )
        return models[0]

    def output_args(self) -> dict[str, str]:
        return {"model": self.model, "api": self.api}

    def _call(self, request: Callable[[], Any], asked: Any) -> Any:
        try:
            return request()
        except ValueError as exc:
            raise self._not_json(exc, asked) from exc
        except self._openai.APIStatusError as exc:
            if exc.status_code == 404:  # not retried: a wrong URL or an API the server does not have
                path = "/chat/completions" if self.api == "chat" else "/completions"
                raise ModelRunError(
                    f"openai:{self.shown} answered HTTP 404 to POST {path}: {exc.message}. Check that the URL is the "
                    "server's OpenAI API base (scheme, host, port and path, e.g. http://localhost:8000/v1) and that "
                    "it serves this API (--model-args api=completions or api=chat)."
                ) from exc
            raise ModelRunError(
                f"openai:{self.shown} answered HTTP {exc.status_code} after its retries: {exc.message}"
            ) from exc
        except self._openai.APIError as exc:  # connection errors and timeouts, after the retries
            raise ModelRunError(redact_url(f"openai:{self.shown}: {type(exc).__name__}: {exc}")) from exc

    def _not_json(self, exc: ValueError, asked: Any) -> MalformedAnswer:
        """The broken answer of a 200 whose body the client could not parse (not JSON, not UTF-8)."""
        return MalformedAnswer(
            f"was answered by openai:{self.shown} with HTTP 200 and a body that is not JSON "
            f"({type(exc).__name__}: {str(exc)[:200]})",
            asked,
        )

    def _map(self, function: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        return self._map_interruptibly(function, items, self.concurrency)

    def chat_template_text(self, template: str) -> str | None:
        if self.api != "chat":
            raise ModelSpecError(
                f"--apply-chat-template with openai:{self.shown} needs --model-args api=chat: the server applies its "
                "model's chat template to the messages of /chat/completions (/completions takes text)."
            )
        if template != "default":
            raise ModelSpecError(
                f"--apply-chat-template {template}: openai:{self.shown} applies its own chat template; give "
                "--apply-chat-template alone (configure another template on the server, e.g. vllm serve "
                "--chat-template FILE)."
            )
        return None  # the server's, whose text is not known here

    def chat_request(self, messages: list[dict[str, str]], template_text: str | None) -> list[dict[str, str]]:
        return messages

    def generate(self, prompts: Sequence[Any], *, max_new_tokens: int, stop: str | None) -> list[str]:
        stops = [stop] if stop else None

        def one(prompt: Any) -> str:  # a str, or a conversation's messages (api=chat)
            if self.api == "chat":
                response = self._call(
                    lambda: self.client.chat.completions.create(
                        model=self.model,
                        messages=_chat_messages(prompt),
                        max_tokens=max_new_tokens,
                        temperature=0,
                        stop=stops,
                    ),
                    prompt,
                )
                message = getattr(self._choice(response, "a chat completion", prompt), "message", None)
                text = self._text(getattr(message, "content", None), "choices[0].message.content", prompt)
            else:
                response = self._call(
                    lambda: self.client.completions.create(
                        model=self.model, prompt=prompt, max_tokens=max_new_tokens, temperature=0, stop=stops
                    ),
                    prompt,
                )
                text = self._text(
                    getattr(self._choice(response, "a completion", prompt), "text", None), "choices[0].text", prompt
                )
            return text.split(stop, 1)[0] if stop else text

        return self._map(one, list(prompts))

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if self.api == "chat":
            raise RequestUnsupported("a chat API gives no prompt log-probabilities")
        if self._logprobs_refused:
            raise RequestUnsupported(self._logprobs_refused)
        return self._map(self._one_loglikelihood, list(pairs))

    def _one_loglikelihood(self, pair: tuple[str, str]) -> float:
        context, continuation = pair
        spaces = len(context) - len(context.rstrip())
        if spaces:  # as lm-evaluation-harness: the separator belongs to the continuation's first token
            context, continuation = context[:-spaces], context[-spaces:] + continuation
        text = context + continuation
        try:
            response = self.client.completions.create(
                model=self.model, prompt=text, max_tokens=1, temperature=0, echo=True, logprobs=1
            )
        except (
            self._openai.BadRequestError,
            self._openai.NotFoundError,
            self._openai.UnprocessableEntityError,
        ) as exc:
            self._logprobs_refused = f"the server refused prompt log-probabilities: {exc.message}"
            raise RequestUnsupported(self._logprobs_refused) from exc
        except ValueError as exc:
            raise self._not_json(exc, pair) from exc
        except self._openai.APIError as exc:
            raise ModelRunError(redact_url(f"openai:{self.shown}: {type(exc).__name__}: {exc}")) from exc
        logprobs = getattr(
            self._choice(response, "a completion with prompt log-probabilities", pair), "logprobs", None
        )
        offsets = getattr(logprobs, "text_offset", None) if logprobs is not None else None
        values = getattr(logprobs, "token_logprobs", None) if logprobs is not None else None
        if not offsets or not values:
            self._logprobs_refused = "the server returned no prompt log-probabilities (echo=true, logprobs=1)"
            raise RequestUnsupported(self._logprobs_refused)
        if not isinstance(offsets, list) or not isinstance(values, list) or len(offsets) != len(values):
            raise MalformedAnswer(
                f"answered prompt log-probabilities that do not pair up (text_offset {shown_answer(offsets)}, "
                f"token_logprobs {shown_answer(values)}): expected two lists of one entry per token",
                pair,
            )
        total = 0.0
        for offset, value in zip(offsets, values, strict=True):
            if isinstance(offset, bool) or not isinstance(offset, int):
                raise MalformedAnswer(
                    f"answered the token offset {shown_answer(offset)} ({type(offset).__name__}): expected an int",
                    pair,
                )
            if len(context) <= offset < len(text):
                if value is None:
                    raise MalformedAnswer("answered no log-probability for a prompt token: expected a number", pair)
                if isinstance(value, (str, bool)) or not isinstance(value, (int, float)):
                    raise MalformedAnswer(
                        f"answered the prompt token log-probability {shown_answer(value)} ({type(value).__name__}): "
                        "expected a number",
                        pair,
                    )
                total += float(value)
        return total

    def _choice(self, response: Any, expected: str, asked: Any) -> Any:
        """The choice of a response (``index`` 0; a lone choice without an index is taken too), or a broken answer
        naming what was expected."""
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise MalformedAnswer(
                f"was answered with no choices ({shown_answer(choices)}): expected {expected} in choices. Check that "
                "the server speaks the OpenAI API at this URL",
                asked,
            )
        indices = [getattr(choice, "index", None) for choice in choices]
        first = [choice for choice, index in zip(choices, indices, strict=True) if type(index) is int and index == 0]
        if len(choices) == 1 and indices[0] is None:  # a server that leaves out the index of its one choice
            return choices[0]
        if len(first) != 1:
            raise MalformedAnswer(
                f"was answered with {len(choices)} choices of indices {shown_answer(indices)}: expected one choice of "
                f"index 0 ({expected}; one was asked for)",
                asked,
            )
        return first[0]

    @staticmethod
    def _text(text: Any, field: str, asked: Any) -> str:
        if not isinstance(text, str):
            raise MalformedAnswer(
                f"answered {field} = {shown_answer(text)} ({type(text).__name__}): expected a str", asked
            )
        return text
