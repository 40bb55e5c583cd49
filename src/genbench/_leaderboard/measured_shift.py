"""The measured shift on the leaderboard: the shift report a results file records, found and checked, and the
contamination flags derived from it.

A report is shown only when a file with the recorded SHA-256 is found and valid; a model is flagged on a task only
when it declares a training corpus (``--model-info``) that a shown report measured and flagged examples in, never
by hand. See docs/leaderboard.md#measured-shift-and-contamination-flags.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genbench._core.files import atomic_open
from genbench._leaderboard.clean_scores import CleanScore, clean_score
from genbench._leaderboard.collect import Leaderboard, ModelEntry, Run
from genbench.contamination._errors import ContaminationError
from genbench.contamination.shift._report import read_shift_report
from genbench.data._checksums import file_sha256
from genbench.display._measured_shift import MeasuredShift

REPORTS_FOLDER = "shift"
"""The site's folder of the reports it shows (copied, so that the links work wherever the site is)."""


@dataclass(frozen=True)
class ShownReport:
    """A results file's shift report as the leaderboard shows it: measured (``shift``, ``link``: the copy's path
    from the site's root) or not shown (``why_not``)."""

    task_id: str
    record: Mapping[str, Any]
    shift: MeasuredShift | None = None
    link: str | None = None
    why_not: str | None = None

    @property
    def summary(self) -> str:
        """The report's measured shift in one sentence (as the evaluation card states it:
        :meth:`MeasuredShift.sentence`), or why the report is not shown."""
        if self.shift is None:
            why = (self.why_not or "").rstrip(".")
            return f"Shift report {self.record['file']} (corpus {self.record['corpus']}) not shown: {why}."
        return self.shift.sentence()


@dataclass(frozen=True)
class ContaminationFlag:
    """A model trained on a corpus that a task's shift report measured and found examples of."""

    corpus: str
    found: int
    examples: int
    link: str
    clean: CleanScore | None = None
    """The model's clean score on the task (the setting flagged), shown beside the flag on the overview."""

    @property
    def text(self) -> str:
        """``trained on c4: 12 of 180 examples found``."""
        return f"trained on {self.corpus}: {self.found} of {self.examples} examples found"


def shift_document(report: ShownReport) -> dict[str, Any]:
    """A report as ``leaderboard.json`` records it: what the results record, and its numbers or why not shown."""
    shift = report.shift
    return {
        "recorded": dict(report.record),
        "shown": shift is not None,
        "link": report.link,
        "why_not": report.why_not,
        "corpus": shift.corpus if shift else report.record["corpus"],
        "tokens": shift.tokens if shift else None,
        "ngram": shift.ngram if shift else None,
        "hit_share": shift.hit_share if shift else None,
        "interval": list(shift.interval) if shift and shift.interval else None,
        "flagged": shift.flagged if shift else None,
        "examples": shift.examples if shift else None,
    }


class ShiftReports:
    """Finds, checks and copies into the site the shift reports results files record, each once.

    Args:
        site: The site's folder (reports shown are copied under ``site/shift/``).
        given: Reports given on the command line (``--shift-report``), used where their SHA-256 is recorded.
    """

    def __init__(self, site: Path, given: Iterable[str | Path] = ()) -> None:
        self._site = site
        self._given = [Path(p) for p in given]
        self._by_sha256 = {file_sha256(path): path for path in self._given if path.is_file()}
        self._shown: dict[tuple[str, str, Path], ShownReport] = {}

    @property
    def unused(self) -> list[Path]:
        """The reports given (``--shift-report``) that no results file of the board records (by SHA-256)."""
        recorded = {key[1] for key in self._shown}
        return [path for sha256, path in self._by_sha256.items() if sha256 not in recorded]

    def shown(self, task_id: str, record: Mapping[str, Any] | None, results_file: Path) -> ShownReport | None:
        """The report recorded by ``results_file`` (its ``shift_report``) for ``task_id``; None without one."""
        if not record:
            return None
        key = (task_id, record["sha256"], results_file.parent)
        if key not in self._shown:
            self._shown[key] = self._find(task_id, record, results_file)
        return self._shown[key]

    def _find(self, task_id: str, record: Mapping[str, Any], results_file: Path) -> ShownReport:
        sha256 = record["sha256"]
        path = self._by_sha256.get(sha256)
        if path is None:
            candidates = [results_file.parent / record["file"], *(p for p in self._given if p.name == record["file"])]
            found = [p for p in candidates if p.is_file()]
            if not found:
                return ShownReport(
                    task_id,
                    record,
                    why_not=f"not found next to {results_file.name}; give it with --shift-report",
                )
            if file_sha256(found[0]) != sha256:
                return ShownReport(
                    task_id,
                    record,
                    why_not=f"{found[0]} is not the report the results were scored with (its SHA-256 differs from "
                    f"{sha256[:12]}…, recorded in {results_file.name}); give that report with --shift-report",
                )
            path = found[0]
        try:
            report = read_shift_report(path)
        except ContaminationError as exc:
            return ShownReport(task_id, record, why_not=str(exc))
        measured = report["test_set"]["name"]
        if measured != task_id:
            return ShownReport(task_id, record, why_not=f"{path} measured {measured!r}, not {task_id!r}")
        return ShownReport(task_id, record, MeasuredShift.of(report), self._copy(path, report, sha256))

    def _copy(self, path: Path, report: Mapping[str, Any], sha256: str) -> str:
        """Copy the report and its examples file into the site; their path from the site's root."""
        folder = self._site / REPORTS_FOLDER / sha256[:16]
        folder.mkdir(parents=True, exist_ok=True)
        for source in (path, path.parent / report["examples_file"]):
            with atomic_open(folder / source.name, "wb", encoding=None) as handle:
                handle.write(source.read_bytes())
        return f"{REPORTS_FOLDER}/{sha256[:16]}/{path.name}"


