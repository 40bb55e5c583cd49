"""From a model spec to its runner: the one place that knows every runner module."""

from __future__ import annotations

from genbench.runs.errors import ModelSpecError
from genbench.runs.model_runner import ModelRunner
from genbench.runs.specs import ModelSpec


def load_runner(spec: ModelSpec) -> ModelRunner:
    """The runner for a spec (its heavy libraries are imported here, not before).

    Raises:
        ModelSpecError: unknown model arguments, or a missing optional dependency (the message names the extra).
    """
    try:
        if spec.kind == "hf":
            from genbench.runs.hf import HFCausalLMRunner

            return HFCausalLMRunner(spec)
        if spec.kind == "openai":
            from genbench.runs.openai import OpenAIRunner

            return OpenAIRunner(spec)
        if spec.kind in ("cross-encoder", "sentence-transformers"):
            from genbench.runs.rerank import PairScorerRunner

            return PairScorerRunner(spec)
        from genbench.runs.python import PythonRunner

        return PythonRunner(spec)
    except ImportError as exc:
        extra = {"hf": "hf", "openai": "openai"}.get(spec.kind, "rerank")
        raise ModelSpecError(
            f"{spec.kind}: models need {exc.name or 'a missing package'}: pip install 'genbench[{extra}]'."
        ) from exc
