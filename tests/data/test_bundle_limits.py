"""`data import` extracts bundles as streams under limits (issue 20): a decompression bomb fails before it is
written, manifest names are looked up normalised, conflicting or deep manifests are clear errors."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from genbench._core.errors import ChecksumMismatchError, DataLoadError, GenBenchError
from genbench._registry.data_bundle import import_bundle
from genbench.data._cache import cached_entry
from tests.data.bundle_builder import BODY, REVISION, build_bundle, file_record, one_file_bundle

URI = "https://example.org/data/test.jsonl"


def _files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def test_a_valid_bundle_imports(tmp_path: Path, genbench_cache: Path) -> None:
    summary = import_bundle(one_file_bundle(tmp_path / "ok.tar"))
    assert [entry.uri for entry in summary.files] == [URI]
    assert cached_entry(URI) is not None and cached_entry(URI).path.read_bytes() == BODY


def test_a_small_bundle_declaring_a_huge_member_fails_before_writing(
    tmp_path: Path, genbench_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reproducer: a few KB of gzip declaring a large member (with its true sha256) used to be extracted whole
    and read whole into memory before anything failed."""
    body = b'{"a": 1}\n' * (8 << 20)  # 72 MiB of valid JSONL, a few hundred KB compressed
    bomb = build_bundle(
        tmp_path / "bomb.tar.gz",
        {"downloads/big.jsonl": body},
        files=[file_record(URI, body, "downloads/big.jsonl")],
        compression="gz",
    )
    assert bomb.stat().st_size < 1 << 20
    monkeypatch.setenv("GENBENCH_MAX_DOWNLOAD_BYTES", str(1 << 20))
    with pytest.raises(DataLoadError, match=r"declares 75497472 bytes, more than a download may have"):
        import_bundle(bomb)
    assert _files_under(genbench_cache) == [] and cached_entry(URI) is None

    monkeypatch.delenv("GENBENCH_MAX_DOWNLOAD_BYTES")
    monkeypatch.setenv("GENBENCH_MAX_IMPORT_BYTES", str(1 << 20))
    with pytest.raises(DataLoadError, match=r"declares 75497472 bytes in all, more than one import may extract"):
        import_bundle(bomb)
    assert _files_under(genbench_cache) == []


def test_a_bad_limit_setting_is_a_genbench_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENBENCH_MAX_IMPORT_BYTES", "lots")
    with pytest.raises(GenBenchError, match="GENBENCH_MAX_IMPORT_BYTES"):
        import_bundle(one_file_bundle(tmp_path / "ok.tar"))


def test_manifest_names_are_looked_up_normalised(tmp_path: Path, genbench_cache: Path) -> None:
    bundle = build_bundle(
        tmp_path / "dot.tar", {"downloads/a": BODY}, files=[file_record(URI, BODY, "./downloads//a")]
    )
    assert [entry.uri for entry in import_bundle(bundle).files] == [URI]


def test_a_file_and_a_folder_of_the_same_name_conflict(tmp_path: Path, genbench_cache: Path) -> None:
    record = {
        "hf_id": "org/sentences",
        "name": None,
        "revision": REVISION,
        "member": "hf/0",
        "files": {"a": {"sha256": hashlib.sha256(b"x").hexdigest(), "size": 1},
                  "a/b": {"sha256": hashlib.sha256(b"y").hexdigest(), "size": 1}},
    }  # fmt: skip
    bundle = build_bundle(tmp_path / "clash.tar", {"hf/0/a": b"x", "hf/0/a/b": b"y"}, hub_datasets=[record])
    with pytest.raises(DataLoadError, match=r"'a' is listed as a file and as the folder of another file"):
        import_bundle(bundle)
    assert _files_under(genbench_cache) == []


def test_a_member_listed_twice_under_two_spellings_is_refused(tmp_path: Path, genbench_cache: Path) -> None:
    files = [file_record(URI, BODY, "downloads/a"), file_record(URI + "2", BODY, "./downloads/a")]
    bundle = build_bundle(tmp_path / "twice.tar", {"downloads/a": BODY}, files=files)
    with pytest.raises(DataLoadError, match="listed twice"):
        import_bundle(bundle)


def test_a_deep_manifest_is_refused_without_recursion_error(tmp_path: Path, genbench_cache: Path) -> None:
    deep = b'{"format": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(DataLoadError, match="genbench-data-manifest.json: nested deeper than"):
        import_bundle(build_bundle(tmp_path / "deep.tar", {}, manifest_text=deep))
    with pytest.raises(DataLoadError, match="genbench-data-manifest.json: not valid JSON: NaN"):
        import_bundle(build_bundle(tmp_path / "nan.tar", {}, manifest_text=b'{"format": NaN}'))


def test_a_member_larger_than_declared_is_refused(tmp_path: Path, genbench_cache: Path) -> None:
    record = file_record(URI, BODY, "downloads/a")
    record["size"] = 10
    bundle = build_bundle(tmp_path / "size.tar", {"downloads/a": BODY}, files=[record])
    with pytest.raises(ChecksumMismatchError, match="the manifest says 10"):
        import_bundle(bundle)


def test_a_killed_imports_scratch_folder_is_removed_by_the_next_import(tmp_path: Path, genbench_cache: Path) -> None:
    stale = genbench_cache / ".scratch.k1ll3d00.tmp"
    (stale / "files").mkdir(parents=True)
    (stale / "files" / "0").write_bytes(b"x" * 4096)
    past = time.time() - 3600
    os.utime(stale, (past, past))
    import_bundle(one_file_bundle(tmp_path / "ok.tar"))
    assert not stale.exists()


def test_a_manifest_uri_that_is_no_url_is_refused_before_extraction(tmp_path: Path, genbench_cache: Path) -> None:
    """Found by the fuzz: a flipped byte made a URI with an unclosed '[' (urlsplit's ValueError at install time)."""
    bad = "https://[example.org/data/test.jsonl"
    bundle = build_bundle(
        tmp_path / "bad.tar",
        {"downloads/a": BODY, "downloads/b": BODY},
        files=[file_record(URI, BODY, "downloads/a"), file_record(bad, BODY, "downloads/b")],
    )
    with pytest.raises(DataLoadError, match=r"files\[1\]: .* is not a valid URL"):
        import_bundle(bundle)
    assert cached_entry(URI) is None  # nothing installed, not even the good file
