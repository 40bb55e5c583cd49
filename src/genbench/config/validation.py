"""Validation of config documents: schema errors, legacy spellings and cross-field consistency.

Every problem of one document is collected and raised together as one :class:`~genbench.errors.ConfigError`,
each problem naming the dotted field path, what was found and what is expected, and its line where the
field can be located in the source.
"""

from __future__ import annotations

import copy
import re
import warnings
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from genbench.errors import ConfigError, ConfigProblem

ModelT = TypeVar("ModelT", bound=BaseModel)

# Spellings used by the original framework's documentation and tests, and the field that replaced each.
LEGACY_PROMPT_BUILDER_KEYS = {"instruction": "instruction_zero_shot", "choice_prefix": "choices_prefix"}
PROMPT_BUILDER_KEYS = {
    "instruction_zero_shot",
    "instruction_few_shot",
    "input_prefix",
    "output_prefix",
    "append_choices_to_input",
    "choices_prefix",
    "choice_item_postfix",
    "choice_item_prefix",
    "sequence_labeling_separator",
    "permute_choices",
    "few_shot_example_separator",
    "stop_string",
} | set(LEGACY_PROMPT_BUILDER_KEYS)

# Tags of the evaluation_metrics union, which pydantic puts in error paths.
_METRIC_TAGS = {"hf", "cross_encoder_reranking", "cross_encoder_classification", "cross_encoder_correlation"}
_SCORE_METRICS = {"cross_encoder_classification", "cross_encoder_correlation"}

_URI_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_ALLOWED_SCHEMES = {"http", "https", "file"}


def _warn_legacy(file: str | None, field: str, replacement: str) -> None:
    warnings.warn(
        f"{file or '<config>'}: `{field}` is deprecated; use `{replacement}` instead.",
        DeprecationWarning,
        stacklevel=5,
    )


def upgrade_legacy_task_config(raw: Any, file: str | None) -> Any:
    """Rewrite legacy spellings into current fields, warning once per spelling. Returns a new document."""
    if not isinstance(raw, dict):
        return raw
    raw = copy.deepcopy(raw)
    strategies = raw.get("preparation_strategies")
    pbt = strategies.get("prompt_based_testing") if isinstance(strategies, dict) else None
    if not isinstance(pbt, dict):
        return raw
    base = "preparation_strategies.prompt_based_testing"
    # The seed guide's example put builder options straight under prompt_based_testing.
    flat = [k for k in pbt if k in PROMPT_BUILDER_KEYS]
    if flat and "prompt_builder" not in pbt:
        _warn_legacy(file, f"{base}.{{{', '.join(flat)}}}", f"{base}.prompt_builder.{{...}}")
        pbt["prompt_builder"] = {k: pbt.pop(k) for k in flat}
    builder = pbt.get("prompt_builder")
    if isinstance(builder, dict):
        for old, new in LEGACY_PROMPT_BUILDER_KEYS.items():
            if old in builder:
                _warn_legacy(file, f"{base}.prompt_builder.{old}", f"{base}.prompt_builder.{new}")
                value = builder.pop(old)
                builder.setdefault(new, value)
    return raw


