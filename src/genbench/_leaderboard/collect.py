"""Gather results files into one table of (model, task) -> evaluations per seed, leaving out stale versions.

A task's results are comparable only when they were made from one version of it (one task fingerprint). Files of
another version are *stale*; :data:`ON_STALE` names what to do with them (see :func:`collect`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from genbench._core.errors import GenBenchError
from genbench._core.json_files import is_regular_file, read_json_file
from genbench._leaderboard.sample_logs import SampleLog, SampleLogs
from genbench.contamination.shift._report import FORMAT as SHIFT_REPORT_FORMAT
from genbench.runs._results import read_results_document

logger = logging.getLogger(__name__)
OnStale = Literal["skip", "latest", "fail"]
ON_STALE: tuple[OnStale, ...] = ("skip", "latest", "fail")
"""``skip`` (the default): leave out the files not made from the task's current version (the config of this
installation's registry when it has the task, else the newest file's version); ``latest``: keep the newest
version among the files, whatever the registry says; ``fail``: stop when a task's files have several versions."""

TAXONOMY_AXES = ("motivation", "generalisation_type", "shift_type", "shift_source", "shift_locus")
"""The five axes of the GenBench taxonomy (Hupkes et al. 2023), as the results' ``task.taxonomy`` names them."""


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

    @property
    def is_baseline(self) -> bool:
        """A ``baseline:`` predictor of the demo: shown in the baselines block, never ranked."""
        return self.kind == "baseline" or self.spec.startswith("baseline:")


@dataclass
class TaskEntry:
    """One task, as the results files describe it (all its files share one fingerprint)."""

    task_id: str
    name: str
    task_type: str | None
    keywords: list[str]
    fingerprint: dict[str, Any]
    file_fingerprints: dict[Path, str] = field(default_factory=dict)
    taxonomy: dict[str, list[str]] = field(default_factory=dict)
    """Axis -> values (``task.taxonomy`` of the results; empty in files made before tasks declared it)."""
    declared_primary: str | None = None
    """The task's own headline metric (``task.primary_metric`` of the results), when it declares one."""
    subtasks: list[str] = field(default_factory=list)
    """A task with subtasks: the ids merged into its results (``task.subtasks``)."""
    metric_directions: dict[str, str] = field(default_factory=dict)
    """Result keys or patterns -> ``higher``/``lower``, as the task declares them (``task.metric_directions``)."""

    @property
    def slug(self) -> str:
        return self.task_id.replace(":", ".")

    @property
    def parent(self) -> str | None:
        """``task`` for a subtask ``task:subtask``, else None."""
        return self.task_id.split(":", 1)[0] if ":" in self.task_id else None


@dataclass
class Run:
    """One seed's results of a model on a task: an evaluation per number of shots and the file it came from."""

    seed: int
    evaluations: dict[int | None, dict[str, Any]] = field(default_factory=dict)
    sources: dict[int | None, Path] = field(default_factory=dict)
    sample_logs: dict[int | None, SampleLog | None] = field(default_factory=dict)
    """The per-sample log of each setting's file (None: the file has none)."""
    shift_reports: dict[int | None, dict[str, Any] | None] = field(default_factory=dict)
    """The shift report each setting's file records (``shift_report``: corpus, threshold), None where it has none;
    the setting's clean score (``clean`` of its evaluation) is measured against it."""
    identity: Any = None
    """The results' ``run_identity`` when they record one."""
    confidence: float = 0.95
    """The confidence of the files' intervals (``bootstrap.confidence``)."""

    def clean_definition(self, shots: int | None) -> dict[str, Any] | None:
        """What the setting's clean score was measured against (its corpus above all): the file's shift report, or
        for a TaskDict's merged result, whose subtasks each had theirs, the run identity's ``clean_subset``."""
        identity = self.identity if isinstance(self.identity, dict) else {}
        return self.shift_reports.get(shots) or identity.get("clean_subset")


@dataclass
class Cell:
    """A model's results on a task: one evaluation per number of shots (``None``: unprompted), the newest of any
    seed, and every seed's own (``runs``)."""

    evaluations: dict[int | None, dict[str, Any]]
    files: list[Path]
    created: str
    runs: dict[int, Run] = field(default_factory=dict)


@dataclass
class StaleFile:
    """A results file left out because it was made from another version of its task than the one shown."""

    path: Path
    task_id: str
    reason: str


@dataclass
class Leaderboard:
    """Every model, task and (model, task) cell found in the results files."""

    models: dict[str, ModelEntry]
    tasks: dict[str, TaskEntry]
    cells: dict[tuple[str, str], Cell]
    skipped: list[Path]
    """JSON files that are not results files."""
    stale: list[StaleFile] = field(default_factory=list)
    logs: SampleLogs = field(default_factory=SampleLogs)
    """The per-sample logs of the files shown, read (and checked against their results files) by :func:`collect`."""