def contamination_flag(report: ShownReport | None, corpora: frozenset[str]) -> ContaminationFlag | None:
    """The flag of a model trained on ``corpora`` where ``report`` was measured: only when the report is shown, its
    corpus is one of ``corpora`` and it flags at least one example.

    >>> shift = MeasuredShift("c4", 10**9, 13, 0.12, (0.08, 0.16), flagged=12, examples=180)
    >>> report = ShownReport("t", {"sha256": "0" * 64, "file": "t.shift.json", "corpus": "c4"}, shift, "shift/t.json")
    >>> contamination_flag(report, frozenset({"c4"})).text
    'trained on c4: 12 of 180 examples found'
    >>> contamination_flag(report, frozenset({"dolma"})) is None
    True
    """
    if report is None or report.shift is None or report.link is None:
        return None
    shift = report.shift
    if shift.corpus not in corpora or shift.flagged < 1:
        return None
    return ContaminationFlag(shift.corpus, shift.flagged, shift.examples, report.link)


def distinct(reports: Iterable[ShownReport | None]) -> list[ShownReport]:
    """The reports once each (by SHA-256), in order."""
    seen: dict[str, ShownReport] = {}
    for report in reports:
        if report is not None:
            seen.setdefault(report.record["sha256"], report)
    return list(seen.values())


@dataclass
class MeasuredShifts:
    """The leaderboard's shift reports and the training corpora its models declare (by model key)."""

    reports: ShiftReports
    corpora: Mapping[str, frozenset[str]]

    def of_run(self, task_id: str, run: Run, shots: int | None) -> ShownReport | None:
        """The report of a run's setting (None: its results record none)."""
        source = run.sources.get(shots)
        return None if source is None else self.reports.shown(task_id, run.shift_reports.get(shots), source)

    def flag(self, model: ModelEntry, task_id: str, run: Run, shots: int | None) -> ContaminationFlag | None:
        """A run's contamination flag on a setting: see :func:`contamination_flag`."""
        flag = contamination_flag(self.of_run(task_id, run, shots), self.corpora.get(model.key, frozenset()))
        if flag is None:
            return None
        evaluation = run.evaluations[shots]
        return ContaminationFlag(
            flag.corpus, flag.found, flag.examples, flag.link, clean_score(evaluation, run.clean_definition(shots))
        )

    def of_task(self, board: Leaderboard, task_id: str) -> list[ShownReport]:
        """Every report recorded by the task's results, once each."""
        return distinct(
            self.of_run(task_id, run, shots)
            for (_, t), cell in sorted(board.cells.items())
            if t == task_id
            for run in cell.runs.values()
            for shots in run.evaluations
        )

    def cell_flags(
        self, board: Leaderboard, shots_of: Mapping[str, int | None]
    ) -> dict[tuple[str, str], ContaminationFlag]:
        """The flag of each (model key, task id) on the overview: of the setting it ranks (``shots_of``), any seed."""
        flags = {}
        for (model_key, task_id), cell in board.cells.items():
            if task_id not in shots_of:
                continue
            for run in cell.runs.values():
                if shots_of[task_id] in run.evaluations:
                    flag = self.flag(board.models[model_key], task_id, run, shots_of[task_id])
                    if flag is not None:
                        flags[(model_key, task_id)] = flag
                        break
        return flags
