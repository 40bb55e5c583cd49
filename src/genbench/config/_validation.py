"""Validation of config documents: what makes a task unusable (errors) and what only a review rejects (warnings).

A document is relaxed (:mod:`genbench.config._leniency`), validated against the typed schema, then checked by the
cross-field rules, which skip every field the schema already rejected (a cause is reported once, not again through
its consequences). Errors are raised together as one :class:`~genbench._core.errors.ConfigError`; the rest is
returned as warnings. What stays an error: docs/config.md#lenient-at-the-door-strict-at-the-gate.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from genbench._core.errors import ConfigError, ConfigProblem
from genbench.config._locate import locate
from genbench.config._schema import UNKNOWN_KEYS_REPORTED

ModelT = TypeVar("ModelT", bound=BaseModel)
Relax = Callable[[Any, "str | None"], "tuple[Any, list[ConfigProblem]]"]
Rules = Callable[[dict, "str | None", "set[str]"], "tuple[list[ConfigProblem], list[ConfigProblem]]"]

# Tags of the evaluation_metrics union, which pydantic puts in error paths.
_METRIC_TAGS = {"hf", "cross_encoder_reranking", "cross_encoder_classification", "cross_encoder_correlation"}
_SCORE_METRICS = {"cross_encoder_classification", "cross_encoder_correlation"}

_URI_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_ALLOWED_SCHEMES = {"http", "https", "file"}


def _describe_input(value: object) -> str:
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) <= 60 else f"a string of {len(value)} characters"
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
        return f"{expected}, got {_describe_input(error['input'])}{_did_you_mean(error)}"
    return expected


def _did_you_mean(error: dict[str, Any]) -> str:
    """``; did you mean 'multiple_choice'?`` for a misspelt choice (``multi_choice``), else ``""``."""
    value, expected = error.get("input"), (error.get("ctx") or {}).get("expected")
    if error["type"] not in ("enum", "literal_error") or not isinstance(value, str) or not isinstance(expected, str):
        return ""
    match = difflib.get_close_matches(value, re.findall(r"'([^']*)'", expected), n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""


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


@dataclass
class CheckedDocument(Generic[ModelT]):
    """The outcome of checking one document: the config (None when there are errors), errors and warnings."""

    config: ModelT | None
    errors: list[ConfigProblem]
    warnings: list[ConfigProblem]

    def config_or_raise(self, file: str | None) -> ModelT:
        """The config, or a ConfigError with every error and the warnings, each in line order."""
        if self.errors or self.config is None:
            raise ConfigError(file, self.errors, warnings=self.warnings)
        return self.config


def check_document(
    model: type[ModelT], raw: object, *, file: str | None, source: str | None, relax: Relax, rules: Rules | None = None
) -> CheckedDocument[ModelT]:
    """Relax, validate and check a config document.

    Args:
        model: The schema (``TaskConfig`` or ``TaskDictConfig``).
        raw: The evaluated document.
        file: The file name for messages.
        source: The jsonnet source, to locate lines.
        relax: The leniency pass for this kind of document.
        rules: The cross-field rules: ``(document, source, broken fields) -> (errors, warnings)``.

    Returns:
        The validated config (None when there are errors), every error and the problems to warn about, each in line
        order. Rules reading a field with a schema error are
        skipped, so the warnings are those independent of the errors.

    Raises:
        ConfigError: only when the top level is not an object.
    """
    if not isinstance(raw, dict):
        raise ConfigError(
            file, [ConfigProblem("", f"expected an object at the top level, got {_describe_input(raw)}")]
        )
    document, lenient = relax(raw, source)
    errors: list[ConfigProblem] = []
    result = None
    try:
        # The unknown keys are reported above (relax), with file and line: the schema does not warn again.
        result = model.model_validate(document, context={UNKNOWN_KEYS_REPORTED: True})
    except ValidationError as exc:
        for field, msg in _merge_union_errors([dict(e) for e in exc.errors(include_url=False)]):
            errors.append(ConfigProblem(field, msg, locate(source, field)))
    broken = {p.field for p in errors}
    rule_errors, rule_warnings = rules(document, source, broken) if rules is not None else ([], [])
    errors = sorted(errors + [p for p in rule_errors if p.field not in broken], key=_file_order)
    warnings = sorted(lenient + rule_warnings, key=_file_order)
    return CheckedDocument(result if not errors else None, errors, warnings)


def _file_order(problem: ConfigProblem) -> int:
    """Sort key: problems in the order of their lines in the file (sorting is stable), those without a line last."""
    return problem.line if problem.line is not None else 1 << 30


def task_rules(
    raw: dict[str, Any], source: str | None, broken: set[str]
) -> tuple[list[ConfigProblem], list[ConfigProblem]]:
    """Cross-field rules of a task config: ``(errors, warnings)``; rules reading a ``broken`` field are skipped."""
    errors: list[ConfigProblem] = []
    warnings: list[ConfigProblem] = []

    def ok(*fields: str) -> bool:
        return not any(b == f or b.startswith(f + ".") or f.startswith(b + ".") for f in fields for b in broken)

    def add(field: str, message: str, *, error: bool = False) -> None:
        (errors if error else warnings).append(ConfigProblem(field, message, locate(source, field)))

    _data_source_rules(raw, ok, add)
    task_type = raw.get("task_type") if ok("task_type") else None
    mapping = raw.get("field_mapping")
    if isinstance(mapping, dict) and ok("field_mapping"):
        for key in ("input", "target"):
            if key not in mapping:
                add("field_mapping", f"must map '{key}' (e.g. {key}: 'source_field')", error=True)
        if "target_options" in mapping and task_type in ("free_form", "sequence_labeling"):
            add(
                "field_mapping.target_options",
                "is not used: only multiple-choice and reranking tasks have options; delete it",
            )
    regex = raw.get("free_form_output_regex")
    if regex is not None and ok("free_form_output_regex", "task_type"):
        if task_type in ("multiple_choice", "sequence_labeling", "reranking"):
            add("free_form_output_regex", f"is not used by a {task_type} task (only free_form); delete it")
        elif regex == "":
            add(
                "free_form_output_regex",
                "is empty, which would match the empty string in every prediction, so it is ignored; delete it, "
                "or write the regex that finds the answer",
            )
    split_file = raw.get("split_file")
    if isinstance(split_file, str) and ok("split_file") and not _inside_task_dir(split_file):
        add(
            "split_file",
            "must be a path inside the task directory (relative, no '..' leading out), e.g. 'split.jsonnet'",
            error=True,
        )
    metric_errors = _metric_problems(raw, task_type, source) if ok("evaluation_metrics", "task_type") else []
    errors += metric_errors
    if ok("contamination_checks"):
        _contamination_rules(raw, add)
    strategies = raw.get("preparation_strategies")
    if isinstance(strategies, dict) and ok("preparation_strategies", "task_type"):
        if task_type == "reranking" and strategies.get("prompt_based_testing") is not None:
            add(
                "preparation_strategies.prompt_based_testing",
                "reranking tasks are evaluated from scores; use finetuning or no prompt strategy",
                error=True,
            )
        if task_type != "reranking" and not any(strategies.get(k) is not None for k in strategies):
            add(
                "preparation_strategies",
                "names no strategy; give at least one of finetuning: {objective: 'maximum_likelihood'} and "
                "prompt_based_testing: {prompt_builder: {...}}",
            )
        if strategies.get("finetuning") is not None and ok("has_train_set") and raw.get("has_train_set") is not True:
            add(
                "preparation_strategies.finetuning",
                "needs a train set, but has_train_set is not true: set has_train_set: true and give "
                "data_source.train (or a split_file with a train split), or remove finetuning",
            )
    return errors, warnings


def _inside_task_dir(relative: str) -> bool:
    """Whether a config path stays inside the task directory, judged from its text alone (no file access)."""
    text = relative.replace("\\", "/")
    if text.startswith("/") or re.match(r"^[A-Za-z]:", text) or "://" in text:
        return False
    return not posixpath.normpath(text).startswith("..")


def _data_source_rules(raw: dict[str, Any], ok: Callable[..., bool], add: Callable[..., None]) -> None:
    ds = raw.get("data_source")
    if not isinstance(ds, dict) or not ok("data_source"):
        return
    kind = ds.get("type")
    if kind == "hf":
        hf_id = ds.get("hf_id")
        path = hf_id[0] if isinstance(hf_id, list) and hf_id else hf_id
        # A local folder ('./data', '/abs/path') has no commit to pin.
        is_local = isinstance(path, str) and path.startswith(("./", "../", "/"))
        for key in ("hf_id",) if is_local else ("hf_id", "git_commit_sha"):
            if ds.get(key) is None:
                add(f"data_source.{key}", "required when data_source.type is 'hf'", error=True)
        for key in ("test", "validation", "train", "sha256"):
            if ds.get(key) is not None:
                add(f"data_source.{key}", "is not used by an 'hf' data source (only by 'manual'); delete it")
        return
    if kind != "manual":
        return
    if ds.get("test") is None:
        add("data_source.test", "required when data_source.type is 'manual' (the test set's JSONL URI)", error=True)
    for key in ("hf_id", "git_commit_sha"):
        if ds.get(key) is not None:
            add(f"data_source.{key}", "is not used by a 'manual' data source (only by 'hf'); delete it")
    for key in ("test", "validation", "train"):
        uri = ds.get(key)
        scheme = _URI_SCHEME.match(uri) if isinstance(uri, str) else None
        if scheme and scheme.group(1).lower() not in _ALLOWED_SCHEMES:
            add(
                f"data_source.{key}",
                f"unsupported URI scheme {scheme.group(1)!r}: expected https://, http://, file:// "
                "or a path relative to the task directory",
                error=True,
            )
    sha = ds.get("sha256")
    if isinstance(sha, dict):
        for key in sha:
            if key in ("train", "validation", "test") and ds.get(key) is None:
                message = f"no data_source.{key} file is declared, so it is not used; delete it"
                add(f"data_source.sha256.{key}", message)
    if raw.get("split_file") is None:
        for key, flag in (("train", "has_train_set"), ("validation", "has_validation_set")):
            if not ok(flag):
                continue
            declared = raw.get(flag) is True
            present = ds.get(key) is not None
            if declared and not present:
                add(flag, f"is true but data_source.{key} is not given: give the file, or set {flag}: false")
            elif present and not declared:
                add(f"data_source.{key}", f"is given but {flag} is not true: set {flag}: true")


def _contamination_rules(raw: dict[str, Any], add: Callable[..., None]) -> None:
    checks = raw.get("contamination_checks")
    for number, check in enumerate(checks if isinstance(checks, list) else []):
        if not isinstance(check, dict):
            continue
        mode = check.get("mode", "ngram")
        where = f"contamination_checks.{number}"
        if mode in ("ngram", "embedding") and check.get("match_threshold") is None:
            add(
                f"{where}.match_threshold",
                f"required for mode '{mode}' (a score in [0, 1]; above it is contaminated)",
                error=True,
            )
        if mode != "ngram" and check.get("ngram_size") is not None:
            add(f"{where}.ngram_size", "only allowed when mode is 'ngram'", error=True)
        if mode != "embedding" and check.get("model") is not None:
            add(f"{where}.model", "only allowed when mode is 'embedding'", error=True)
        if mode == "exact" and check.get("match_threshold") is not None:
            add(f"{where}.match_threshold", "not used by mode 'exact' (an exact match is contaminated)", error=True)


def _metric_problems(raw: dict[str, Any], task_type: Any, source: str | None) -> list[ConfigProblem]:
    """Which ``evaluation_metrics`` entries fit the task type (predictions are labels/texts or scores)."""
    metrics = raw.get("evaluation_metrics")
    if not isinstance(metrics, list):
        return []
    kinds = [m.get("type", "hf") if isinstance(m, dict) else None for m in metrics]
    kinds = [k if isinstance(k, str) else None for k in kinds]
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
