"""An index answers only for the training data it was built from, as it is now (issue 31): an n-gram table copied
from another index is never used, a search of training data that changed since it was indexed is refused, and an
index holding another dataset does not answer for the one named."""

from __future__ import annotations

import json
import os
import shutil
import time
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import genbench.contamination._source_check as source_check
from genbench.cli import cli
from genbench.contamination import ContaminationError, TestSet, build_index, search
from genbench.contamination._embedded import EmbeddedBackend
from genbench.contamination._errors import ContaminationWarning
from genbench.contamination._training_data import UnitSpec, load_training_dataset

QUESTION = "what is the capital city of france today"


def _search(train: Path, index_dir: Path, texts: list[str], **options):
    test_set = TestSet.from_texts("probe", texts)
    return search(str(train), test_sets=[test_set], ngram_size=3, index_dir=index_dir, **options)


@pytest.mark.parametrize("verify", [False, True])
def test_an_ngram_table_copied_from_another_index_with_as_many_tokens_is_not_used(
    tmp_path: Path, write_jsonl, chat, verify: bool
):
    """The attack of issue 31: the table of another index with the same token count was trusted, even with
    --verify (the score became 0.03 instead of 0.5)."""
    ours = write_jsonl(tmp_path / "ours.jsonl", [chat(f"filler words number {i} go here") for i in range(50)])
    ours.write_text(ours.read_text() + json.dumps(chat("the capital city of france is")) + "\n")
    theirs = write_jsonl(tmp_path / "theirs.jsonl", [chat(f"other text row {i} says little") for i in range(51)])
    index_dir = tmp_path / "idx"
    (mine,) = build_index(str(ours), index_dir=index_dir, ngram_sizes=[3])
    (other,) = build_index(str(theirs), index_dir=index_dir, ngram_sizes=[3])
    assert mine["counts"]["tokens"] == other["counts"]["tokens"]
    expected = _search(ours, index_dir, [QUESTION]).results[0].instances[0].raw_score
    assert expected == pytest.approx(5 / 8)  # "the capital city of france" of 8 tokens

    table = index_dir / mine["name"] / "tables" / "ngram-3"
    shutil.rmtree(table)
    shutil.copytree(index_dir / other["name"] / "tables" / "ngram-3", table)
    copied_meta = (table / "meta.json").read_text()

    result = _search(ours, index_dir, [QUESTION], verify=verify).results[0]
    assert result.instances[0].raw_score == pytest.approx(expected)
    assert (table / "meta.json").read_text() != copied_meta  # built again, for this index
    assert (
        json.loads((table / "meta.json").read_text())["built_from"]["tokens.npy"]
        == (mine["files"]["tokens.npy"]["xxh3_128"])
    )


