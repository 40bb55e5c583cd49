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
from genbench.contamination._embedded import EmbeddedBackend, leftovers
from genbench.contamination._embedded.leftovers import (
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


def _holding_lock(folder: Path, name: str, cwd: Path) -> subprocess.Popen:
    """A process that holds the build lock of ``name`` in ``folder`` (as a live build does) until it is killed."""
    child = _run_child(
        f"""
        import time
        from pathlib import Path
        from genbench.contamination._embedded.leftovers import build_lock

        with build_lock(Path({str(folder)!r}), {name!r}):
            print("locked", flush=True)
            time.sleep(120)
        """,
        cwd,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "locked"
    return child


def test_a_build_killed_while_merging_leaves_staging_that_the_next_build_removes(chat_file: Path, tmp_path: Path):
    index_dir = tmp_path / "idx"
    # A real kill: the child process dies by SIGKILL in the middle of the merge, so no cleanup code runs.
    child = _run_child(
        f"""
        import os, signal
        from genbench.contamination import build_index
        from genbench.contamination._embedded import store

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
    child = _holding_lock(index_dir, "live.text", tmp_path)
    try:
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
        from genbench.contamination._embedded.leftovers import build_lock

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


def test_stale_ngram_table_temporaries_are_removed_unless_a_live_build_holds_their_lock(
    chat_file: Path, tmp_path: Path
):
    index_dir = tmp_path / "idx"
    (manifest,) = build_index(str(chat_file), index_dir=index_dir)
    tables = index_dir / manifest["name"] / "tables"
    tables.mkdir()
    stale = tables / ".ngram-2.zz9yy8xx.tmp"
    stale.mkdir()
    live = tables / ".ngram-3.zz9yy8xx.tmp"
    live.mkdir()
    child = _holding_lock(tables, "ngram-3", tmp_path)  # another process is building the size-3 table right now
    try:
        report = search(str(chat_file), test_sets=[TestSet.from_texts("t", ["what is 1 plus"])], ngram_size=2,
                        index_dir=index_dir)  # fmt: skip
        assert report.results[0].instances[0].raw_score == 1.0
        assert not stale.exists() and live.is_dir()  # the live build's temporary is left alone
    finally:
        child.kill()
        child.wait(timeout=30)
    with build_lock(tables, "ngram-3"):
        assert remove_stale_table_leftovers(tables, 3) == [live]


KILL_TABLE_BUILD = """
import os, signal
from genbench.contamination import TestSet, search
from genbench.contamination._embedded import ngram_table

def killed(staging, *args):
    (staging / "run-0.npy").write_bytes(b"x")
    os.kill(os.getpid(), signal.SIGKILL)

ngram_table._sorted_runs = killed
for _ in range(2):  # the second search of a size builds its table
    search({data!r}, test_sets=[TestSet.from_texts("t", ["what is 1 plus"])], ngram_size=3, index_dir={index_dir!r})
"""


@pytest.mark.parametrize("then", ["open another index", "build another index"])
def test_a_killed_table_build_is_swept_when_any_index_of_the_folder_is_opened_or_built(
    then: str, chat_file: Path, tmp_path: Path, write_jsonl, chat
):
    """The gap: a table build killed (SIGKILL) left ``tables/.ngram-3.XXXXXXXX.tmp/`` until that very table was
    built again; now the next open or build of any index in the folder removes it."""
    index_dir = tmp_path / "idx"
    other_file = write_jsonl(tmp_path / "other.jsonl", [chat(f"how far is {i} from {i}?") for i in range(6)])
    (manifest,) = build_index(str(chat_file), index_dir=index_dir)
    if then == "open another index":
        build_index(str(other_file), index_dir=index_dir)
    child = _run_child(KILL_TABLE_BUILD.format(data=str(chat_file), index_dir=str(index_dir)), tmp_path)
    child.communicate(timeout=120)
    assert child.returncode == -signal.SIGKILL
    tables = index_dir / manifest["name"] / "tables"
    (leftover,) = [p for p in tables.iterdir() if p.name.startswith(".ngram-3.") and p.name.endswith(".tmp")]
    assert (leftover / "run-0.npy").exists()

    if then == "open another index":
        report = search(str(other_file), test_sets=[TestSet.from_texts("t", ["how far is 2 from"])], ngram_size=2,
                        index_dir=index_dir)  # fmt: skip
        assert report.results[0].instances[0].raw_score == 1.0
    else:
        build_index(str(other_file), index_dir=index_dir)
    assert not leftover.exists()
    assert _hidden(tables) == []


KILL_BETWEEN_RENAMES = """
import os, signal
from genbench.contamination import build_index
from genbench.contamination._embedded import store

real_replace = os.replace

def replace(source, target):
    real_replace(source, target)
    if str(target).endswith(".old"):  # the index moved aside, the new one not yet in place
        os.kill(os.getpid(), signal.SIGKILL)

store.os.replace = replace
build_index({data!r}, index_dir={index_dir!r}, rebuild=True)
"""


def test_a_rebuild_killed_between_its_renames_leaves_the_old_index_which_the_next_open_puts_back(
    chat_file: Path, tmp_path: Path
):
    index_dir = tmp_path / "idx"
    (manifest,) = build_index(str(chat_file), index_dir=index_dir)
    final = index_dir / manifest["name"]
    inode = final.stat().st_ino
    child = _run_child(KILL_BETWEEN_RENAMES.format(data=str(chat_file), index_dir=str(index_dir)), tmp_path)
    child.communicate(timeout=120)
    assert child.returncode == -signal.SIGKILL
    assert not final.exists() and (index_dir / f".{final.name}.old" / "manifest.json").is_file()

    report = search(str(chat_file), test_sets=[TestSet.from_texts("t", ["what is 3 plus 3?"])], index_dir=index_dir)
    assert report.results[0].instances[0].raw_score == 1.0
    assert final.stat().st_ino == inode  # the very index that was there before the killed rebuild
    assert _hidden(index_dir) == [f".{final.name}.partial"]
    # The killed rebuild's completed shards (kept for a resumed build) go when a build finds the index intact.
    (again,) = build_index(str(chat_file), index_dir=index_dir)
    assert again["created"] == manifest["created"] and final.stat().st_ino == inode
    assert _hidden(index_dir) == []
