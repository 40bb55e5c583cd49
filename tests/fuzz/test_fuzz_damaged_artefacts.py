"""Damaged artefacts: random truncation and byte flips of a request cache, a results pair and a data bundle.

The property is stronger than the other fuzz tests': each damaged artefact gives a genbench error or the *correct*
answer (the cache returns only answers equal to those stored, or misses; read_results returns the very document and
samples written; an import installs only files equal to those bundled), never a wrong one, and never a raw exception.

A results file carries no checksum of itself (only of its log), so its byte flips are not part of the property: a
flipped digit in a metric's value still reads as a valid file. Its truncation, and the log's flips and truncation,
are.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

import genbench.runs._request_cache as request_cache
from genbench.runs._request_cache import CACHE_FILE, CHECKED_SUFFIX, RequestCache
from genbench.runs._results import read_results
from tests.data.bundle_builder import BODY, build_bundle, file_record
from tests.runs.results_pairs import write_pair

from .harness import FUZZ, genbench_error_or_success

ANSWERS = {hashlib.sha256(str(i).encode()).hexdigest(): [i, -float("inf"), f"answer {i}"] for i in range(120)}


def damaged(data: bytes) -> st.SearchStrategy[bytes]:
    """``data`` cut at a random length, or with 1 to 8 bytes changed at random places."""
    cut = st.integers(0, max(0, len(data) - 1)).map(lambda n: data[:n])
    flip = st.lists(st.tuples(st.integers(0, len(data) - 1), st.integers(1, 255)), min_size=1, max_size=8).map(
        lambda changes: _flipped(data, changes)
    )
    return st.one_of(cut, flip)


def _flipped(data: bytes, changes: list[tuple[int, int]]) -> bytes:
    buffer = bytearray(data)
    for position, mask in changes:
        buffer[position] ^= mask
    return bytes(buffer)


def _request_cache_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        cache = RequestCache(folder)
        cache.put_many(ANSWERS)
        cache.close()
        return (Path(folder) / CACHE_FILE).read_bytes()


CACHE_BYTES = _request_cache_bytes()


@FUZZ
@given(data=damaged(CACHE_BYTES))
@example(data=_flipped(CACHE_BYTES, [(18, 1)]))  # found by a campaign: a header field that opens it read-only
@example(data=_flipped(CACHE_BYTES, [(47, 1)]))  # found by a campaign: "unsupported file format"
def test_damaged_request_cache(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / CACHE_FILE).write_bytes(data)

        genbench_error_or_success("damaged request cache", lambda: _open_and_read(folder, [{"new": "answer"}]))


def _open_and_read(folder: str, new_entry_read_as: list[dict]) -> None:
    """Open the cache, check every answer it gives, write an entry and read it back (as one of the allowed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cache = RequestCache(folder)
        try:
            found = cache.get_many(list(ANSWERS))
            wrong = {key: value for key, value in found.items() if ANSWERS.get(key) != value}
            assert not wrong, f"wrong answers from a damaged cache: {wrong}"
            cache.put_many({"new": "answer"})
            assert cache.get_many(["new"]) in new_entry_read_as
        finally:
            cache.close()


@FUZZ
@given(data=damaged(CACHE_BYTES))
def test_damaged_request_cache_that_looks_unchanged(data: bytes) -> None:
    """Damage that changes no metadata (a failing disk): the sidecar records the damaged file's state, so the whole
    file is not checked on open. Entry checksums and the errors of reads and writes still keep every answer correct."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / CACHE_FILE
        path.write_bytes(data)
        sidecar = path.with_name(CACHE_FILE + CHECKED_SUFFIX)
        sidecar.write_text(json.dumps({"file": CACHE_FILE, "state": request_cache._file_state(path)}))

        # A write into a damaged page that nothing reports may be lost: a miss, never a wrong answer.
        genbench_error_or_success(
            "damaged request cache, unchanged state", lambda: _open_and_read(folder, [{"new": "answer"}, {}])
        )


def _results_pair() -> tuple[bytes, bytes, dict, list]:
    with tempfile.TemporaryDirectory() as folder:
        path = write_pair(Path(folder), [1.0, 0.0, 1.0, 1.0, 0.0, 0.5])
        document, samples = read_results(path)
        return path.read_bytes(), path.with_name("toy_task.samples.jsonl").read_bytes(), document, samples or []


RESULTS, LOG, DOCUMENT, SAMPLES = _results_pair()


@FUZZ
@given(which=st.sampled_from(["log", "results"]), data=st.data())
def test_damaged_results_pair(which: str, data: st.DataObject) -> None:
    if which == "log":
        results, log = RESULTS, data.draw(damaged(LOG), label="log")
    else:
        results, log = RESULTS[: data.draw(st.integers(0, len(RESULTS) - 1), label="cut")], LOG
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "toy_task.json"
        path.write_bytes(results)
        path.with_name("toy_task.samples.jsonl").write_bytes(log)

        def read() -> None:
            document, samples = read_results(path)
            assert document == DOCUMENT and samples == SAMPLES, "a damaged results pair read as something else"

        genbench_error_or_success(f"damaged results {which}", read)


URIS = ["https://example.org/data/a.jsonl", "https://example.org/data/b.jsonl"]
BODIES = [BODY, BODY.replace(b"1+1", b"3+3")]


def _bundle_bytes(compression: str) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        members = {f"downloads/{i}.jsonl": body for i, body in enumerate(BODIES)}
        files = [
            file_record(uri, body, f"downloads/{i}.jsonl")
            for i, (uri, body) in enumerate(zip(URIS, BODIES, strict=True))
        ]
        return build_bundle(Path(folder) / "b.tar", members, files=files, compression=compression).read_bytes()


BUNDLES = {"tar": _bundle_bytes(""), "tar.gz": _bundle_bytes("gz")}


@FUZZ
@given(kind=st.sampled_from(sorted(BUNDLES)), data=st.data())
def test_damaged_bundle(kind: str, data: st.DataObject) -> None:
    from genbench._registry.data_bundle import import_bundle

    damaged_bundle = data.draw(damaged(BUNDLES[kind]), label="bundle")
    with tempfile.TemporaryDirectory() as folder:
        bundle = Path(folder) / f"bundle.{kind}"
        bundle.write_bytes(damaged_bundle)
        saved = os.environ.get("GENBENCH_CACHE")
        os.environ["GENBENCH_CACHE"] = str(Path(folder) / "cache")

        def import_it() -> None:
            summary = import_bundle(bundle)
            for entry in summary.files:  # a flip in a URI installs the right bytes under another name: harmless
                assert entry.path.read_bytes() in BODIES, "a damaged bundle installed other bytes"
                assert hashlib.sha256(entry.path.read_bytes()).hexdigest() == entry.sha256

        try:
            genbench_error_or_success(f"damaged bundle {kind}", import_it)
        finally:
            if saved is None:
                os.environ.pop("GENBENCH_CACHE", None)
            else:
                os.environ["GENBENCH_CACHE"] = saved