def test_rows_appended_after_indexing_are_not_answered_for_by_the_old_index(tmp_path: Path, write_jsonl, chat):
    """The attack of issue 31: every test sentence appended to the training file after `index`; the search said
    0.0, exit 0, no warning."""
    train = write_jsonl(tmp_path / "train.jsonl", [chat(f"filler question number {i}") for i in range(20)])
    build_index(str(train), index_dir=tmp_path / "idx")
    assert _search(train, tmp_path / "idx", [QUESTION]).results[0].score == 0.0
    with open(train, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(chat(QUESTION)) + "\n")

    with pytest.raises(ContaminationError, match=r"changed since it was indexed.*--rebuild") as error:
        _search(train, tmp_path / "idx", [QUESTION])
    assert str(train) in str(error.value) and f"--index_dir {tmp_path / 'idx'}" in str(error.value)

    test_file = write_jsonl(tmp_path / "test.jsonl", [{"question": QUESTION}])
    result = CliRunner().invoke(
        cli,
        [
            "contamination", "search", "--train_dataset_names", str(train), "--dataset", str(test_file),
            "--field", "question", "--split", "train", "--ngram_size", "3", "--index_dir", str(tmp_path / "idx"),
            "--output_dir", str(tmp_path / "out"),
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "changed since it was indexed" in result.output
    assert not (tmp_path / "out" / "contamination_report.tsv").exists()

    build_index(str(train), index_dir=tmp_path / "idx")  # indexed again: the new rows are searched
    assert _search(train, tmp_path / "idx", [QUESTION]).results[0].score == 1.0


def test_a_stale_index_is_refused_before_any_test_set_is_loaded(tmp_path: Path, write_jsonl, chat, monkeypatch):
    """`contamination search` checks the training data before it loads the test sets (the registry's, by default:
    the slow part), so a stale index is said at once."""
    train = write_jsonl(tmp_path / "train.jsonl", [chat(f"filler question number {i}") for i in range(20)])
    build_index(str(train), index_dir=tmp_path / "idx")
    with open(train, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(chat(QUESTION)) + "\n")
    loaded: list[str] = []
    monkeypatch.setattr("genbench.task._factory.load_task", lambda task_id: loaded.append(task_id))
    result = CliRunner().invoke(
        cli,
        ["contamination", "search", "--train_dataset_names", str(train), "-t", "arithmetic_length", "--ngram_size",
         "3", "--index_dir", str(tmp_path / "idx"), "--output_dir", str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "changed since it was indexed" in result.output
    assert loaded == []  # no task was loaded


def test_a_file_changed_in_place_with_its_size_kept_is_seen(tmp_path: Path, write_jsonl, chat):
    train = write_jsonl(tmp_path / "train.jsonl", [chat("the weather is nice in spring"), chat("alpha beta gamma")])
    (manifest,) = build_index(str(train), index_dir=tmp_path / "idx")
    time.sleep(0.05)  # file times tick in jiffies (1-10 ms): a write now has other times than those recorded
    train.write_bytes(train.read_bytes().replace(b"spring", b"summer"))  # same size
    with pytest.raises(ContaminationError, match="changed since it was indexed"):
        _search(train, tmp_path / "idx", ["the weather is nice"])

    # Its modification time set back (`touch -d`, `cp -p`): the change time still differs, so it is read.
    recorded = manifest["source"]["file_state"]
    os.utime(train, ns=(recorded["mtime_ns"], recorded["mtime_ns"]))
    with pytest.raises(ContaminationError, match="changed since it was indexed"):
        _search(train, tmp_path / "idx", ["the weather is nice"])


def test_a_file_of_the_recorded_size_and_times_is_not_read_unless_verified(
    tmp_path: Path, write_jsonl, chat, monkeypatch
):
    """A search reads the training file only when its size or times differ from those recorded (or with verify)."""
    train = write_jsonl(tmp_path / "train.jsonl", [chat(QUESTION)])
    build_index(str(train), index_dir=tmp_path / "idx")
    read: list[Path] = []
    real = source_check.file_digest
    monkeypatch.setattr(source_check, "file_digest", lambda path: read.append(path) or real(path))
    assert _search(train, tmp_path / "idx", [QUESTION]).results[0].score == 1.0
    assert read == []
    assert _search(train, tmp_path / "idx", [QUESTION], verify=True).results[0].score == 1.0
    assert read == [train.resolve()]


def test_an_unchanged_file_touched_or_gone_still_answers(tmp_path: Path, write_jsonl, chat):
    train = write_jsonl(tmp_path / "train.jsonl", [chat(QUESTION), chat("something else entirely")])
    build_index(str(train), index_dir=tmp_path / "idx")
    train.write_bytes(train.read_bytes())  # rewritten with the same content: a new modification time
    assert _search(train, tmp_path / "idx", [QUESTION]).results[0].score == 1.0

    (name,) = [p.name for p in (tmp_path / "idx").iterdir() if p.suffix == ".text"]
    train.unlink()  # indexes outlive their training data: searched by index name, with a warning
    with pytest.warns(ContaminationWarning, match=r"Cannot check that the index .* is up to date.*cannot be read"):
        assert _search(Path(name), tmp_path / "idx", [QUESTION]).results[0].score == 1.0


def test_an_index_folder_holding_another_dataset_does_not_answer_for_the_one_named(tmp_path: Path, write_jsonl, chat):
    """The attack of issue 31: the folder of one dataset's index replaced by another's; the Elasticsearch backend
    refused this already, the embedded one answered for the dataset named with the other's units."""
    ours = write_jsonl(tmp_path / "ours.jsonl", [chat("nothing to see here at all")])
    theirs = write_jsonl(tmp_path / "theirs.jsonl", [chat(QUESTION)])
    backend = EmbeddedBackend(tmp_path / "idx")
    spec = UnitSpec()
    (mine, other) = (backend.build(load_training_dataset(str(path)), spec) for path in (ours, theirs))
    shutil.rmtree(tmp_path / "idx" / mine["name"])
    shutil.copytree(tmp_path / "idx" / other["name"], tmp_path / "idx" / mine["name"])

    with pytest.raises(ContaminationError, match=r"holds .*theirs\.jsonl.*, not .*ours\.jsonl.*--rebuild"):
        _search(ours, tmp_path / "idx", [QUESTION])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _search(theirs, tmp_path / "idx", [QUESTION]).results[0].score == 1.0  # its own dataset: answers


def test_the_check_of_changed_data_holds_on_every_backend(tmp_path: Path, write_jsonl, chat, make_backend):
    train = write_jsonl(tmp_path / "train.jsonl", [chat(f"filler question number {i}") for i in range(5)])
    backend = make_backend()
    backend.build(load_training_dataset(str(train)), UnitSpec())
    test_set = TestSet.from_texts("probe", [QUESTION])
    assert search(str(train), test_sets=[test_set], ngram_size=3, backend=backend).results[0].score == 0.0
    with open(train, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(chat(QUESTION)) + "\n")
    with pytest.raises(ContaminationError, match="changed since it was indexed"):
        search(str(train), test_sets=[test_set], ngram_size=3, backend=backend)


def test_a_manifest_without_the_checksum_is_checked_by_its_fingerprint(tmp_path: Path, write_jsonl, chat):
    """Indexes recorded before the checksum (e.g. on an Elasticsearch server) are checked by the SHA-256."""
    train = write_jsonl(tmp_path / "train.jsonl", [chat(QUESTION)])
    source = load_training_dataset(str(train)).source_info()
    old = {"name": "train.text", "source": {k: v for k, v in source.items() if k not in ("xxh3_128", "file_state")}}
    source_check.check_unchanged(old)  # the same file: no error
    with open(train, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(chat("one more row")) + "\n")
    with pytest.raises(ContaminationError, match="changed since it was indexed"):
        source_check.check_unchanged(old)