def find_results_files(directories: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """The results files under ``directories`` (recursively), and the other ``.json`` files found (skipped).

    A results file is a JSON object with a ``schema_version`` (``genbench-cli demo``'s summary files next to the
    results directory are not, and are skipped). Every ``.json`` file is read with the strict reader
    (:func:`genbench._core.json_files.read_json_file`): a damaged one is an error, never silently left out of the
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
            # A shift report (which a results file may have beside it) is versioned too, but not a results file.
            is_results = (
                isinstance(document, dict)
                and "schema_version" in document
                and document.get("format") != SHIFT_REPORT_FORMAT
            )
            (results if is_results else skipped).append(path)
    return results, skipped


def collect(
    directories: Iterable[str | Path],
    *,
    on_stale: OnStale = "skip",
    current_config: Callable[[str], str | None] | None = None,
) -> Leaderboard:
    """Read and validate every results file under ``directories`` into a :class:`Leaderboard`.

    Files of one model, task and seed are merged by number of shots; for a setting present in both, the newer file
    (``created``) wins. Each seed of a model is kept (:attr:`Cell.runs`): seeds are one model, not several.

    Args:
        directories: Searched recursively for results files.
        on_stale: What to do with files made from another version of a task (another fingerprint): see
            :data:`ON_STALE`.
        current_config: ``task id -> config_sha256`` of the task as installed now (None when unknown); used by
            ``on_stale="skip"`` to tell the current version. Without it the newest file's version is current.

    Raises:
        LeaderboardError: no results file found, an unknown ``on_stale``, or (``on_stale="fail"``) one task's files
            have different fingerprints; the message names the files.
        ResultsFileError: a results file breaks the schema, or a per-sample log is not the one its results file
            records (read here once, hashed and parsed in the same pass; the rows are kept in :attr:`Leaderboard.logs`
            for the ranking).
    """
    if on_stale not in ON_STALE:
        raise LeaderboardError(f"on_stale must be one of {', '.join(ON_STALE)}, not {on_stale!r}.")
    directories = list(directories)
    paths, skipped = find_results_files(directories)
    if not paths:
        raise LeaderboardError(
            f"No results files under {', '.join(map(str, directories))}: write them with `genbench-cli run`, "
            "`genbench-cli evaluate --results-dir` or `genbench-cli demo --results-dir`."
        )
    documents = sorted(((read_results_document(p), p) for p in paths), key=lambda d: d[0]["created"])
    if on_stale == "fail":
        _check_fingerprints(documents)
        kept, stale = documents, list[StaleFile]()
    else:
        kept, stale = _current_versions(documents, current_config if on_stale == "skip" else None)
    board = Leaderboard(models={}, tasks={}, cells={}, skipped=skipped, stale=stale)
    _read_logs(board.logs, documents, {s.path for s in stale})
    _warn_of_differing_copies(kept)
    for document, path in kept:
        task = _task_entry(board, document, path)
        model = _model_entry(board, document)
        cell = board.cells.setdefault((model.key, task.task_id), Cell(evaluations={}, files=[], created=""))
        run = cell.runs.setdefault(document["seed"], Run(seed=document["seed"]))
        run.identity = document.get("run_identity", run.identity)
        run.confidence = document["bootstrap"]["confidence"]
        for evaluation in document["evaluations"]:
            cell.evaluations[evaluation["shots"]] = evaluation
            run.evaluations[evaluation["shots"]] = evaluation
            run.sources[evaluation["shots"]] = path
            run.sample_logs[evaluation["shots"]] = SampleLog.of(document, path)
            run.shift_reports[evaluation["shots"]] = document.get("shift_report")
        cell.files.append(path)
        cell.created = document["created"]
    label_models(board.models.values())
    return board


def _warn_of_differing_copies(documents: list[tuple[dict[str, Any], Path]]) -> None:
    """Warn, naming both files, where two results files of one run (one ``run_identity``) hold different metrics for
    the same setting: the newer is shown, and nothing else would say that the other was left out."""
    first: dict[tuple[str, Any], tuple[Path, Any]] = {}
    for document, path in documents:  # oldest first
        identity = document.get("run_identity")
        key = identity.get("key") if isinstance(identity, dict) else None
        if not isinstance(key, str):
            continue
        for evaluation in document["evaluations"]:
            seen = first.setdefault((key, evaluation["shots"]), (path, evaluation.get("metrics")))
            if seen[0] != path and seen[1] != evaluation.get("metrics"):
                setting = "unprompted" if evaluation["shots"] is None else f"{evaluation['shots']}-shot"
                logger.warning(
                    "%s and %s are results of the same run (run identity %s, %s) with different metrics; the "
                    "leaderboard shows the newer, %s. Remove the file that is wrong, or run it again.",
                    seen[0], path, key, setting, path,
                )  # fmt: skip


def _read_logs(logs: SampleLogs, documents: list[tuple[dict[str, Any], Path]], stale: set[Path]) -> None:
    """Read every log tied to its results file (``samples_sha256``), hashing and parsing it in one pass: a log of
    another run is an error before anything is ranked, as a damaged results file is. A stale file's log is only
    checked (hashed), not kept. Logs of files written before logs were tied to results are read when first used."""
    for document, path in documents:
        log = SampleLog.of(document, path)
        if log is None or not log.tied:
            continue
        if path in stale:
            logs.check(log)
        else:
            logs.rows(log)


def _current_versions(
    documents: list[tuple[dict[str, Any], Path]], current_config: Callable[[str], str | None] | None
) -> tuple[list[tuple[dict[str, Any], Path]], list[StaleFile]]:
    """The documents of each task's current version (``documents`` are sorted oldest first), and the stale rest."""
    by_task: dict[str, list[tuple[dict[str, Any], Path]]] = {}
    for document, path in documents:
        by_task.setdefault(document["task"]["id"], []).append((document, path))
    stale: dict[Path, StaleFile] = {}
    for task_id, files in by_task.items():
        candidates = files
        # A task with subtasks fingerprints its subtasks' versions, not one config: its newest version is current.
        merged = any(d["task"].get("subtasks") for d, _ in files)
        config = current_config(task_id) if current_config and not merged else None
        if config is not None:
            candidates = [(d, p) for d, p in files if d["task"]["fingerprint"]["config_sha256"] == config]
            for document, path in files:
                if (document, path) not in candidates:
                    stale[path] = StaleFile(
                        path, task_id, "made from another config of the task than the installed one (edited since)"
                    )
        if not candidates:
            continue
        newest = candidates[-1][0]["task"]["fingerprint"]["sha256"]
        for document, path in candidates:
            if document["task"]["fingerprint"]["sha256"] != newest:
                stale[path] = StaleFile(
                    path,
                    task_id,
                    f"made from an older version of the task (fingerprint "
                    f"{document['task']['fingerprint']['sha256'][:12]}, newest {newest[:12]})",
                )
    return [(d, p) for d, p in documents if p not in stale], sorted(stale.values(), key=lambda s: str(s.path))


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
    # Newer files (documents come oldest first) may describe the task more fully: their description wins.
    entry.taxonomy = taxonomy_of(task.get("taxonomy")) or entry.taxonomy
    entry.declared_primary = task.get("primary_metric") or entry.declared_primary
    entry.subtasks = list(task.get("subtasks") or entry.subtasks)
    entry.metric_directions = dict(task.get("metric_directions") or entry.metric_directions)
    entry.file_fingerprints[path] = task["fingerprint"]["sha256"]
    return entry


def taxonomy_of(value: Any) -> dict[str, list[str]]:
    """A results file's ``task.taxonomy`` as axis -> list of values (a single string becomes a list; unknown axes
    and empty values are dropped).

    >>> taxonomy_of({"shift_locus": "train-test", "generalisation_type": ["compositional"], "colour": ["red"]})
    {'generalisation_type': ['compositional'], 'shift_locus': ['train-test']}
    """
    if not isinstance(value, dict):
        return {}
    axes = {}
    for axis in TAXONOMY_AXES:
        values = value.get(axis)
        values = [values] if isinstance(values, str) else values
        if isinstance(values, list) and (strings := [str(v) for v in values if v not in (None, "")]):
            axes[axis] = strings
    return axes


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


def _check_fingerprints(documents: list[tuple[dict[str, Any], Path]]) -> None:
    by_task: dict[str, dict[str, list[Path]]] = {}
    for document, path in documents:
        fingerprint = document["task"]["fingerprint"]["sha256"]
        by_task.setdefault(document["task"]["id"], {}).setdefault(fingerprint, []).append(path)
    problems = []
    for task_id, by_fingerprint in sorted(by_task.items()):
        if len(by_fingerprint) > 1:
            groups = "\n".join(
                f"    {sha[:12]}: " + ", ".join(str(p) for p in sorted(files)) for sha, files in by_fingerprint.items()
            )
            problems.append(f"  task {task_id!r} has {len(by_fingerprint)} fingerprints:\n{groups}")
    if problems:
        raise LeaderboardError(
            "Results made from different versions of the same task cannot share a leaderboard (their task "
            "fingerprints differ):\n" + "\n".join(problems) + "\nRerun the older results, build one leaderboard "
            "per version from separate directories, or leave the stale files out with --on-stale skip or latest."
        )
