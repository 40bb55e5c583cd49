"""From a model spec to its runner, through :data:`genbench.runs.MODEL_RUNNERS` (the plugin seam of model kinds).

A runner is a :class:`~genbench.runs.model_runner.ModelRunner` subclass, constructed with the parsed spec; its
heavy libraries (torch, transformers, openai, sentence-transformers) are imported when it is constructed or when its
module is, never before :func:`load_runner`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench._core.errors import UnknownPluginError
from genbench.runs import MODEL_RUNNERS
from genbench.runs._errors import ModelSpecError

if TYPE_CHECKING:
    from genbench.runs.model_runner import ModelRunner
    from genbench.runs.specs import ModelSpec

# The optional dependencies (``pip install 'genbench[extra]'``) of genbench's own kinds.
EXTRAS = {"hf": "hf", "openai": "openai", "cross-encoder": "rerank", "sentence-transformers": "rerank"}


def load_runner(spec: ModelSpec) -> ModelRunner:
    """The runner for a spec (its heavy libraries are imported here, not before).

    Raises:
        ModelSpecError: an unknown kind (the message lists the known ones), unknown model arguments, or a missing
            optional dependency (the message names the extra to install).
    """
    try:
        runner_class = MODEL_RUNNERS.load(spec.kind)
        return runner_class(spec)
    except ImportError as error:  # the runner's library, imported when the runner is constructed
        raise _missing_dependency(spec.kind, error) from error
    except UnknownPluginError as error:
        if isinstance(error.__cause__, ImportError):  # the runner's module imports it at module level
            raise _missing_dependency(spec.kind, error.__cause__) from error
        raise ModelSpecError(str(error)) from error


def _missing_dependency(kind: str, error: ImportError) -> ModelSpecError:
    package = error.name or "a missing package"
    extra = EXTRAS.get(kind)
    how = f"pip install 'genbench[{extra}]'" if extra else f"install {package} ({error})"
    return ModelSpecError(f"{kind}: models need {package}: {how}.")
