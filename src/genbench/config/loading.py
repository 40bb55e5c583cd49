"""Reading config files: jsonnet evaluation, legacy upgrades and validation in one call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from genbench.config.jsonnet import evaluate_jsonnet
from genbench.config.schema import TaskConfig, TaskDictConfig
from genbench.config.validation import task_consistency_problems, upgrade_legacy_task_config, validate_model


def _read(jsonnet_str: str | None, jsonnet_path: Any) -> tuple[Any, str | None, str]:
    if (jsonnet_str is None) == (jsonnet_path is None):
        raise ValueError("Give exactly one of `jsonnet_str` and `jsonnet_path`.")
    if jsonnet_path is not None:
        path = Path(jsonnet_path)
        raw = evaluate_jsonnet(path=path)
        return raw, str(path), path.read_text(encoding="utf-8")
    assert jsonnet_str is not None  # noqa: S101 - narrowed by the check above
    return evaluate_jsonnet(text=jsonnet_str), None, jsonnet_str


def task_config_from_dict(raw: Any, *, file: str | None = None, source: str | None = None) -> TaskConfig:
    """Validate an already-evaluated config document (a dict) into a :class:`TaskConfig`."""
    raw = upgrade_legacy_task_config(raw, file)
    return validate_model(TaskConfig, raw, file=file, source=source, extra=task_consistency_problems(raw, source))


def load_task_config(*, jsonnet_str: str | None = None, jsonnet_path: Any = None) -> TaskConfig:
    """Evaluate and validate a task's ``config.jsonnet``.

    Raises:
        ConfigError: syntax errors (with line and column) or every schema and consistency problem at once.
    """
    raw, file, source = _read(jsonnet_str, jsonnet_path)
    return task_config_from_dict(raw, file=file, source=source)


def load_task_dict_config(*, jsonnet_str: str | None = None, jsonnet_path: Any = None) -> TaskDictConfig:
    """Evaluate and validate the ``config.jsonnet`` of a task with subtasks."""
    raw, file, source = _read(jsonnet_str, jsonnet_path)
    return validate_model(TaskDictConfig, raw, file=file, source=source, extra=[])