def _describe_input(value: Any) -> str:
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _message(error: dict[str, Any]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown field (check the spelling; see `genbench-cli schema` for the allowed fields)"
    if kind == "missing":
        return "required field is missing"
    if kind == "invalid_metric_type":
        found = error["input"].get("type") if isinstance(error.get("input"), dict) else None
        return f"{error['msg']}, got {_describe_input(found)}"
    if kind == "too_short":
        return f"expected at least {error['ctx']['min_length']} item(s), got {error['ctx']['actual_length']}"
    if kind == "too_long":
        return f"expected at most {error['ctx']['max_length']} item(s), got {error['ctx']['actual_length']}"
    expected = error["msg"].replace("Input should be", "expected").replace("Value error, ", "")
    if "input" in error and kind not in ("value_error",):
        return f"{expected}, got {_describe_input(error['input'])}"
    return expected


def _merge_union_errors(errors: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pydantic reports each failed member of a union separately; keep one message per field."""
    merged: dict[str, list[str]] = {}
    for error in errors:
        loc = [str(p) for p in error["loc"]]
        # Drop union-member tags such as 'str', 'list[str]', 'function-after[...]' from the path.
        path = [
            p
            for p in loc
            if not re.match(r"^(str|list\[.*\]|constrained-str|function-.*|int|float|none|\[key\])$", p)
            and p not in _METRIC_TAGS
        ]
        field = ".".join(path)
        merged.setdefault(field, [])
        msg = _message(error)
        if msg not in merged[field]:
            merged[field].append(msg)
    return [(field, msgs[0] if len(msgs) == 1 else " or ".join(msgs)) for field, msgs in merged.items()]


def locate(source: str | None, field: str) -> int | None:
    """Best-effort 1-based line of a dotted field in jsonnet source (each key searched after its parent)."""
    if not source or not field:
        return None
    pos = 0
    line = None
    for part in field.split("."):
        if part.isdigit():
            continue
        match = re.compile(r"""(?:^|[\s{,])['"]?""" + re.escape(part) + r"""['"]?\s*:""").search(source, pos)
        if match is None:
            return line
        pos = match.end()
        line = source.count("\n", 0, match.start() + 1) + 1
    return line


def validate_model(
    model: type[ModelT], raw: Any, *, file: str | None, source: str | None, extra: list[ConfigProblem]
) -> ModelT:
    """Validate ``raw`` against ``model``, raising one ConfigError with these problems and ``extra``."""
    problems = list(extra)
    result = None
    if not isinstance(raw, dict):
        problems.insert(0, ConfigProblem("", f"expected an object at the top level, got {_describe_input(raw)}"))
    else:
        try:
            result = model.model_validate(raw)
        except ValidationError as exc:
            errors = [dict(e) for e in exc.errors(include_url=False)]
            known = {p.field for p in problems}
            for field, msg in _merge_union_errors(errors):
                if field not in known:
                    problems.append(ConfigProblem(field, msg, locate(source, field)))
    if problems:
        raise ConfigError(file, problems)
    assert result is not None  # noqa: S101 - for the type checker: problems is empty only when validation passed
    return result


def task_consistency_problems(raw: Any, source: str | None) -> list[ConfigProblem]:
    """Cross-field rules of a task config, checked on the raw document so they report with schema errors."""
    if not isinstance(raw, dict):
        return []
    problems: list[ConfigProblem] = []

    def add(field: str, message: str) -> None:
        problems.append(ConfigProblem(field, message, locate(source, field)))

    ds = raw.get("data_source")
    split_file = raw.get("split_file")
    if isinstance(ds, dict):
        kind = ds.get("type")
        if kind == "hf":
            hf_id = ds.get("hf_id")
            path = hf_id[0] if isinstance(hf_id, list) and hf_id else hf_id
            # A local folder ('./data', '/abs/path') has no commit to pin.
            is_local = isinstance(path, str) and path.startswith(("./", "../", "/"))
            for key in ("hf_id",) if is_local else ("hf_id", "git_commit_sha"):
                if ds.get(key) is None:
                    add(f"data_source.{key}", "required when data_source.type is 'hf'")
            for key in ("test", "validation", "train", "sha256"):
                if ds.get(key) is not None:
                    add(f"data_source.{key}", "only allowed when data_source.type is 'manual'")
        elif kind == "manual":
            if ds.get("test") is None:
                add("data_source.test", "required when data_source.type is 'manual' (the test set's JSONL URI)")
            for key in ("hf_id", "git_commit_sha"):
                if ds.get(key) is not None:
                    add(f"data_source.{key}", "only allowed when data_source.type is 'hf'")
            for key in ("test", "validation", "train"):
                uri = ds.get(key)
                if isinstance(uri, str):
                    scheme = _URI_SCHEME.match(uri)
                    if scheme and scheme.group(1).lower() not in _ALLOWED_SCHEMES:
                        add(
                            f"data_source.{key}",
                            f"unsupported URI scheme {scheme.group(1)!r}: expected https://, http://, file:// "
                            "or a path relative to the task directory",
                        )
            sha = ds.get("sha256")
            if isinstance(sha, dict):
                for key in sha:
                    if key in ("train", "validation", "test") and ds.get(key) is None:
                        add(f"data_source.sha256.{key}", f"no data_source.{key} file is declared for this checksum")
            if split_file is None:
                for key, flag in (("train", "has_train_set"), ("validation", "has_validation_set")):
                    declared = raw.get(flag) is True
                    present = ds.get(key) is not None
                    if declared and not present:
                        add(flag, f"is true but data_source.{key} is not given")
                    elif present and not declared and isinstance(raw.get(flag, False), bool):
                        add(f"data_source.{key}", f"is given but {flag} is not true")

    task_type = raw.get("task_type")
    mapping = raw.get("field_mapping")
    if isinstance(mapping, dict):
        for key in ("input", "target"):
            if key not in mapping:
                add("field_mapping", f"must map '{key}' (e.g. {key}: 'source_field')")
        if "target_options" in mapping and task_type in ("free_form", "sequence_labeling"):
            add("field_mapping.target_options", "only allowed when task_type is 'multiple_choice' or 'reranking'")
    if raw.get("free_form_output_regex") is not None and task_type in (
        "multiple_choice",
        "sequence_labeling",
        "reranking",
    ):
        add("free_form_output_regex", "only allowed when task_type is 'free_form'")
    problems.extend(_metric_problems(raw, task_type, source))

    checks = raw.get("contamination_checks")
    for number, check in enumerate(checks if isinstance(checks, list) else []):
        if not isinstance(check, dict):
            continue
        mode = check.get("mode", "ngram")
        where = f"contamination_checks.{number}"
        if mode in ("ngram", "embedding") and check.get("match_threshold") is None:
            add(
                f"{where}.match_threshold", f"required for mode '{mode}' (a score in [0, 1]; above it is contaminated)"
            )
        if mode != "ngram" and check.get("ngram_size") is not None:
            add(f"{where}.ngram_size", "only allowed when mode is 'ngram'")
        if mode != "embedding" and check.get("model") is not None:
            add(f"{where}.model", "only allowed when mode is 'embedding'")
        if mode == "exact" and check.get("match_threshold") is not None:
            add(f"{where}.match_threshold", "not used by mode 'exact' (an exact match is contaminated)")

    strategies = raw.get("preparation_strategies")
    if (
        task_type == "reranking"
        and isinstance(strategies, dict)
        and strategies.get("prompt_based_testing") is not None
    ):
        add(
            "preparation_strategies.prompt_based_testing",
            "reranking tasks are evaluated from scores; use finetuning or no prompt strategy",
        )
    if (
        isinstance(strategies, dict)
        and task_type != "reranking"
        and not any(strategies.get(k) is not None for k in strategies)
    ):
        add("preparation_strategies", "give at least one of 'finetuning' and 'prompt_based_testing'")
    wants_finetuning = isinstance(strategies, dict) and strategies.get("finetuning") is not None
    if wants_finetuning and raw.get("has_train_set") is not True:
        add("preparation_strategies.finetuning", "requires a train set (has_train_set: true)")
    return problems


def _metric_problems(raw: dict[str, Any], task_type: Any, source: str | None) -> list[ConfigProblem]:
    """Which ``evaluation_metrics`` entries fit the task type (predictions are labels/texts or scores)."""
    metrics = raw.get("evaluation_metrics")
    if not isinstance(metrics, list):
        return []
    kinds = [m.get("type", "hf") if isinstance(m, dict) else None for m in metrics]
    problems = []
    for index, kind in enumerate(kinds):
        field = f"evaluation_metrics.{index}"
        message = None
        if task_type == "reranking" and kind in ("hf", *_SCORE_METRICS):
            message = "a reranking task's predictions are scores per candidate: use {type: 'cross_encoder_reranking'}"
        elif kind == "cross_encoder_reranking" and task_type not in (None, "reranking"):
            message = "type 'cross_encoder_reranking' is only allowed when task_type is 'reranking'"
        elif kind in _SCORE_METRICS and task_type == "sequence_labeling":
            message = f"type {kind!r} is not allowed when task_type is 'sequence_labeling'"
        elif kind in _SCORE_METRICS and "hf" in kinds:
            message = (
                f"type {kind!r} scores predictions that are scores, {{hf_id: ...}} metrics score labels or texts: "
                "a task cannot mix them"
            )
        if message is not None:
            problems.append(ConfigProblem(field, message, locate(source, "evaluation_metrics")))
    return problems
