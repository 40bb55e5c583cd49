"""Run a configured metric: the built-in twin of its ``evaluate`` id, else ``evaluate.load`` with its pinned revision.

The built-in ids are :data:`genbench.metrics._builtin.METRICS` (genbench's twins and the entry points of the group
``genbench.metrics``). ``evaluate.load`` runs at most once per (id, revision) in a process, and any failure becomes
one :class:`~genbench._core.errors.MetricError` saying what was tried and what works offline. See docs/metrics.md.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import pickle
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from genbench._core.errors import MetricError, UnknownPluginError
from genbench.metrics._builtin import METRICS, get_builtin_metric, local_metric_ids, metric_options

if TYPE_CHECKING:
    from genbench.config._schema import EvaluationMetricConfig

HfId = str | Sequence[str]

_ONE_EXAMPLE_SCORES: contextvars.ContextVar[dict[bytes, dict[str, Any]] | None] = contextvars.ContextVar(
    "one_example_scores", default=None
)


@contextlib.contextmanager
def one_example_scores_reused() -> Iterator[None]:
    """Inside the block, genbench's own metrics computed on one example return the first result for a (prediction,
    reference, options) they have already scored: they are pure functions of those, and scoring a test set example
    by example (per-sample scores) would otherwise call scikit-learn once per example, a few milliseconds each, for
    a handful of distinct pairs. Third-party metrics (plug-ins, ``evaluate``) are always computed.

    >>> with one_example_scores_reused():
    ...     compute_metric_by_id("accuracy", [1], [1]) == compute_metric_by_id("accuracy", [1], [1])
    True
    """
    token = _ONE_EXAMPLE_SCORES.set({})
    try:
        yield
    finally:
        _ONE_EXAMPLE_SCORES.reset(token)


def _compute_one_example_once(
    name: str, metric: Callable[..., dict[str, Any]], predictions: Sequence[Any], references: Sequence[Any],
    kwargs: dict[str, Any],
) -> dict[str, Any]:  # fmt: skip
    """``metric(predictions, references, **kwargs)``, reused as :func:`one_example_scores_reused` says."""
    scores = _ONE_EXAMPLE_SCORES.get()
    if scores is None or len(predictions) != 1 or not metric.__module__.startswith("genbench."):
        return metric(predictions, references, **kwargs)
    try:  # pickled, not repr'd: a value's repr may be cut short (a long numpy array), its pickle never is
        key = pickle.dumps((name, sorted(kwargs.items()), list(predictions), list(references)))
    except Exception:  # noqa: BLE001 - a value that does not pickle is simply computed
        return metric(predictions, references, **kwargs)
    if key not in scores:
        scores[key] = metric(predictions, references, **kwargs)
    return copy.deepcopy(scores[key])


# (id parts, revision) -> loaded evaluate module, so that no metric is loaded twice in a process.
_LOADED_HF_METRICS: dict[tuple[tuple[str, ...], str | None], Any] = {}


def _id_parts(hf_id: HfId) -> tuple[str, ...]:
    return (hf_id,) if isinstance(hf_id, str) else tuple(hf_id)


def metric_key_prefix(hf_id: HfId) -> str:
    """The prefix of a metric's result keys, as the original GenBench framework builds it.

    A result key is ``prefix + "__" + key of the metric's output``.

    Args:
        hf_id: The metric's ``hf_id``: an id, or ``[path, config_name]``.

    Returns:
        ``"hf_"`` followed by the id parts joined by ``"_"``.

    >>> metric_key_prefix("exact_match")
    'hf_exact_match'
    >>> metric_key_prefix(["glue", "cola"])
    'hf_glue_cola'
    """
    return "hf_" + "_".join(_id_parts(hf_id))


def builtin_id(hf_id: HfId) -> str | None:
    """The built-in metric serving ``hf_id``, or None: a single id (a string or a one-element list) only.

    >>> builtin_id("accuracy"), builtin_id(["accuracy"]), builtin_id(["glue", "cola"]), builtin_id("bertscore")
    ('accuracy', 'accuracy', None, None)
    """
    parts = _id_parts(hf_id)
    if len(parts) == 1 and parts[0] in METRICS:
        return parts[0]
    return None


def load_hf_metric(hf_id: HfId, revision: str | None = None) -> Any:
    """``evaluate.load(*hf_id, revision=revision)``, loaded once per process.

    Args:
        hf_id: An ``evaluate`` id (Hub id or local path), or ``[path, config_name]``.
        revision: The metric repository's commit, or None for the latest.

    Returns:
        The ``evaluate`` metric module.

    Raises:
        MetricError: ``evaluate`` is missing or cannot load the metric (unknown id; no network).
    """
    parts = _id_parts(hf_id)
    key = (parts, revision)
    if key in _LOADED_HF_METRICS:
        return _LOADED_HF_METRICS[key]
    call = f"evaluate.load({', '.join(map(repr, parts))}, revision={revision!r})"
    try:
        import evaluate

        metric = evaluate.load(*parts, revision=revision)
    except Exception as exc:  # evaluate raises FileNotFoundError, ConnectionError, ImportError, ...
        raise MetricError(
            f"Metric {'/'.join(parts)!r} is not built in and {call} failed: {type(exc).__name__}: {exc}\n"
            f"Built-in metrics (no Hub access needed): {', '.join(local_metric_ids())}. Other ids are loaded from the "
            f"Hugging Face Hub, which is unreachable offline (HF_HUB_OFFLINE=1 or no network); use a built-in id, "
            f"a local metric script path, or override evaluate_predictions in the task."
        ) from exc
    _LOADED_HF_METRICS[key] = metric
    return metric


def compute_metric_by_id(
    hf_id: HfId,
    predictions: Sequence[Any],
    references: Sequence[Any],
    *,
    kwargs: Mapping[str, Any] | None = None,
    revision: str | None = None,
) -> dict[str, Any]:
    """Compute one metric given by id; see :func:`compute_metric`.

    >>> compute_metric_by_id("accuracy", [0, 1, 1], [0, 1, 0], kwargs={"normalize": False})
    {'accuracy': 2.0}
    """
    kwargs = dict(kwargs or {})
    name = builtin_id(hf_id)
    try:
        metric = get_builtin_metric(name) if name is not None else None
    except UnknownPluginError as exc:  # a plug-in's metric whose module does not import
        raise MetricError(str(exc)) from exc
    if metric is not None:
        accepted = metric_options(metric)
        unknown = sorted(set(kwargs) - set(accepted))
        if unknown:
            raise MetricError(
                f"Metric {name!r} got unknown compute_extra_kwargs {', '.join(map(repr, unknown))}; "
                f"it accepts: {', '.join(accepted) or 'none'}"
            )
        try:
            return _compute_one_example_once(str(name), metric, predictions, references, kwargs)
        except MetricError:
            raise
        except Exception as exc:  # scikit-learn, SciPy, sacreBLEU and seqeval raise ValueError, TypeError, ...
            raise MetricError(f"Metric {name!r} failed: {type(exc).__name__}: {exc}") from exc

    module = load_hf_metric(hf_id, revision)
    shown = "/".join(_id_parts(hf_id))
    try:
        output = module.compute(predictions=list(predictions), references=list(references), **kwargs)
    except Exception as exc:
        raise MetricError(f"Metric {shown!r} (evaluate) failed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(output, Mapping):
        raise MetricError(f"Metric {shown!r} (evaluate) returned {output!r} instead of a dict of scores")
    return dict(output)


def compute_metric(
    metric_config: EvaluationMetricConfig | Mapping[str, Any],
    predictions: Sequence[Any],
    references: Sequence[Any],
) -> dict[str, Any]:
    """Compute one configured metric.

    A built-in id (see ``BUILTIN_METRICS``, and ``METRICS`` for those of plug-ins) runs the built-in twin with
    ``compute_extra_kwargs`` and ignores ``git_commit_sha``; any other id is loaded once per process with
    ``evaluate.load(*hf_id, revision=git_commit_sha)`` and its ``compute`` is called.

    Args:
        metric_config: An ``EvaluationMetricConfig`` (or a mapping with its fields).
        predictions: The predictions, as the metric expects them.
        references: The references, one per prediction.

    Returns:
        The metric's output, keys unprefixed (``{"accuracy": 0.5}``).

    Raises:
        MetricError: an option the built-in does not accept (naming those it does), a metric that cannot be
            loaded, or a failure while computing.

    >>> compute_metric({"hf_id": "exact_match", "compute_extra_kwargs": {"ignore_case": True}}, ["Paris"], ["paris"])
    {'exact_match': 1.0}
    """
    if isinstance(metric_config, Mapping):
        from genbench.config._schema import EvaluationMetricConfig

        try:
            metric_config = EvaluationMetricConfig.model_validate(dict(metric_config))
        except ValueError as exc:
            raise MetricError(f"Invalid metric config {dict(metric_config)!r}: {exc}") from None
    return compute_metric_by_id(
        metric_config.hf_id,
        predictions,
        references,
        kwargs=metric_config.compute_extra_kwargs,
        revision=metric_config.git_commit_sha,
    )
