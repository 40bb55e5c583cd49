"""Damaged contamination indexes: every file of an embedded index cut short, flipped, extended or deleted.

One small index (with its n-gram table) is built once; each case copies it, damages one of its files and searches
it (n-gram match with a threshold, so that the matched training rows, which decontamination removes, are compared
too). The property: a :class:`~genbench._core.errors.GenBenchError` (a damaged index names the file and the command
that rebuilds it), or exactly the answer of the undamaged index; never another answer, never a raw exception.

Two ways of opening are fuzzed: the default (sizes always, checksums of files up to ``CHEAP_VERIFY_BYTES``: here
every file) and ``verify=True`` with every file counted as large (the ``--verify`` path of indexes whose files are
too large to hash on every open).
"""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from genbench.contamination import TestSet, build_index, search

from .harness import FUZZ, genbench_error_or_success

ROWS = [
    {
        "messages": [
            {"role": "user", "content": f"question {i}: what is {i} plus {i * 3} in the {['red', 'blue'][i % 2]} box"},
            {"role": "assistant", "content": f"it is {i * 4}"},
        ]
    }
    for i in range(40)
]
TESTS = [
    TestSet.from_texts("probe", ["what is 7 plus 21 in the blue box", "nothing like the training data", "what is 3"])
]
NGRAM = 3


def _answer(index_dir: Path, train: Path, **options: Any) -> Any:
    report = search(str(train), test_sets=TESTS, ngram_size=NGRAM, match_threshold=0.5, index_dir=index_dir, **options)
    return [
        (
            result.score,
            [(i.score, i.raw_score, [m.to_json() for m in i.matches]) for i in result.instances],
            result.matched_rows.tolist(),
        )
        for result in report.results
    ]


@functools.cache
def _template() -> tuple[Path, Path, Path, Any]:
    """The training file, the index folder, the index, and the undamaged answer (built once per session)."""
    root = Path(tempfile.mkdtemp(prefix="genbench-fuzz-index-"))
    train = root / "train.jsonl"
    train.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    manifest = build_index(str(train), index_dir=root / "idx", ngram_sizes=[NGRAM])[0]
    index = root / "idx" / manifest["name"]
    return train, root / "idx", index, _answer(root / "idx", train)


def _files() -> list[str]:
    _, _, index, _ = _template()
    return sorted(p.relative_to(index).as_posix() for p in index.rglob("*") if p.is_file())


@st.composite
def damages(draw: st.DrawFn) -> tuple[str, str, int, int]:
    """(file, how, where, value): cut to ``where`` bytes, flip byte ``where`` by xor ``value``, append, delete."""
    files = _files()
    name = draw(st.sampled_from(files), label="file")
    how = draw(st.sampled_from(["cut", "flip", "flip", "append", "delete"]), label="damage")
    _, _, index, _ = _template()
    size = (index / name).stat().st_size
    where = draw(st.integers(0, max(size - 1, 0)), label="where")
    value = draw(st.integers(1, 255), label="value")
    return name, how, where, value


def _damage(path: Path, how: str, where: int, value: int) -> None:
    data = path.read_bytes()
    if how == "cut":
        path.write_bytes(data[:where])
    elif how == "flip" and data:
        path.write_bytes(data[:where] + bytes([data[where] ^ value]) + data[where + 1 :])
    elif how == "append":
        path.write_bytes(data + bytes([value]) * (where % 9 + 1))
    else:
        path.unlink()


def _case(damage: tuple[str, str, int, int], **options: Any) -> None:
    train, index_dir, index, expected = _template()
    name, how, where, value = damage
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "idx"
        shutil.copytree(index_dir, copy)
        _damage(copy / index.name / name, how, where, value)

        def search_damaged() -> None:
            answer = _answer(copy, train, **options)
            assert answer == expected, f"{how} {name} at {where} ({value}) gave another answer"

        genbench_error_or_success(f"damaged index{' --verify' if options else ''}", search_damaged)


@FUZZ
@given(damage=damages())
def test_damaged_index_gives_an_error_or_the_right_answer(damage):
    _case(damage)


@FUZZ
@given(damage=damages())
def test_damaged_index_with_verify_of_large_files(damage):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("genbench.contamination._embedded.integrity.CHEAP_VERIFY_BYTES", 0)  # every file is "large"
        _case(damage, verify=True)


@pytest.mark.parametrize("name", _files())
def test_every_file_cut_flipped_or_deleted(name):
    """Deterministic sweep: each file cut at its middle and to nothing, its first and last byte flipped, deleted."""
    _, _, index, _ = _template()
    size = (index / name).stat().st_size
    for how, where in [("cut", size // 2), ("cut", 0), ("flip", 0), ("flip", size - 1), ("delete", 0)]:
        _case((name, how, where, 0x20))


@FUZZ
@given(damage=damages())
def test_damaged_large_files_checked_by_size_only_never_crash(damage):
    """Files too large to hash on every open are checked by size (``--verify`` hashes them): a byte flipped inside
    one can change the answer, but never ends in a raw exception."""
    train, index_dir, index, _ = _template()
    name, how, where, value = damage
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as folder:
        patch.setattr("genbench.contamination._embedded.integrity.CHEAP_VERIFY_BYTES", 0)
        copy = Path(folder) / "idx"
        shutil.copytree(index_dir, copy)
        _damage(copy / index.name / name, how, where, value)
        genbench_error_or_success("damaged index, sizes only", lambda: _answer(copy, train))
