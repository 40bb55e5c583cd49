"""Per-sample logs for the ranking: each read once, hashed and parsed in the same pass.

A log whose SHA-256 is not the ``samples_sha256`` of its results file is from another run and never used
(:func:`genbench.runs._results.check_samples_digest` raises). Only what the ranking uses is checked on each line (an
object with a ``metrics`` object), not the whole sample schema: a log whose digest matches is the one genbench
validated when it wrote it. See docs/leaderboard.md.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genbench._core.json_files import MAX_LINE_BYTES, open_regular
from genbench._core.metric_values import finite_number
from genbench.runs._errors import ResultsFileError
from genbench.runs._results import check_samples_digest, rewrite_hint


@dataclass(frozen=True, eq=False)
class SampleLog:
    """A per-sample log and the results file that names it (whose ``samples_sha256`` it must match)."""

    path: Path
    results_file: Path
    document: Mapping[str, Any]

    @property
    def tied(self) -> bool:
        """Whether the results file records the log's digest (files written before that do not)."""
        return self.document.get("samples_sha256") is not None

    @classmethod
    def of(cls, document: Mapping[str, Any], results_file: Path) -> SampleLog | None:
        """The log a results document names (next to the file), or None when it names none."""
        name = document.get("samples_file")
        return cls(results_file.parent / Path(name).name, results_file, document) if name else None


Rows = list[tuple[Any, Any, dict[str, Any]]]
"""``(shots, _genbench_idx, metrics)`` per line."""


class SampleLogs:
    """Per-sample logs, each read once: ``(shots, example index, metrics)`` per line, kept for every later
    question."""

    def __init__(self) -> None:
        self._rows: dict[Path, Rows] = {}
        self._checked: set[Path] = set()
        self._columns: dict[tuple[Path, Any, str], tuple[list[Any], list[float]] | None] = {}

    def rows(self, log: SampleLog) -> Rows:
        """The log's ``(shots, _genbench_idx, metrics)`` rows, read (hashed and parsed in one pass) the first time.

        Raises:
            ResultsFileError: the log is missing, not a regular file, not the one its results file records (both
                named, with the command that rewrites them), or (a log whose digest is not recorded) has a line
                that is not JSON or not a sample (file and line named).
        """
        if log.path not in self._rows:
            self._rows[log.path] = self._read(log, parse=True)
            self._checked.add(log.path)
        return self._rows[log.path]

    def check(self, log: SampleLog) -> None:
        """Check the log against its results file without keeping its rows (a log that is not used: a stale
        results file's). Raises as :meth:`rows`."""
        if log.path not in self._checked:
            self._read(log, parse=False)
            self._checked.add(log.path)

    def scores(self, log: SampleLog | None, shots: int | None, metric: str) -> list[float] | None:
        """The per-sample values of ``metric`` at ``shots`` in ``log``; None when there is no log or a value is
        missing."""
        column = self._column(log, shots, metric) if log is not None else None
        return list(column[1]) if column else None

    def scores_by_example(self, log: SampleLog | None, shots: int | None, metric: str) -> dict[int, float] | None:
        """The per-sample values of ``metric`` at ``shots`` keyed by the example's ``_genbench_idx`` (what pairs two
        models' answers to one example); None when there is no log, a value is missing, or an index is missing or
        repeated."""
        column = self._column(log, shots, metric) if log is not None else None
        if column is None:
            return None
        indices, values = column
        if any(not isinstance(i, int) or isinstance(i, bool) for i in indices) or len(set(indices)) < len(indices):
            return None
        return dict(zip(indices, values, strict=True))

    def _column(self, log: SampleLog, shots: int | None, metric: str) -> tuple[list[Any], list[float]] | None:
        """``(indices, values)`` of ``metric`` at ``shots``, computed once (the ranking and its rank intervals both
        ask); None when there is no row or a value is missing."""
        key = (log.path, shots, metric)
        if key not in self._columns:
            indices, values = [], []
            for row_shots, index, metrics in self.rows(log):
                if row_shots == shots:
                    indices.append(index)
                    values.append(finite_number(metrics.get(metric)))
            complete = bool(values) and all(v is not None for v in values)
            self._columns[key] = (indices, [v for v in values if v is not None]) if complete else None
        return self._columns[key]

    @staticmethod
    def _read(log: SampleLog, *, parse: bool) -> Rows:
        digest = hashlib.sha256()
        rows: Rows = []
        problem = None
        try:
            fd = open_regular(log.path, what="per-sample log", error=ResultsFileError)
        except FileNotFoundError:
            raise ResultsFileError(f"{log.path}: the per-sample log named by its results file is missing.") from None
        with os.fdopen(fd, "rb") as handle:
            line_number = 0
            while line := handle.readline(MAX_LINE_BYTES + 1):
                line_number += 1
                digest.update(line)
                if len(line) > MAX_LINE_BYTES and problem is None:
                    problem = f"{log.path}:{line_number}: a line longer than {MAX_LINE_BYTES} bytes."
                if not parse or problem is not None or not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except (ValueError, RecursionError) as exc:
                    problem = f"{log.path}:{line_number}: not valid JSON: {exc}"
                    continue
                if not isinstance(record, dict) or not isinstance(record.get("metrics"), dict):
                    problem = f"{log.path}:{line_number}: a sample must be an object with 'metrics'."
                    continue
                rows.append((record.get("shots"), record.get("_genbench_idx"), record["metrics"]))
        # The digest first: a log from another run is named as such, whatever its lines look like.
        check_samples_digest(log.document, log.results_file, digest.hexdigest(), None if problem else len(rows))
        if problem is not None:
            raise ResultsFileError(f"{problem} {rewrite_hint(log.document)}")
        return rows
