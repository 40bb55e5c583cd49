"""``python:module:function`` (or ``python:path/to/file.py:function``): a user's own predictor.

The function gets a list of requests per kind and returns one answer per request; its answers are never cached (its
code may change between runs without a revision to tell). See docs/running_models.md#rerankers-and-your-own-predictor.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from genbench.runs._errors import ModelRunError, ModelSpecError
from genbench.runs.model_runner import ModelRunner, RequestUnsupported
from genbench.runs.specs import ModelSpec

logger = logging.getLogger(__name__)


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

    def _call(self, kind: str, requests: list[Any], **options: Any) -> Any:
        """The predictor's answers as it returned them (the executor checks them against the contract)."""
        name = f"python:{self.spec.target}"
        try:
            answers = self.function(requests, task=kind, **options)
        except NotImplementedError as exc:
            raise RequestUnsupported(f"{name} does not answer {kind!r}: {exc}") from exc
        except SystemExit as exc:
            raise ModelRunError(
                f"{name} raised SystemExit({exc.code!r}) on {len(requests)} {kind!r} requests: a predictor returns "
                "its answers (or raises NotImplementedError for a kind it does not answer), it never exits."
            ) from exc
        except KeyboardInterrupt as exc:
            message = f"Interrupted in {name} while it answered {len(requests)} {kind!r} requests."
            logger.warning(message)
            raise PredictorInterrupted(message) from exc
        if isinstance(answers, Iterable) and not isinstance(answers, (str, bytes, Mapping)):
            return list(answers)  # a generator, a numpy array: one answer per item
        return answers

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, stop: str | None) -> list[str]:
        answers = self._call("generate", list(prompts), max_new_tokens=max_new_tokens, stop=stop)
        if stop and isinstance(answers, list):
            answers = [a.split(stop, 1)[0] if isinstance(a, str) else a for a in answers]
        return answers  # type: ignore[no-any-return]

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self._call("loglikelihood", [tuple(p) for p in pairs])  # type: ignore[no-any-return]

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self._call("score_pairs", [tuple(p) for p in pairs])  # type: ignore[no-any-return]


class PredictorInterrupted(KeyboardInterrupt):
    """A ``KeyboardInterrupt`` (Ctrl-C, or raised by the predictor) while a ``python:`` predictor ran: an interruption
    as any other (the run stops), its message naming the predictor."""
