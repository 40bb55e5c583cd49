"""Gather results files into one table of (model, task) -> evaluations, refusing incomparable task versions."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genbench.core.errors import GenBenchError
from genbench.core.json_files import is_regular_file, read_json_file
from genbench.runs.results import read_results


class LeaderboardError(GenBenchError, ValueError):
    """Results that cannot be put on one leaderboard (no results files, mixed versions of a task)."""


@dataclass
class ModelEntry:
    """One model, as the results files name it (spec, arguments and revision)."""

    key: str
    spec: str
    kind: str
    args: dict[str, str]
    revision: str | None
    description: str | None
    label: str = ""
    """The model's name on the pages, unique on its leaderboard (:func:`label_models`); its spec until then."""

    def __post_init__(self) -> None:
        self.label = self.label or self.spec

    @property
    def slug(self) -> str:
        """A file name for the model's page: its spec, made safe, and a short hash of the whole entry."""
        readable = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.spec).strip("_.")[:60] or "model"
        return f"{readable}-{hashlib.sha256(self.key.encode()).hexdigest()[:8]}"


@dataclass
class TaskEntry:
    """One task, as the results files describe it (all its files share one fingerprint)."""

    task_id: str
    name: str
    task_type: str | None
    keywords: list[str]
    fingerprint: dict[str, Any]
    file_fingerprints: dict[Path, str] = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return self.task_id.replace(":", ".")


@dataclass
class Cell:
    """A model's results on a task: one evaluation per number of shots (``None``: unprompted)."""

    evaluations: dict[int | None, dict[str, Any]]
    files: list[Path]
    created: str


@dataclass
class Leaderboard:
    """Every model, task and (model, task) cell found in the results files."""

    models: dict[str, ModelEntry]
    tasks: dict[str, TaskEntry]
    cells: dict[tuple[str, str], Cell]
    skipped: list[Path]


