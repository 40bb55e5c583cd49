"""An embedded index carries what proves it whole: a damaged or missing file is an error naming the file and the
command that rebuilds it (never a clean-looking report), a damaged n-gram table is rebuilt, and an index is not
replaced by one with other unit settings unless asked to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench.cli import cli
from genbench.contamination import ContaminationError, TestSet, build_index, search
from genbench.contamination._checksums import file_digest
from genbench.contamination._embedded import EmbeddedBackend
from genbench.contamination._embedded.integrity import is_sealed
from genbench.contamination._errors import DamagedIndexError

QUESTION = "what is the capital city of france today"


def _build(tmp_path: Path, write_jsonl, chat, **options) -> tuple[Path, Path, dict]:
    rows = [chat(f"filler question number {i} about nothing") for i in range(200)] + [chat(QUESTION)]
    train = write_jsonl(tmp_path / "train.jsonl", rows)
    manifest = build_index(str(train), index_dir=tmp_path / "idx", ngram_sizes=[3], **options)[0]
    return train, tmp_path / "idx" / manifest["name"], manifest


def _search(train: Path, tmp_path: Path, **options):
    test_set = TestSet.from_texts("probe", [QUESTION])
    return search(str(train), test_sets=[test_set], ngram_size=3, index_dir=tmp_path / "idx", **options)


def test_manifest_lists_every_file_and_is_sealed(tmp_path: Path, write_jsonl, chat):
    _, folder, manifest = _build(tmp_path, write_jsonl, chat)
    assert set(manifest["files"]) == {"vocab.txt", "tokens.npy", "offsets.npy", "original_ids.npy", "turns.npy"}
    for name, record in manifest["files"].items():
        assert record["bytes"] == (folder / name).stat().st_size
        assert record["xxh3_128"] == file_digest(folder / name)
    assert is_sealed(json.loads((folder / "manifest.json").read_text()))
    table_meta = json.loads((folder / "tables" / "ngram-3" / "meta.json").read_text())
    assert set(table_meta["files"]) == {"keys.npy", "units.npy", "fence.npy", "impure.npy"} and is_sealed(table_meta)
    assert manifest["build_settings"]["units_from"] == {
        "messages_field": "messages",
        "query_filter": "role:user",
        "query_field": "content",
    }


@pytest.mark.parametrize("name", ["vocab.txt", "tokens.npy", "offsets.npy", "original_ids.npy", "turns.npy"])
@pytest.mark.parametrize("damage", ["cut", "flip", "missing"])
def test_damaged_file_is_an_error_naming_it_and_the_rebuild_command(tmp_path: Path, write_jsonl, chat, name, damage):
    train, folder, _ = _build(tmp_path, write_jsonl, chat)
    assert _search(train, tmp_path).results[0].score == 1.0
    path = folder / name
    data = path.read_bytes()
    if damage == "cut":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        path.write_bytes(data[:-3] + bytes([data[-3] ^ 0x41]) + data[-2:])
    else:
        path.unlink()
    with pytest.raises(DamagedIndexError) as error:
        _search(train, tmp_path)
    message = str(error.value)
    assert str(path) in message
    assert f"genbench-cli contamination index --dataset {train}" in message and "--rebuild" in message


def test_first_search_of_a_size_checks_the_token_files_it_reads_whole(tmp_path: Path, write_jsonl, chat, monkeypatch):
    """The first search of an n-gram size reads tokens.npy and offsets.npy whole (no table yet): it checks their
    checksums on the way, without --verify, even where opening checks a large file's size only."""
    monkeypatch.setattr("genbench.contamination._embedded.integrity.CHEAP_VERIFY_BYTES", 0)  # every file is "large"
    rows = [chat(f"filler question number {i} about nothing") for i in range(200)] + [chat(QUESTION)]
    train = write_jsonl(tmp_path / "train.jsonl", rows)
    (manifest,) = build_index(str(train), index_dir=tmp_path / "idx")
    path = tmp_path / "idx" / manifest["name"] / "tokens.npy"
    data = bytearray(path.read_bytes())
    data[-4] ^= 1  # the last token's id, one off: still a token of the vocabulary, the size unchanged
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedIndexError) as error:
        _search(train, tmp_path)
    assert str(path) in str(error.value) and "checksum" in str(error.value) and "--rebuild" in str(error.value)
    assert not (tmp_path / "idx" / manifest["name"] / "tables").exists()


