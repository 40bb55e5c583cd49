"""Reading config files: jsonnet evaluation, leniency, validation and warnings in one call.

Lenient at the door: :func:`load_task_config` and :func:`load_task_dict_config` accept what the original framework
accepted and emit one :class:`~genbench._core.errors.GenbenchConfigWarning` per thing a new submission should write
differently. Strict at the gate: :func:`collect_config_warnings` returns those warnings for a task directory so
that ``genbench-cli test-task`` and the review can fail on each.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any, TypeVar

from genbench._core.errors import ConfigProblem, GenbenchConfigWarning
from genbench.config._jsonnet import evaluate_jsonnet_source, read_config_text
from genbench.config._leniency import relax_task_config, relax_task_dict_config
from genbench.config._schema import TaskConfig, TaskDictConfig, register_document_loader
from genbench.config._validation import CheckedDocument, check_document, task_rules

CONFIG_FILE = "config.jsonnet"
ConfigT = TypeVar("ConfigT", TaskConfig, TaskDictConfig)


def _read(jsonnet_str: str | None, jsonnet_path: str | os.PathLike[str] | None) -> tuple[Any, str | None, str]:
    if (jsonnet_str is None) == (jsonnet_path is None):
        raise ValueError("Give exactly one of `jsonnet_str` and `jsonnet_path`.")
    if jsonnet_path is not None:
        path = Path(jsonnet_path)
        source = read_config_text(path)
        return evaluate_jsonnet_source(source, file=str(path), base=path.parent), str(path), source
    assert jsonnet_str is not None  # noqa: S101 - narrowed by the check above
    return evaluate_jsonnet_source(jsonnet_str, file=None, base=Path.cwd()), None, jsonnet_str


def _emit(file: str | None, problems: list[ConfigProblem]) -> None:
    for problem in problems:
        warnings.warn(GenbenchConfigWarning.from_problem(file, problem), stacklevel=5)


def check_task_config(
    raw: object, *, file: str | None = None, source: str | None = None
) -> tuple[TaskConfig, list[ConfigProblem]]:
    """Validate an evaluated task config and return it with its lenient problems (without warning).

    Raises:
        ConfigError: what makes the task unusable, every such problem at once.
    """
    checked = _check_task(raw, file, source)
    return checked.config_or_raise(file), checked.warnings


def check_task_dict_config(
    raw: object, *, file: str | None = None, source: str | None = None
) -> tuple[TaskDictConfig, list[ConfigProblem]]:
    """Validate an evaluated TaskDict config and return it with its lenient problems (without warning)."""
    checked = _check_task_dict(raw, file, source)
    return checked.config_or_raise(file), checked.warnings


def _check_task(raw: object, file: str | None, source: str | None) -> CheckedDocument[TaskConfig]:
    return check_document(TaskConfig, raw, file=file, source=source, relax=relax_task_config, rules=task_rules)


def _check_task_dict(raw: object, file: str | None, source: str | None) -> CheckedDocument[TaskDictConfig]:
    return check_document(TaskDictConfig, raw, file=file, source=source, relax=relax_task_dict_config)


def _warn_then_load(checked: CheckedDocument[ConfigT], file: str | None) -> ConfigT:
    """Emit the warnings (also those independent of any error, so an author sees everything at once), then return
    the config or raise the errors."""
    _emit(file, checked.warnings)
    return checked.config_or_raise(file)


def task_config_from_dict(raw: object, *, file: str | None = None, source: str | None = None) -> TaskConfig:
    """Validate an already-evaluated config document (a dict) into a :class:`TaskConfig`.

    Warns:
        GenbenchConfigWarning: for each accepted deviation (unknown keys, legacy spellings, broken cross-field
            rules), naming ``file:line``, the field and the fix.

    Raises:
        ConfigError: every problem that makes the task unusable, at once.
    """
    return _warn_then_load(_check_task(raw, file, source), file)


def load_task_config(
    *, jsonnet_str: str | None = None, jsonnet_path: str | os.PathLike[str] | None = None
) -> TaskConfig:
    """Evaluate and validate a task's ``config.jsonnet``.

    Warns:
        GenbenchConfigWarning: as :func:`task_config_from_dict`.

    Raises:
        ConfigError: an unreadable file, a jsonnet error (with line and column), or every problem that makes the
            task unusable (missing required fields, wrong types, no test data source, ...) at once.
    """
    raw, file, source = _read(jsonnet_str, jsonnet_path)
    return _warn_then_load(_check_task(raw, file, source), file)


def load_task_dict_config(
    *, jsonnet_str: str | None = None, jsonnet_path: str | os.PathLike[str] | None = None
) -> TaskDictConfig:
    """Evaluate and validate the ``config.jsonnet`` of a task with subtasks.

    Warns:
        GenbenchConfigWarning: for task fields and other unknown keys (kept in ``config.model_extra``).

    Raises:
        ConfigError: as :func:`load_task_config`.
    """
    raw, file, source = _read(jsonnet_str, jsonnet_path)
    return _warn_then_load(_check_task_dict(raw, file, source), file)


_TASK_ONLY_FIELDS = set(TaskConfig.model_fields) - set(TaskDictConfig.model_fields)


register_document_loader(load_task_config)


def is_task_dict_config(raw: object, task_dir: Path) -> bool:
    """Whether ``task_dir`` (whose config evaluated to ``raw``) is a task with subtasks.

    It is when it has subtask directories (folders with a ``config.jsonnet``) and either no ``task.py``, or a
    config that lists ``subtasks_order`` or has no task fields (a stray ``task.py`` does not make it a task).
    """
    has_subtasks = any(d.is_dir() and (d / CONFIG_FILE).is_file() for d in task_dir.iterdir())
    if not has_subtasks:
        return False
    if not (task_dir / "task.py").is_file():
        return True
    return isinstance(raw, dict) and ("subtasks_order" in raw or not _TASK_ONLY_FIELDS & set(raw))


def stray_task_py_warning(task_dir: Path, raw: object) -> GenbenchConfigWarning | None:
    """The warning for the ``task.py`` of a task with subtasks, which loading ignores; None without one.

    The one text of this warning: :func:`genbench._registry.directories.is_task_dict_dir` emits it when it loads such
    a task, :func:`collect_config_warnings` returns it for the gate.

    Args:
        task_dir: A directory already known to be a task with subtasks.
        raw: Its evaluated ``config.jsonnet``.
    """
    task_py = task_dir / "task.py"
    if not task_py.is_file():
        return None
    keys = set(raw) if isinstance(raw, dict) else set()
    if "subtasks_order" in keys:
        reason = "its config lists subtasks_order"
    elif not _TASK_ONLY_FIELDS & keys:
        reason = "its config has no task fields"
    else:
        reason = "it has subtask directories"
    problem = ConfigProblem(
        "",
        f"ignored: {task_dir.name} is a task with subtasks ({reason}). "
        "Remove this task.py, or move it into a subtask directory.",
    )
    return GenbenchConfigWarning.from_problem(str(task_py), problem)


def collect_config_warnings(
    path: str | Path, *, task_dict: bool | None = None, subtasks: bool = True
) -> list[GenbenchConfigWarning]:
    """Every :class:`~genbench._core.errors.GenbenchConfigWarning` that loading a task gives for its files, without
    warning and without importing any of its code.

    That is the config's own warnings and, for a task with subtasks, the loader's warning about a stray ``task.py``
    next to the subtask directories (:func:`stray_task_py_warning`).

    The gate (``genbench-cli test-task``, the review) fails one check per returned warning.

    Args:
        path: A task directory or its ``config.jsonnet``. For a task with subtasks, the subtasks' configs are
            checked too (in directory-name order), after the TaskDict's own.
        task_dict: Whether the directory is a task with subtasks; None: decide as :func:`is_task_dict_config`.
        subtasks: For a task with subtasks, also check the subtasks' configs (the gate checks each subtask on its
            own, so it leaves them out).

    Returns:
        The warnings, in file then line order; each has ``file``, ``field``, ``line`` and ``problem``
        (a :class:`~genbench._core.errors.ConfigProblem`) and renders as ``file:line: field: message``.

    Raises:
        ConfigError: a config that does not load at all (the gate reports it as a failed check of its own).
    """
    path = Path(path)
    config_path = path / CONFIG_FILE if path.is_dir() else path
    task_dir = config_path.parent
    file = str(config_path)
    source = read_config_text(config_path)
    raw = evaluate_jsonnet_source(source, file=file, base=task_dir)
    if task_dict is None:
        task_dict = is_task_dict_config(raw, task_dir)
    if not task_dict:
        _, problems = check_task_config(raw, file=file, source=source)
        return [GenbenchConfigWarning.from_problem(file, p) for p in problems]
    _, problems = check_task_dict_config(raw, file=file, source=source)
    found = [GenbenchConfigWarning.from_problem(file, p) for p in problems]
    stray = stray_task_py_warning(task_dir, raw)
    if stray is not None:
        found.append(stray)
    if subtasks:
        for sub_dir in sorted(d for d in task_dir.iterdir() if d.is_dir() and (d / CONFIG_FILE).is_file()):
            found += collect_config_warnings(sub_dir, task_dict=False)
    return found
