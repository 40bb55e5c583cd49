"""Model runs: run a model over tasks, score it with confidence intervals, and write results files.

``genbench-cli run`` and :func:`genbench.evaluate` (typed results: :class:`ResultsDocument`) are the entry points;
``run --shard I/N`` and :func:`merge_shards` split a run (:mod:`genbench.runs.shards`); :mod:`genbench.runs.execute`
explains how each task type is answered, :mod:`genbench.runs.results` the results files,
:mod:`genbench.runs.compare` the paired comparison. The modules are imported lazily: ``import genbench.runs`` loads
no model library.

:data:`MODEL_RUNNERS` names the runner of each model spec kind (the ``hf`` of ``hf:gpt2``); it is declared here, in
the package that every runner module belongs to, so that :mod:`genbench.runs.specs` checks a spec's kind against the
same names that :func:`genbench.runs.runner_registry.load_runner` loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench.core.lazy import lazy_exports
from genbench.core.plugins import PluginGroup

if TYPE_CHECKING:
    from genbench.runs.chat import ChatSettings
    from genbench.runs.compare import compare_results
    from genbench.runs.demo import run_demo
    from genbench.runs.evaluation import TaskResult, evaluate
    from genbench.runs.execute import TaskRun, run, run_model_on_task
    from genbench.runs.merged_results import is_merged_results
    from genbench.runs.model_runner import ModelRunner
    from genbench.runs.results import read_results, results_schema_text
    from genbench.runs.results_model import ResultsDocument
    from genbench.runs.shard_merge import merge_shards

MODEL_RUNNERS: PluginGroup[type[ModelRunner]] = PluginGroup(
    "genbench.model_runners",
    "model runner",
    builtins={
        "hf": "genbench.runs.hf:HFCausalLMRunner",
        "openai": "genbench.runs.openai:OpenAIRunner",
        "cross-encoder": "genbench.runs.rerank:PairScorerRunner",
        "sentence-transformers": "genbench.runs.rerank:PairScorerRunner",
        "python": "genbench.runs.python:PythonRunner",
    },
)
"""Model spec kind -> its runner, a :class:`~genbench.runs.model_runner.ModelRunner` subclass constructed with the
parsed :class:`~genbench.runs.specs.ModelSpec`. Another package adds a kind with an entry point in the group
``genbench.model_runners`` (``vllm = "my_package.runner:VLLMRunner"`` makes ``--model vllm:...`` work)."""

_EXPORTS = {
    "run": "genbench.runs.execute",
    "ChatSettings": "genbench.runs.chat",
    "run_demo": "genbench.runs.demo",
    "run_model_on_task": "genbench.runs.execute",
    "TaskRun": "genbench.runs.execute",
    "compare_results": "genbench.runs.compare",
    "evaluate": "genbench.runs.evaluation",
    "TaskResult": "genbench.runs.evaluation",
    "ResultsDocument": "genbench.runs.results_model",
    "merge_shards": "genbench.runs.shard_merge",
    "is_merged_results": "genbench.runs.merged_results",
    "read_results": "genbench.runs.results",
    "results_schema_text": "genbench.runs.results",
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
