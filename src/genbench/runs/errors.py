"""Errors of model runs and results files."""

from __future__ import annotations

from genbench.core.errors import GenBenchError


class ModelSpecError(GenBenchError, ValueError):
    """A model spec (``hf:PATH``, ``openai:URL``, ...) or one of its ``--model-args`` is invalid."""


class ModelRunError(GenBenchError, RuntimeError):
    """A model could not be loaded or called (the server failed after its retries, a predictor broke its contract)."""


class ResultsFileError(GenBenchError, ValueError):
    """A results file (or its per-sample log) is unreadable, or does not follow the results schema."""


class ModelAnswerError(ModelRunError):
    """A model's answer breaks the runner contract (NaN, a wrong type or count); the message names the request."""
