"""Model runs: run a model over tasks, score it with confidence intervals, and write results files.

``genbench-cli run`` and :func:`genbench.evaluate` are the entry points; the modules are imported lazily, so
``import genbench.runs`` loads no model library. :data:`MODEL_RUNNERS` is declared here, in the package every runner
belongs to, so that :mod:`genbench.runs.specs` checks a spec's kind against the names that
:mod:`genbench.runs._runner_registry` loads. See docs/running_models.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench._core.lazy import lazy_exports
from genbench._core.plugins import PluginGroup

if TYPE_CHECKING:
    from genbench.runs._chat import ChatSettings
    from genbench.runs._compare import compare_results
    from genbench.runs._demo import run_demo
    from genbench.runs._evaluation import TaskResult, evaluate
    from genbench.runs._execute import TaskRun, run, run_model_on_task
    from genbench.runs._merged_results import is_merged_results
    from genbench.runs._results import read_results, results_schema_text
    from genbench.runs._results_model import ResultsDocument
    from genbench.runs._shard_merge import merge_shards
    from genbench.runs.model_runner import ModelRunner

MODEL_RUNNERS: PluginGroup[type[ModelRunner]] = PluginGroup(
    "genbench.model_runners",
    "model runner",
    builtins={
        "hf": "genbench.runs._hf:HFCausalLMRunner",
        "openai": "genbench.runs._openai:OpenAIRunner",
        "cross-encoder": "genbench.runs._rerank:PairScorerRunner",
        "sentence-transformers": "genbench.runs._rerank:PairScorerRunner",
        "python": "genbench.runs._python:PythonRunner",
    },
)
"""Model spec kind -> its runner, a :class:`~genbench.runs.model_runner.ModelRunner` subclass constructed with the
parsed :class:`~genbench.runs.specs.ModelSpec`. Another package adds a kind with an entry point in the group
``genbench.model_runners`` (``vllm = "my_package.runner:VLLMRunner"`` makes ``--model vllm:...`` work)."""

_EXPORTS = {
    "run": "genbench.runs._execute",
    "ChatSettings": "genbench.runs._chat",
    "run_demo": "genbench.runs._demo",
    "run_model_on_task": "genbench.runs._execute",
    "TaskRun": "genbench.runs._execute",
    "compare_results": "genbench.runs._compare",
    "evaluate": "genbench.runs._evaluation",
    "TaskResult": "genbench.runs._evaluation",
    "ResultsDocument": "genbench.runs._results_model",
    "merge_shards": "genbench.runs._shard_merge",
    "is_merged_results": "genbench.runs._merged_results",
    "read_results": "genbench.runs._results",
    "results_schema_text": "genbench.runs._results",
}

__all__ = [
    "ChatSettings",
    "MODEL_RUNNERS",
    "ResultsDocument",
    "TaskResult",
    "TaskRun",
    "compare_results",
    "evaluate",
    "is_merged_results",
    "merge_shards",
    "read_results",
    "results_schema_text",
    "run",
    "run_demo",
    "run_model_on_task",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