def find_results_files(directories: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """The results files under ``directories`` (recursively), and the other ``.json`` files found (skipped).

    A results file is a JSON object with a ``schema_version`` (``genbench-cli demo``'s summary files next to the
    results directory are not, and are skipped). Every ``.json`` file is read with the strict reader
    (:func:`genbench.core.json_files.read_json_file`): a damaged one is an error, never silently left out of the
    leaderboard, and a FIFO, socket or device named ``*.json`` is refused without being opened.

    Raises:
        LeaderboardError: a directory does not exist, or a ``.json`` file is damaged (invalid or non-strict JSON,
            nested too deep, too large) or not a regular file; the message names the file.
    """
    results: list[Path] = []
    skipped: list[Path] = []
    for directory in directories:
        root = Path(directory)
        if not root.is_dir():
            raise LeaderboardError(f"{root}: no such results directory.")
        for path in sorted(root.rglob("*.json")):
            if path.is_dir():
                continue
            if not is_regular_file(path):
                raise LeaderboardError(
                    f"{path}: not a regular file (a FIFO, socket, device or broken link named *.json); it is not "
                    "read. Remove it or move it out of the results directory."
                )
            document = read_json_file(
                path,
                what="results file",
                error=LeaderboardError,
                hint="Write it again with the command that made it, or move it out of the results directory.",
            )
            (results if isinstance(document, dict) and "schema_version" in document else skipped).append(path)
    return results, skipped


def collect(directories: Iterable[str | Path]) -> Leaderboard:
    """Read and validate every results file under ``directories`` into a :class:`Leaderboard`.

    Two files of one model and task are merged by number of shots; for a setting present in both, the newer
    file (``created``) wins.

    Raises:
        LeaderboardError: no results file found, or one task's files have different fingerprints (they were made
            from different versions of the task: their numbers are not comparable); the message names the files.
        ResultsFileError: a results file breaks the schema.
    """
    directories = list(directories)
    paths, skipped = find_results_files(directories)
    if not paths:
        raise LeaderboardError(
            f"No results files under {', '.join(map(str, directories))}: write them with `genbench-cli run`, "
            "`genbench-cli evaluate --results-dir` or `genbench-cli demo --results-dir`."
        )
    board = Leaderboard(models={}, tasks={}, cells={}, skipped=skipped)
    documents = sorted(((read_results(p, with_samples=False)[0], p) for p in paths), key=lambda d: d[0]["created"])
    for document, path in documents:
        task = _task_entry(board, document, path)
        model = _model_entry(board, document)
        cell = board.cells.setdefault((model.key, task.task_id), Cell(evaluations={}, files=[], created=""))
        for evaluation in document["evaluations"]:
            cell.evaluations[evaluation["shots"]] = evaluation
        cell.files.append(path)
        cell.created = document["created"]
    _check_fingerprints(board)
    label_models(board.models.values())
    return board


def label_models(models: Iterable[ModelEntry]) -> None:
    """Give every model a label unique among ``models``: its spec, and where other models share the spec, what tells
    them apart (the revision, the arguments whose values differ: ``hf:gpt2 (revision abc123, temperature=0.7)``).

    Two results of one spec with other arguments or another revision are different rows, so they must not look the
    same; a model alone with its spec keeps the spec as its label. Should two labels still be equal (a value with
    ``, `` in it can mimic another), each of those gets a short hash of its whole entry.

    >>> a = ModelEntry("k1", "hf:gpt2", "hf", {"temperature": "0"}, "abc", None)
    >>> b = ModelEntry("k2", "hf:gpt2", "hf", {"temperature": "0.7"}, "abc", None)
    >>> c = ModelEntry("k3", "hf:gpt2", "hf", {}, "def", None)
    >>> label_models([a, b, c]); [m.label for m in (a, b, c)]
    ['hf:gpt2 (revision abc, temperature=0)', 'hf:gpt2 (revision abc, temperature=0.7)', 'hf:gpt2 (revision def, \
temperature unset)']
    """
    models = list(models)
    by_spec: dict[str, list[ModelEntry]] = {}
    for model in models:
        by_spec.setdefault(model.spec, []).append(model)
    for spec, group in by_spec.items():
        if len(group) == 1:
            group[0].label = spec
            continue
        differing_revision = len({m.revision for m in group}) > 1
        keys = sorted({key for m in group for key in m.args})
        differing = [key for key in keys if len({m.args.get(key) for m in group}) > 1]
        for model in group:
            parts = [f"revision {model.revision or 'unknown'}"] if differing_revision else []
            parts += [f"{k}={model.args[k]}" if k in model.args else f"{k} unset" for k in differing]
            model.label = f"{spec} ({', '.join(parts)})"
    by_label: dict[str, list[ModelEntry]] = {}
    for model in models:
        by_label.setdefault(model.label, []).append(model)
    for group in by_label.values():
        if len(group) > 1:
            for model in group:
                model.label += f" #{hashlib.sha256(model.key.encode()).hexdigest()[:8]}"


def _task_entry(board: Leaderboard, document: dict[str, Any], path: Path) -> TaskEntry:
    task = document["task"]
    entry = board.tasks.get(task["id"])
    if entry is None:
        entry = board.tasks[task["id"]] = TaskEntry(
            task_id=task["id"],
            name=task["name"],
            task_type=task["task_type"],
            keywords=list(task.get("keywords", [])),
            fingerprint=task["fingerprint"],
        )
    entry.file_fingerprints[path] = task["fingerprint"]["sha256"]
    return entry


def _model_entry(board: Leaderboard, document: dict[str, Any]) -> ModelEntry:
    model = document["model"]
    key = json.dumps(
        {"spec": model["spec"], "args": model.get("args", {}), "revision": model["revision"]}, sort_keys=True
    )
    if key not in board.models:
        board.models[key] = ModelEntry(
            key=key,
            spec=model["spec"],
            kind=model["kind"],
            args=dict(model.get("args", {})),
            revision=model["revision"],
            description=model.get("description"),
        )
    return board.models[key]


def _check_fingerprints(board: Leaderboard) -> None:
    problems = []
    for task in board.tasks.values():
        by_fingerprint: dict[str, list[Path]] = {}
        for path, fingerprint in sorted(task.file_fingerprints.items()):
            by_fingerprint.setdefault(fingerprint, []).append(path)
        if len(by_fingerprint) > 1:
            groups = "\n".join(
                f"    {sha[:12]}: " + ", ".join(str(p) for p in files) for sha, files in by_fingerprint.items()
            )
            problems.append(f"  task {task.task_id!r} has {len(by_fingerprint)} fingerprints:\n{groups}")
    if problems:
        raise LeaderboardError(
            "Results made from different versions of the same task cannot share a leaderboard (their task "
            "fingerprints differ):\n" + "\n".join(problems) + "\nRerun the older results, or build one leaderboard "
            "per version from separate directories."
        )
