"""Errors of model runs and results files."""

from __future__ import annotations

from typing import Any

from genbench._core.errors import GenBenchError


class ModelSpecError(GenBenchError, ValueError):
    """A model spec (``hf:PATH``, ``openai:URL``, ...) or one of its ``--model-args`` is invalid."""


class ModelRunError(GenBenchError, RuntimeError):
    """A model could not be loaded or called (the server failed after its retries, a predictor broke its contract)."""


class ResultsFileError(GenBenchError, ValueError):
    """A results file (or its per-sample log) is unreadable, or does not follow the results schema."""


class ModelAnswerError(ModelRunError):
    """A model's answer breaks the runner contract (NaN, a wrong type or count); the message names the request."""


class MalformedAnswer(ModelAnswerError):
    """A runner's answer to one request is not an answer (a server's body that is not a completion).

    The executor turns it into a :class:`ModelAnswerError` naming the model, the task and the request.

    Attributes:
        request: The request, as the runner was given it (a prompt, a ``(context, continuation)`` pair).
    """

    def __init__(self, problem: str, request: Any):
        super().__init__(problem)
        self.request = request
