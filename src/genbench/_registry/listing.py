"""Listing the registry: one record per task read from its config alone, every broken task listed with its error.

A listing never imports a ``task.py`` nor ``datasets``, and one broken task never hides the others: a task whose
config (or directory) is broken is listed with ``error`` set, next to the good ones. Records are kept in the
registry metadata cache (:mod:`genbench._registry.metadata_cache`), so a listing whose task files did not change
evaluates no Jsonnet at all.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from genbench._core.errors import GenbenchConfigWarning, TaskDefinitionError, warning_record, warning_text
from genbench._registry import metadata_cache
from genbench._registry.directories import is_task_dict_dir, scan_task_dirs, subtask_dirs, subtask_order

if TYPE_CHECKING:
    from genbench.config._schema import TaskConfig, TaskDictConfig


def declared_splits(config: TaskConfig) -> list[str] | None:
    """The splits a task config declares, in train/validation/test order; None when a split file decides them.

    A ``manual`` source declares the split files it lists; an ``hf`` source declares ``test`` plus ``train`` and
    ``validation`` as ``has_train_set`` and ``has_validation_set`` say.

    >>> from genbench import load_config
    >>> declared_splits(load_config("arithmetic_length"))
    ['train', 'validation', 'test']
    """
    if config.split_file is not None:
        return None
    if config.data_source.type == "manual":
        return list(config.data_source.split_uris())
    flags = {"train": config.has_train_set, "validation": config.has_validation_set, "test": True}
    return [split for split, declared in flags.items() if declared]


def _ordered(splits: list[str]) -> list[str]:
    order = {"train": 0, "validation": 1, "test": 2}
    return sorted(splits, key=lambda split: order.get(split, len(order)))


def broken_record(task_id: str, task_dir: Path, error: str) -> dict[str, Any]:
    """The record of a task that cannot be read: its id, path and error, every other field empty."""
    return {
        "id": task_id,
        "name": task_id,
        "description": "",
        "type": None,
        "subtasks": [],
        "splits": None,
        "split_file": None,
        "keywords": [],
        "path": str(task_dir),
        "error": error,
        "warnings": [],
    }


def _load(task_dir: Path, evaluated: dict[Path, Any], *, as_task_dict: bool) -> TaskConfig | TaskDictConfig:
    """Validate a config evaluated in the batch, or load it alone (which reports an evaluation error)."""
    from genbench.config._documents import load_task_config, load_task_dict_config, task_config_from_dict

    path = task_dir / "config.jsonnet"
    if path not in evaluated:
        loader = load_task_dict_config if as_task_dict else load_task_config
        return loader(jsonnet_path=path)
    source = path.read_text(encoding="utf-8")
    if as_task_dict:
        from genbench.config._documents import check_task_dict_config

        config, problems = check_task_dict_config(evaluated[path], file=str(path), source=source)
        for problem in problems:  # as load_task_dict_config warns
            warnings.warn(GenbenchConfigWarning.from_problem(str(path), problem), stacklevel=2)
        return config
    return task_config_from_dict(evaluated[path], file=str(path), source=source)


def _config_files(task_dir: Path) -> list[Path]:
    return [task_dir / "config.jsonnet", *(sub / "config.jsonnet" for sub in subtask_dirs(task_dir))]


def build_record(task_id: str, task_dir: Path, evaluated: dict[Path, Any] | None = None) -> dict[str, Any]:
    """Read one task's configs (each config file evaluated once) into its listing record.

    Args:
        task_id: The task's id.
        task_dir: Its directory.
        evaluated: Config files already evaluated (see :mod:`genbench.config._jsonnet.batch`); others are loaded here.

    Raises:
        GenBenchError: the task is broken (the caller records the error).
    """
    evaluated = evaluated or {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        is_dict = is_task_dict_dir(task_dir, evaluated.get(task_dir / "config.jsonnet"))
        config = _load(task_dir, evaluated, as_task_dict=is_dict)
        if is_dict:
            subtasks = subtask_order(task_dir, getattr(config, "subtasks_order", None))
            if not subtasks:
                raise TaskDefinitionError(f"{task_dir} has no task.py and no subtask directories.")
            configs = [cast("TaskConfig", _load(task_dir / sid, evaluated, as_task_dict=False)) for sid in subtasks]
        else:
            subtasks = []
            configs = [cast("TaskConfig", config)]
    split_files = sorted({c.split_file for c in configs if c.split_file is not None})
    splits: list[str] = []
    for sub_config in configs:
        for split in declared_splits(sub_config) or []:
            if split not in splits:
                splits.append(split)
    return {
        "id": task_id,
        "name": config.name,
        "description": config.description or "",
        "type": "task_dict" if is_dict else cast("TaskConfig", config).task_type.value,
        "subtasks": subtasks,
        "splits": None if split_files and not splits else _ordered(splits),
        "split_file": split_files[0] if split_files else None,
        "keywords": list(config.keywords or []),
        "path": str(task_dir),
        "error": None,
        "warnings": list({warning_text(r): r for r in (warning_record(w.message) for w in caught)}.values()),
    }


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def task_records(*, strict: bool = False, use_cache: bool = True) -> list[dict[str, Any]]:
    """One JSON-ready record per registry task, sorted by id: what ``list-tasks --json`` prints.

    Each record has ``id``, ``name``, ``description``, ``type`` (the task type, ``"task_dict"``, or None for a
    broken task), ``subtasks`` (ids, in order), ``splits`` (declared split names, or None with a ``split_file``),
    ``split_file``, ``keywords``, ``path``, ``error`` (None, or ``"ErrorType: message"`` for a broken task) and
    ``warnings`` (the config's :class:`~genbench._core.errors.GenbenchConfigWarning` warnings, each once, as records
    ``{file, line, field, message, fix}``: see :meth:`~genbench._core.errors.GenbenchConfigWarning.as_record`; render
    one with :func:`~genbench._core.errors.warning_text`). A TaskDict's ``splits`` are the union of its subtasks'
    declared splits.

    Args:
        strict: Raise the first broken task's own error instead of listing it.
        use_cache: Read and update the registry metadata cache (see :mod:`genbench._registry.metadata_cache`).

    Raises:
        GenBenchError: ``strict`` and a task is broken.

    >>> records = task_records()
    >>> [r["type"] for r in records if r["id"] == "negation_consistency"]
    ['task_dict']
    """
    tasks, problems = scan_task_dirs()
    cache = metadata_cache.RegistryCache.load() if use_cache else None
    fingerprints = {task_id: metadata_cache.fingerprint(task_dir) for task_id, task_dir in tasks.items()}
    cached = {
        task_id: cache.get(task_dir, fingerprints[task_id]) if cache is not None else None
        for task_id, task_dir in tasks.items()
    }
    stale = [task_id for task_id, record in cached.items() if record is None or (strict and record["error"])]
    evaluated: dict[Path, Any] = {}
    if stale:
        # Every config to read, evaluated in one batch by the jsonnet worker; imported only here, so a warm listing
        # imports no validation code (genbench.config imports pydantic and the schema).
        from genbench.config._jsonnet import ConfigEvaluation

        evaluated = ConfigEvaluation([path for task_id in stale for path in _config_files(tasks[task_id])]).result()
    records: list[dict[str, Any]] = []
    for task_id, task_dir in tasks.items():
        fingerprint = fingerprints[task_id]
        record = cached[task_id]
        if task_id in stale:
            try:
                record = build_record(task_id, task_dir, evaluated)
            except Exception as exc:  # any failure is this task's: list it with its error, keep the others
                if strict:
                    raise
                record = broken_record(task_id, task_dir, _error_text(exc))
            if cache is not None:
                cache.put(task_dir, fingerprint, record)
        assert record is not None  # noqa: S101 - cached, or built above
        records.append(record)
    for name, (path, message) in problems.items():
        if strict:
            raise TaskDefinitionError(message)
        records.append(broken_record(name, path, f"TaskDefinitionError: {message}"))
    if cache is not None:
        cache.save()
    return sorted(records, key=lambda r: (r["id"], r["path"]))


@dataclass(frozen=True)
class TaskSummary:
    """What ``list_tasks`` knows about a task, read from its config alone.

    ``error`` is set (and ``task_type`` None) for a broken task; ``task_type`` is None for a TaskDict too.
    ``warnings`` are the config warnings' one-line texts (the listing records carry them as data).
    """

    id: str
    name: str
    description: str
    task_type: str | None
    path: Path
    subtasks: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)


def list_tasks(*, strict: bool = False) -> list[TaskSummary]:
    """Summaries of every registry task, sorted by id; broken tasks are listed with their ``error``.

    Args:
        strict: Raise the first broken task's own error instead of listing it.

    >>> ids = [t.id for t in list_tasks()]
    >>> "arithmetic_length" in ids, ids == sorted(ids)
    (True, True)
    """
    return [
        TaskSummary(
            id=r["id"],
            name=r["name"],
            description=r["description"],
            task_type=None if r["type"] in (None, "task_dict") else r["type"],
            path=Path(r["path"]),
            subtasks=list(r["subtasks"]),
            keywords=list(r["keywords"]),
            error=r["error"],
            warnings=[warning_text(w) for w in r["warnings"]],
        )
        for r in task_records(strict=strict)
    ]
