"""Lenient at the door: configs the original framework accepted load, each deviation reported as a problem to warn.

A document is rewritten into the current schema, with one :class:`~genbench._core.errors.ConfigProblem` per change
(field, what happened, what to write). Unknown keys of metric entries and TaskDict configs stay in ``model_extra``
(task code written for the original may read them) but never reach the metric; other unknown keys are dropped, as
the original dropped them. See docs/config.md#lenient-at-the-door-strict-at-the-gate.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from genbench._core.errors import ConfigProblem
from genbench.config._locate import locate
from genbench.config._schema import (
    FIELD_HOMES,
    ContaminationCheckConfig,
    CrossEncoderClassificationMetricConfig,
    CrossEncoderCorrelationMetricConfig,
    CrossEncoderRerankingMetricConfig,
    DataSourceConfig,
    EvaluationMetricConfig,
    FinetuningStrategyConfig,
    PreparationStrategiesConfig,
    PromptBasedTestingConfig,
    PromptBuilderConfig,
    TaskConfig,
    TaskDictConfig,
)
from genbench.config._unknown_fields import compute_kwargs_hint, unknown_field_message

# Spellings used by the original framework's documentation and tests, and the field that replaced each.
LEGACY_PROMPT_BUILDER_KEYS = {"instruction": "instruction_zero_shot", "choice_prefix": "choices_prefix"}
# Metric ids of the seed guide's legacy form ({type: 'hf', path: ['EM']}) and their `evaluate` ids.
LEGACY_METRIC_IDS = {"EM": "exact_match", "em": "exact_match"}
FIELD_MAPPING_KEYS = ("input", "target", "target_options")

_METRIC_MODELS: dict[str, type[BaseModel]] = {
    "hf": EvaluationMetricConfig,
    "cross_encoder_reranking": CrossEncoderRerankingMetricConfig,
    "cross_encoder_classification": CrossEncoderClassificationMetricConfig,
    "cross_encoder_correlation": CrossEncoderCorrelationMetricConfig,
}


class _Collector:
    """The problems found while relaxing one document, each located in the source."""

    def __init__(self, source: str | None):
        self.source = source
        self.problems: list[ConfigProblem] = []

    def add(self, field: str, message: str) -> None:
        self.problems.append(ConfigProblem(field, message, locate(self.source, field)))

    def unknown_keys(
        self,
        node: dict[str, Any],
        allowed: Iterable[str],
        base: str,
        *,
        keep: bool = False,
        hint: str | Callable[[str, Any], str] = "",
    ) -> None:
        """Warn about (and unless ``keep``, drop) the keys of ``node`` that are not in ``allowed``."""
        allowed = list(allowed)
        for key in [k for k in node if k not in allowed]:
            field = f"{base}.{key}" if base else key
            home = FIELD_HOMES.get(key)
            advice = hint(key, node[key]) if callable(hint) else hint
            self.add(
                field,
                unknown_field_message(key, allowed, kept=keep, home=None if home == base else home, advice=advice),
            )
            if not keep:
                del node[key]


def relax_task_config(raw: Any, source: str | None) -> tuple[Any, list[ConfigProblem]]:
    """Rewrite a task config document into the current schema.

    Args:
        raw: The evaluated ``config.jsonnet``.
        source: Its jsonnet source, to locate the lines of the problems.

    Returns:
        A new document without legacy spellings and unknown keys (except those kept, see the module docstring),
        and one problem per change, in document order.

    >>> doc, problems = relax_task_config({"name": "x", "evaluation_metrics": [{"type": "hf", "path": ["EM"]}]}, None)
    >>> doc["evaluation_metrics"]
    [{'type': 'hf', 'hf_id': 'exact_match'}]
    >>> print(problems[0].render("config.jsonnet"))
    config.jsonnet: evaluation_metrics.0.path: the original guide's legacy metric form; write hf_id: 'exact_match'
    """
    if not isinstance(raw, dict):
        return raw, []
    doc = copy.deepcopy(raw)
    found = _Collector(source)
    found.unknown_keys(doc, TaskConfig.model_fields, "")
    if isinstance(doc.get("data_source"), dict):
        found.unknown_keys(doc["data_source"], DataSourceConfig.model_fields, "data_source")
    mapping = doc.get("field_mapping")
    if isinstance(mapping, dict):
        found.unknown_keys(
            mapping, FIELD_MAPPING_KEYS, "field_mapping", hint="only input, target and target_options are mapped"
        )
    _relax_metrics(doc, found)
    _relax_strategies(doc, found)
    checks = doc.get("contamination_checks")
    for number, check in enumerate(checks if isinstance(checks, list) else []):
        if isinstance(check, dict):
            found.unknown_keys(check, ContaminationCheckConfig.model_fields, f"contamination_checks.{number}")
    return doc, found.problems


def _relax_metrics(doc: dict[str, Any], found: _Collector) -> None:
    metrics = doc.get("evaluation_metrics")
    if not isinstance(metrics, list):
        return
    if not metrics:
        found.add(
            "evaluation_metrics",
            "is an empty list; leave the field out when task.py's evaluate_predictions computes the metrics, "
            "or list at least one metric ({hf_id: 'exact_match', best_score: 1.0})",
        )
    for number, metric in enumerate(metrics):
        if not isinstance(metric, dict):
            continue
        base = f"evaluation_metrics.{number}"
        if "path" in metric and "hf_id" not in metric:
            path = metric.pop("path")
            parts = path if isinstance(path, list) else [path]
            if parts and all(isinstance(p, str) for p in parts) and len(parts) <= 2:
                hf_id: Any = [LEGACY_METRIC_IDS.get(parts[0], parts[0]), *parts[1:]]
                metric["hf_id"] = hf_id[0] if len(hf_id) == 1 else hf_id
                found.add(f"{base}.path", f"the original guide's legacy metric form; write hf_id: {metric['hf_id']!r}")
            else:
                metric["path"] = path  # unreadable: left for the schema to report as an unknown field
        elif isinstance(metric.get("hf_id"), str) and metric["hf_id"] in LEGACY_METRIC_IDS:
            new = LEGACY_METRIC_IDS[metric["hf_id"]]
            found.add(f"{base}.hf_id", f"{metric['hf_id']!r} is a legacy metric name; write hf_id: {new!r}")
            metric["hf_id"] = new
        kind = metric.get("type", "hf")
        model = _METRIC_MODELS.get(kind) if isinstance(kind, str) else None
        if model is None:
            continue  # an unknown type is an error, reported by the schema
        keep = model is EvaluationMetricConfig
        found.unknown_keys(metric, model.model_fields, base, keep=keep, hint=compute_kwargs_hint if keep else "")


def _relax_strategies(doc: dict[str, Any], found: _Collector) -> None:
    strategies = doc.get("preparation_strategies")
    if not isinstance(strategies, dict):
        return
    base = "preparation_strategies"
    pbt = strategies.get("prompt_based_testing")
    if isinstance(pbt, dict):
        pbt_base = f"{base}.prompt_based_testing"
        builder_keys = set(PromptBuilderConfig.model_fields) | set(LEGACY_PROMPT_BUILDER_KEYS)
        # The original guide's example put the builder options straight under prompt_based_testing.
        flat = [k for k in pbt if k in builder_keys]
        if flat and "prompt_builder" not in pbt:
            found.add(
                f"{pbt_base}.{flat[0]}",
                f"prompt builder options ({', '.join(flat)}) directly under prompt_based_testing are the original "
                f"guide's legacy form; move them into {pbt_base}.prompt_builder",
            )
            pbt["prompt_builder"] = {k: pbt.pop(k) for k in flat}
        builder = pbt.get("prompt_builder")
        if isinstance(builder, dict):
            for old, new in LEGACY_PROMPT_BUILDER_KEYS.items():
                if old in builder:
                    value = builder.pop(old)
                    if new in builder:
                        found.add(
                            f"{pbt_base}.prompt_builder.{old}",
                            f"legacy spelling of `{new}`, which is also given; `{old}` is ignored: delete it",
                        )
                    else:
                        found.add(f"{pbt_base}.prompt_builder.{old}", f"legacy spelling; write `{new}` instead")
                        builder[new] = value
            found.unknown_keys(builder, PromptBuilderConfig.model_fields, f"{pbt_base}.prompt_builder")
        found.unknown_keys(pbt, PromptBasedTestingConfig.model_fields, pbt_base)
    if isinstance(strategies.get("finetuning"), dict):
        found.unknown_keys(strategies["finetuning"], FinetuningStrategyConfig.model_fields, f"{base}.finetuning")
    found.unknown_keys(strategies, PreparationStrategiesConfig.model_fields, base)


def relax_task_dict_config(raw: Any, source: str | None) -> tuple[Any, list[ConfigProblem]]:
    """Report the keys of a TaskDict config that are not TaskDict fields (kept on the config, not used).

    Task fields (``data_source``, ``task_type``, ...) were accepted by the original as shared information that
    nothing read; the subtasks' own configs define them.

    >>> _, problems = relax_task_dict_config({"name": "x", "task_type": "free_form"}, None)
    >>> problems[0].field, problems[0].message.split(";")[0]
    ('task_type', 'a task field in the config of a task with subtasks, kept on the config but not used')
    """
    if not isinstance(raw, dict):
        return raw, []
    doc = copy.deepcopy(raw)
    found = _Collector(source)
    allowed = TaskDictConfig.model_fields
    for key in [k for k in doc if k not in allowed and k in TaskConfig.model_fields]:
        found.add(
            key,
            "a task field in the config of a task with subtasks, kept on the config but not used; "
            "each subtask's own config.jsonnet defines it: move it there and delete it here",
        )
    task_fields = set(TaskConfig.model_fields)
    rest = {k: v for k, v in doc.items() if k not in task_fields or k in allowed}
    found.unknown_keys(rest, allowed, "", keep=True)
    found.problems.sort(key=lambda p: list(doc).index(p.field) if p.field in doc else len(doc))
    return doc, found.problems