def test_vocab_cut_short_does_not_report_clean_through_the_cli(tmp_path: Path, write_jsonl, chat):
    """The reproducer of issue 20: a vocab.txt cut short gave a clean report and kept the contaminated row."""
    train, folder, _ = _build(tmp_path, write_jsonl, chat)
    vocab = folder / "vocab.txt"
    vocab.write_bytes(vocab.read_bytes()[:40])
    test_file = tmp_path / "test.jsonl"
    test_file.write_text(json.dumps({"question": QUESTION}) + "\n")
    result = CliRunner().invoke(
        cli,
        [
            "contamination", "search", "--train_dataset_names", str(train), "--dataset", str(test_file),
            "--field", "question", "--split", "train", "--ngram_size", "3", "--match_threshold", "0.5",
            "--decontaminate", "--index_dir", str(tmp_path / "idx"), "--output_dir", str(tmp_path / "out"),
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "vocab.txt" in result.output and "--rebuild" in result.output
    assert not (tmp_path / "out" / "contamination_report.json").exists()


def test_damaged_manifest_is_an_error(tmp_path: Path, write_jsonl, chat):
    train, folder, _ = _build(tmp_path, write_jsonl, chat)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["counts"]["units"] -= 1  # still valid JSON, but not what was built
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(DamagedIndexError, match=r"manifest\.json is damaged.*--rebuild"):
        _search(train, tmp_path)
    (folder / "manifest.json").unlink()
    with pytest.raises(DamagedIndexError, match=r"manifest\.json is missing"):
        _search(train, tmp_path)


@pytest.mark.parametrize("name", ["keys.npy", "units.npy", "fence.npy", "impure.npy", "meta.json"])
def test_damaged_or_missing_ngram_table_file_is_rebuilt(tmp_path: Path, write_jsonl, chat, name):
    train, folder, _ = _build(tmp_path, write_jsonl, chat)
    path = folder / "tables" / "ngram-3" / name
    path.write_bytes(path.read_bytes()[:-1]) if name != "units.npy" else path.unlink()
    assert _search(train, tmp_path).results[0].score == 1.0
    assert (folder / "tables" / "ngram-3" / "units.npy").exists()


def test_verify_checks_the_checksums_of_large_files(tmp_path: Path, write_jsonl, chat, monkeypatch):
    train, folder, _ = _build(tmp_path, write_jsonl, chat)
    monkeypatch.setattr("genbench.contamination._embedded.integrity.CHEAP_VERIFY_BYTES", 0)  # every file is "large"
    path = folder / "turns.npy"
    data = bytearray(path.read_bytes())
    data[-1] ^= 1  # a flip that keeps the size
    path.write_bytes(bytes(data))
    EmbeddedBackend(tmp_path / "idx").open(str(train))  # sizes only: not seen
    with pytest.raises(DamagedIndexError, match="turns.npy does not have the checksum"):
        _search(train, tmp_path, verify=True)


def test_index_again_rebuilds_a_damaged_index(tmp_path: Path, write_jsonl, chat):
    train, folder, _ = _build(tmp_path, write_jsonl, chat)
    (folder / "tokens.npy").write_bytes(b"")
    build_index(str(train), index_dir=tmp_path / "idx")
    assert _search(train, tmp_path).results[0].score == 1.0


def test_other_unit_settings_do_not_replace_an_index_silently(tmp_path: Path, write_jsonl, chat):
    train, folder, _ = _build(tmp_path, write_jsonl, chat)
    with pytest.raises(ContaminationError, match=r"holds units from .* with role:user; .*--rebuild.*--index-dir"):
        build_index(str(train), index_dir=tmp_path / "idx", query_filter=None)
    rebuilt = build_index(str(train), index_dir=tmp_path / "idx", query_filter=None, rebuild=True)[0]
    assert rebuilt["units_from"]["query_filter"] is None


def test_report_records_the_unit_settings(tmp_path: Path, write_jsonl, chat):
    train, _, _ = _build(tmp_path, write_jsonl, chat, query_filter=None)
    _search(train, tmp_path).write(tmp_path / "out")
    report = json.loads((tmp_path / "out" / "contamination_report.json").read_text())
    (recorded,) = report["indexes"].values()
    assert recorded["units_from"] == {"messages_field": "messages", "query_filter": None, "query_field": "content"}
    # the rebuild command of a damaged index repeats the unit settings
    with pytest.raises(DamagedIndexError, match=r"--query-filter '' --index-dir"):
        (tmp_path / "idx" / recorded["name"] / "turns.npy").unlink()
        _search(train, tmp_path)


def test_a_value_out_of_range_in_a_large_file_is_traced_to_it(tmp_path: Path, write_jsonl, chat, monkeypatch):
    """A large file is checked by size on open; a damaged value found while searching is traced by hashing every
    file, and reported as that file's damage (fuzz finding: an IndexError in the preview of a match)."""
    import numpy as np

    train, folder, _ = _build(tmp_path, write_jsonl, chat)
    monkeypatch.setattr("genbench.contamination._embedded.integrity.CHEAP_VERIFY_BYTES", 0)
    offsets = np.load(folder / "offsets.npy")
    tokens = np.load(folder / "tokens.npy")
    tokens[offsets[-1] - 1] = 2**31 - 1  # the last token of the last unit (QUESTION's "today"): no such word
    np.save(folder / "tokens.npy", tokens)  # same size
    test_set = TestSet.from_texts("probe", ["what is the capital city"])
    with pytest.raises(DamagedIndexError, match=r"tokens\.npy does not have the checksum.*--rebuild"):
        search(str(train), test_sets=[test_set], ngram_size=3, index_dir=tmp_path / "idx")
