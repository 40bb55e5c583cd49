"""``python:module:function`` (or ``python:path/to/file.py:function``): a user's own predictor.

The function is called once per request kind with a list of requests and returns one answer per request:

- ``function(prompts, task="generate", max_new_tokens=..., stop=...)`` -> one string per prompt;
- ``function(pairs, task="loglikelihood")`` -> one float per ``(context, continuation)``; raise
  ``NotImplementedError`` to let multiple choice fall back to generation;
- ``function(pairs, task="score_pairs")`` -> one float per ``(query, document)`` (reranking); raise
  ``NotImplementedError`` to score by log-likelihood instead.

Answers of a Python predictor are never cached: its code may change between runs without a revision to tell.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from genbench.runs.errors import ModelRunError, ModelSpecError
from genbench.runs.model_runner import ModelRunner, RequestUnsupported
from genbench.runs.specs import ModelSpec


def load_callable(target: str) -> Callable[..., Any]:
    """Import ``module:function`` (the module from ``sys.path`` or the current directory) or ``file.py:function``."""
    module_name, sep, function_name = target.rpartition(":")
    if not sep or not module_name or not function_name:
        raise ModelSpecError(f"python:{target}: expected python:module:function or python:path/to/file.py:function.")
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise ModelSpecError(f"python:{target}: no such file {path}.")
        spec = importlib.util.spec_from_file_location(f"_genbench_predictor_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise ModelSpecError(f"python:{target}: cannot import {path}.")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ModelSpecError(f"python:{target}: cannot import {module_name!r}: {exc}") from exc
    function = getattr(module, function_name, None)
    if not callable(function):
        raise ModelSpecError(f"python:{target}: {module_name} has no callable {function_name!r}.")
    return function


class PythonRunner(ModelRunner):
    """Calls a user's function with lists of requests."""

    cacheable = False

    def __init__(self, spec: ModelSpec):
        super().__init__(spec)
        self.function = load_callable(spec.target)

    def _call(self, kind: str, requests: list[Any], **options: Any) -> list[Any]:
        try:
            answers = self.function(requests, task=kind, **options)
        except NotImplementedError as exc:
            raise RequestUnsupported(f"python:{self.spec.target} does not answer {kind!r}: {exc}") from exc
        answers = list(answers)
        if len(answers) != len(requests):
            raise ModelRunError(
                f"python:{self.spec.target} returned {len(answers)} answers for {len(requests)} {kind!r} requests."
            )
        return answers

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, stop: str | None) -> list[str]:
        answers = self._call("generate", list(prompts), max_new_tokens=max_new_tokens, stop=stop)
        bad = next((a for a in answers if not isinstance(a, str)), None)
        if bad is not None:
            raise ModelRunError(
                f"python:{self.spec.target} returned {bad!r} for a 'generate' request: expected a str."
            )
        return [a.split(stop, 1)[0] if stop else a for a in answers]

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return [float(a) for a in self._call("loglikelihood", [tuple(p) for p in pairs])]

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return [float(a) for a in self._call("score_pairs", [tuple(p) for p in pairs])]
