"""A damaged results file where a run writes its own is replaced with a warning saying what was wrong with it, never
a traceback (it was read with plain ``json.loads``: a file nested 100,000 deep ended in ``RecursionError``)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from genbench.runs._errors import ResultsFileError
from genbench.runs._execute import TaskRun, run
from genbench.runs._results import read_results, save_results
from genbench.runs._scoring import BootstrapSettings

PREDICTOR = """
def first_option(requests, task, **options):
    return [0.0 if c.strip() == requests[0][1].strip() else -1.0 for _, c in requests]
"""


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> TaskRun:
    folder = tmp_path_factory.mktemp("first")
    (folder / "predictor.py").write_text(PREDICTOR)
    spec = f"python:{folder / 'predictor.py'}:first_option"
    bootstrap = BootstrapSettings(resamples=20, statistic_resamples=5)
    (task_run,) = run(spec, "category_membership", output_dir=folder / "out", limit=3, bootstrap=bootstrap)
    return task_run


DAMAGE = {
    "cut short": (lambda path: path.write_text('{"schema_version": 1, "task": {"id": "categ'), "not valid JSON"),
    "NaN": (lambda path: path.write_text('{"schema_version": NaN}'), "NaN is not a JSON number"),
    "nested 100,000 deep": (lambda path: path.write_text("[" * 100_000 + "]" * 100_000), "nested deeper than"),
    "invalid UTF-8": (lambda path: path.write_bytes(b'{"task": "\xff\xfe"}'), "not UTF-8 text"),
    "not an object": (lambda path: path.write_text("[1, 2]"), "its JSON is not a results object"),
    "a FIFO": (lambda path: os.mkfifo(path), "is not a regular file"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_results_file_is_replaced_with_a_warning_naming_the_damage(
    damage: str, first_run: TaskRun, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    path = out / first_run.results_path.relative_to(first_run.results_path.parents[2])
    path.parent.mkdir(parents=True)
    damage_file, reason = DAMAGE[damage]
    damage_file(path)
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.INFO)  # genbench's loggers do not propagate, so no caplog
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("genbench.runs._results")
    logger.addHandler(handler)
    try:
        saved = save_results(dict(first_run.document), out, None)
    finally:
        logger.removeHandler(handler)
    assert saved.path == path
    assert saved.replaced is not None and saved.replaced.startswith(
        "replaced a damaged results file with results of category_membership by"
    )
    assert reason in saved.replaced and str(path) in saved.replaced
    assert [(r.levelno, r.getMessage()) for r in records] == [
        (logging.WARNING, saved.replaced[:1].upper() + saved.replaced[1:])
    ]
    document, _ = read_results(path)  # the replacement is whole
    assert document["run_identity"] == first_run.document["run_identity"]


def test_a_folder_where_the_results_file_goes_is_an_error_naming_it(first_run: TaskRun, tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = out / first_run.results_path.relative_to(first_run.results_path.parents[2])
    path.mkdir(parents=True)
    with pytest.raises(ResultsFileError, match=r"is a folder, where the results file of this run goes: move it away"):
        save_results(dict(first_run.document), out, None)
    assert path.is_dir()
