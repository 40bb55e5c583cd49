"""genbench's former module paths, kept importable: ``genbench.testing`` is ``genbench.review``, and so on.

The modules moved when the package was laid out in layers (docs/architecture.md). An import of a former path
(or of any module below it) gives the very module object of the new path, so state, ``isinstance`` and
monkeypatching behave as before. One meta path finder does it for every entry of :data:`FORMER_PATHS`; the
standard import system offers no declarative aliasing, hence this small finder.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

FORMER_PATHS: dict[str, str] = {
    "genbench.errors": "genbench.core.errors",
    "genbench.io": "genbench.core.files",
    "genbench.generated_docs": "genbench.core.generated_docs",
    "genbench.arrow_values": "genbench.data.arrow_values",
    "genbench.data.features": "genbench.data.split_features",
    "genbench.data.task_data": "genbench.registry.task_data",
    "genbench.data.bundle": "genbench.registry.data_bundle",
    "genbench.reranking.ranking_metrics": "genbench.metrics.ranking_metrics",
    "genbench.reranking.classification_metrics": "genbench.metrics.classification_metrics",
    "genbench.reranking.correlation_metrics": "genbench.metrics.correlation_metrics",
    "genbench.reranking.samples": "genbench.metrics.reranking_samples",
    "genbench.task_classes": "genbench.task.classes",
    "genbench.legacy_helpers": "genbench.compat.task_helpers",
    "genbench.task_roots": "genbench.registry.roots",
    "genbench.task_directories": "genbench.registry.directories",
    "genbench.task_imports": "genbench.registry.task_modules",
    "genbench.listing": "genbench.registry.listing",
    "genbench.registry_cache": "genbench.registry.metadata_cache",
    "genbench.config.loading": "genbench.config.documents",
    "genbench.baselines": "genbench.runs.baselines",
    "genbench.demo": "genbench.runs.demo",
    "genbench.runs.runners": "genbench.runs.runner_registry",
    "genbench.runs.runner": "genbench.runs.model_runner",
    "genbench.contamination.api": "genbench.contamination.workflow",
    "genbench.scaffold": "genbench.authoring.scaffold",
    "genbench.submission": "genbench.authoring.submission",
    "genbench.testing": "genbench.review",
    "genbench.contamination.tasks": "genbench.contamination.task_checks",
    "genbench.reranking.tasks": "genbench.reranking.task_evaluation",
    "genbench.contamination.registry": "genbench.contamination.backends",
    "genbench.metrics.registry": "genbench.metrics.configured_metrics",
    "genbench.runs.cache": "genbench.runs.request_cache",
    "genbench.contamination.sources": "genbench.contamination.training_data",
    "genbench.contamination.es.schema": "genbench.contamination.es.mappings",
    "genbench.contamination.scoring": "genbench.contamination.match_scores",
    "genbench.review.report": "genbench.review.check_report",
    "genbench.reranking.nano_beir": "genbench.reranking.nano_beir_suite",
    "genbench.reranking.evaluation.base": "genbench.reranking.evaluation.evaluator_base",
    "genbench.reranking.evaluation.classification": "genbench.reranking.evaluation.classification_evaluator",
    "genbench.reranking.evaluation.correlation": "genbench.reranking.evaluation.correlation_evaluator",
    "genbench.reranking.evaluation.nano_beir": "genbench.reranking.evaluation.nano_beir_evaluator",
    "genbench.reranking.evaluation.reranking": "genbench.reranking.evaluation.reranking_evaluator",
}
"""Former module path -> the module it is now (modules below a former package path follow it)."""


def current_path(name: str) -> str | None:
    """The module path that ``name`` (a former path, or a module below one) is now; None if it did not move.

    >>> current_path("genbench.testing.checks"), current_path("genbench.review")
    ('genbench.review.checks', None)
    """
    for former, current in FORMER_PATHS.items():
        if name == former or name.startswith(former + "."):
            return current + name[len(former) :]
    return None


# The finder and loader implement the import protocols without subclassing importlib.abc's ABCs: importing
# importlib.abc loads importlib.resources and costs ~10 ms on every `import genbench`.
class _AliasLoader:
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(self.target)
        sys.modules[spec.name] = module
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the module was imported under its current path."""


class FormerPathFinder:
    """Finds a former module path and loads it as the module at its current path."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        current = current_path(fullname)
        if current is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, cast("Loader", _AliasLoader(current)))


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, FormerPathFinder) for finder in sys.meta_path):
        sys.meta_path.append(FormerPathFinder())
