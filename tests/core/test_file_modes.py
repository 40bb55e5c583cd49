"""Every file genbench leaves for a user gets the mode a plain ``open(path, "w")`` gives (0666 less the umask), every
folder the mode of ``mkdir`` (0777 less the umask): results, per-sample logs, leaderboard pages, contamination reports,
decontaminated data, indexes and the data cache. Atomic writes go through ``tempfile`` (private, 0600 / 0700)."""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench._core.files import atomic_open, current_umask, follow_umask, write_json_atomic
from genbench.cli._contamination import contamination
from genbench.data._staging import staged_directory, staged_file

PREDICTOR = """
def shortest_option(requests, task, **options):
    if task == "loglikelihood":
        return [-float(len(c)) for _, c in requests]
    raise NotImplementedError
"""

UMASKS = [0o022, 0o077, 0o027]


@pytest.fixture(params=UMASKS, ids=oct)
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def assert_modes(root: Path, umask: int) -> list[Path]:
    """Every file and folder below ``root`` (``root`` included) has the umask's mode; returns the files."""
    files = []
    for folder, _dirs, names in os.walk(root):
        assert mode(Path(folder)) == 0o777 & ~umask, folder
        for name in names:
            path = Path(folder) / name
            assert mode(path) == 0o666 & ~umask, (oct(mode(path)), path)
            files.append(path)
    return files


def test_current_umask_reads_the_umask_without_changing_it(umask: int) -> None:
    assert current_umask() == umask
    assert current_umask() == umask  # unchanged by reading it
    assert os.umask(umask) == umask


def test_current_umask_without_proc_falls_back_to_setting_and_restoring_it(umask: int, monkeypatch) -> None:
    real_open = open

    def no_proc(file, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        if str(file) == "/proc/self/status":
            raise FileNotFoundError(file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", no_proc)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(current_umask())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [umask] * 8
    assert os.umask(umask) == umask


def test_follow_umask_on_a_path_and_a_descriptor(umask: int, tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir(mode=0o700)
    follow_umask(folder, directory=True)
    assert mode(folder) == 0o777 & ~umask
    path = folder / "f"
    path.write_text("x")
    os.chmod(path, 0o600)
    with open(path, "rb") as handle:
        follow_umask(handle.fileno())
    assert mode(path) == 0o666 & ~umask


def test_atomic_writes_and_the_data_cache_follow_the_umask(umask: int, tmp_path: Path) -> None:
    with atomic_open(tmp_path / "out" / "a.txt") as handle:
        handle.write("a")
    write_json_atomic(tmp_path / "out" / "b.json", {"b": 1})
    with staged_file(tmp_path / "out" / "cache" / "c.jsonl") as (out, _):
        out.write(b"{}\n")
    with staged_directory(tmp_path / "out" / "cache" / "saved") as stage:
        (stage / "part.arrow").write_bytes(b"...")
    files = assert_modes(tmp_path / "out", umask)
    assert len(files) == 4


def test_results_logs_and_leaderboard_pages_follow_the_umask(umask: int, tmp_path: Path) -> None:
    from genbench._leaderboard import build_leaderboard
    from genbench.runs import run

    (tmp_path / "predictor.py").write_text(PREDICTOR)
    run(
        f"python:{tmp_path / 'predictor.py'}:shortest_option",
        "category_membership",
        output_dir=tmp_path / "runs",
        shots=[0],
        limit=5,
    )
    files = assert_modes(tmp_path / "runs", umask)
    assert any(path.suffix == ".json" for path in files) and any(".jsonl" in path.name for path in files)
    build_leaderboard([tmp_path / "runs"], tmp_path / "site")
    pages = assert_modes(tmp_path / "site", umask)
    assert any(path.name == "index.html" for path in pages)


def test_contamination_index_reports_and_decontaminated_data_follow_the_umask(umask: int, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    question = "What is the boiling point of water in Celsius?"
    train = data / "train.jsonl"
    train.write_text(json.dumps({"messages": [{"role": "user", "content": question}]}) + "\n")
    evaluation = data / "eval.jsonl"
    evaluation.write_text("".join(json.dumps({"instruction": text}) + "\n" for text in (question, "Name a colour.")))
    runner = CliRunner()
    indexed = runner.invoke(
        contamination, ["index", "--dataset", str(train), "--index-dir", str(tmp_path / "idx"), "--no-progress"]
    )
    assert indexed.exit_code == 0, indexed.output
    for _ in range(2):  # the second search of a size builds its n-gram table (the first reads the token file)
        searched = runner.invoke(
            contamination,
            ["search", "--train-dataset-names", str(train), "--dataset", str(evaluation), "--split", "train",
             "--field", "instruction", "--ngram-size", "3", "--match-threshold", "0.4",
             "--output-dir", str(tmp_path / "out"), "--index-dir", str(tmp_path / "idx"), "--decontaminate",
             "--no-progress"],
        )  # fmt: skip
        assert searched.exit_code == 0, searched.output
    index_files = assert_modes(tmp_path / "idx", umask)
    assert any(path.name == "manifest.json" for path in index_files)
    assert any(path.parent.name.startswith("ngram") or "ngram" in str(path) for path in index_files)
    reports = {path.name for path in assert_modes(tmp_path / "out", umask)}
    assert {"contamination_report.json", "contamination_report.tsv", "report.html"} <= reports
    assert any(name.endswith("_decontaminated.jsonl") for name in reports)
