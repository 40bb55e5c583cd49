"""Temporaries of killed index builds are removed by the next build; those of a live build are not (issue 13,
item 13)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from genbench.contamination import TestSet, build_index, search
from genbench.contamination.embedded import EmbeddedBackend, leftovers
from genbench.contamination.embedded.leftovers import (
    build_lock,
    remove_stale_index_leftovers,
    remove_stale_table_leftovers,
)


@pytest.fixture
def chat_file(tmp_path: Path, write_jsonl, chat) -> Path:
    return write_jsonl(tmp_path / "chat.jsonl", [chat(f"what is {i} plus {i}?") for i in range(12)])


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and not p.name.endswith(".lock"))


def _run_child(code: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env, stdout=subprocess.PIPE, text=True
    )


def test_a_build_killed_while_merging_leaves_staging_that_the_next_build_removes(chat_file: Path, tmp_path: Path):
    index_dir = tmp_path / "idx"
    # A real kill: the child process dies by SIGKILL in the middle of the merge, so no cleanup code runs.
    child = _run_child(
        f"""
        import os, signal
        from genbench.contamination import build_index
        from genbench.contamination.embedded import store

        def killed(shards, staging):
            (staging / "half-written.npy").write_bytes(b"x")
            os.kill(os.getpid(), signal.SIGKILL)

        store._merge_shards = killed
        build_index({str(chat_file)!r}, index_dir={str(index_dir)!r}, shard_rows=5)
        """,
        tmp_path,
    )
    child.communicate(timeout=120)
    assert child.returncode == -signal.SIGKILL
    (name,) = [p.name[1 : -len(".partial")] for p in index_dir.iterdir() if p.name.endswith(".partial")]
    leftovers = [p for p in index_dir.iterdir() if p.name.endswith(".staging")]
    assert len(leftovers) == 1 and leftovers[0].name.startswith(f".{name}.")
    partial = index_dir / f".{name}.partial"
    (partial / ".shard-000003.abcd1234").mkdir()  # a shard the kill interrupted

    (manifest,) = build_index(str(chat_file), index_dir=index_dir, shard_rows=5)
    assert manifest["counts"]["units"] == 12
    assert _hidden(index_dir) == []  # staging and the partial build are gone
    assert (index_dir / name / "manifest.json").is_file()


def test_leftovers_of_another_index_are_removed_only_when_no_live_build_holds_its_lock(tmp_path: Path):
    index_dir = tmp_path / "idx"
    index_dir.mkdir()
    dead = index_dir / ".dead.text.k2x9a0b1.staging"
    live = index_dir / ".live.text.q7w8e9r0.staging"
    old = index_dir / ".dead.text.old"
    for folder in (dead, live, old):
        folder.mkdir()
        (folder / "data.npy").write_bytes(b"x")
    unrelated = index_dir / ".notes"  # not a build temporary
    unrelated.mkdir()
    # Another process is building "live.text" right now: it holds that index's lock.
    child = _run_child(
        f"""
        import time
        from pathlib import Path
        from genbench.contamination.embedded.leftovers import build_lock

        with build_lock(Path({str(index_dir)!r}), "live.text"):
            print("locked", flush=True)
            time.sleep(120)
        """,
        tmp_path,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "locked"
        removed = remove_stale_index_leftovers(index_dir, held="mine.text")
        assert sorted(p.name for p in removed) == sorted([old.name, dead.name])
        assert live.is_dir() and (live / "data.npy").exists() and unrelated.is_dir()
    finally:
        child.kill()
        child.wait(timeout=30)
    # Its process is gone (killed): the lock is free and the next run removes the leftover.
    assert [p.name for p in remove_stale_index_leftovers(index_dir, held="mine.text")] == [live.name]
    assert unrelated.is_dir()


def test_a_build_waits_for_a_concurrent_build_of_the_same_index(chat_file: Path, tmp_path: Path, monkeypatch):
    index_dir = tmp_path / "idx"
    name = EmbeddedBackend.index_name(str(chat_file))
    index_dir.mkdir()
    release = tmp_path / "release"
    # The other "build" holds the lock until this process says (in its waiting message) that it waits.
    child = _run_child(
        f"""
        import time
        from pathlib import Path
        from genbench.contamination.embedded.leftovers import build_lock

        with build_lock(Path({str(index_dir)!r}), {name!r}):
            print("locked", flush=True)
            deadline = time.monotonic() + 60
            while not Path({str(release)!r}).exists() and time.monotonic() < deadline:
                time.sleep(0.02)
        """,
        tmp_path,
    )
    waited: list[str] = []

    def waiting(message: str, *args: object) -> None:
        waited.append(message % args)
        release.touch()

    monkeypatch.setattr(leftovers.logger, "warning", waiting)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "locked"
        (manifest,) = build_index(str(chat_file), index_dir=index_dir)
        assert child.wait(timeout=30) == 0  # it released the lock and ended before this build could go on
        assert waited == [f"Waiting for another process that is building {name} in {index_dir}."]
        assert manifest["counts"]["units"] == 12
    finally:
        child.kill()
        child.wait(timeout=30)


def test_stale_ngram_table_temporaries_are_removed_when_the_table_is_built(chat_file: Path, tmp_path: Path):
    index_dir = tmp_path / "idx"
    (manifest,) = build_index(str(chat_file), index_dir=index_dir)
    tables = index_dir / manifest["name"] / "tables"
    tables.mkdir()
    stale = tables / ".ngram-2.zz9yy8xx.tmp"
    stale.mkdir()
    other_size = tables / ".ngram-3.zz9yy8xx.tmp"
    other_size.mkdir()
    report = search(str(chat_file), test_sets=[TestSet.from_texts("t", ["what is 1 plus"])], ngram_size=2,
                    index_dir=index_dir)  # fmt: skip
    assert report.results[0].instances[0].raw_score == 1.0
    assert not stale.exists() and other_size.exists()  # the size-3 table's lock was not taken: left alone
    with build_lock(tables, "ngram-3"):
        assert remove_stale_table_leftovers(tables, 3) == [other_size]
