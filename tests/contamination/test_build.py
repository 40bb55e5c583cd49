"""Building indexes: units from chat data, the manifest, atomic replacement, resuming a stopped build."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from genbench.contamination import ANALYZER_VERSION, TestSet, build_index, search
from genbench.contamination._embedded import EmbeddedBackend, store, text_index
from genbench.contamination._training_data import UnitSpec, load_training_dataset


@pytest.fixture
def chat_file(tmp_path: Path, write_jsonl, chat) -> Path:
    rows = [
        chat(f"Question number {i}: what is {i} plus {i}?", f"Follow-up {i}", system="Be brief.") for i in range(23)
    ]
    rows.append({"messages": []})  # a row without messages: no unit, still a row
    return write_jsonl(tmp_path / "chat.jsonl", rows)


def _index_files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.suffix in {".npy", ".txt"}}


def test_units_are_the_filtered_messages(chat_file: Path, tmp_path: Path):
    (manifest,) = build_index(str(chat_file), index_dir=tmp_path / "idx")
    # "Question number i: what is i plus i?" has 8 tokens, "Follow-up i" 3; words: 7 and the numbers 0-22.
    assert manifest["counts"] == {"rows": 24, "units": 46, "tokens": 23 * 8 + 23 * 3, "vocabulary": 7 + 23}
    assert manifest["analyzer_version"] == ANALYZER_VERSION and manifest["index_type"] == "text"
    assert manifest["units_from"] == {
        "messages_field": "messages",
        "query_filter": "role:user",
        "query_field": "content",
    }
    assert manifest["source"]["fingerprint"] == __import__("hashlib").sha256(chat_file.read_bytes()).hexdigest()
    path = tmp_path / "idx" / manifest["name"]
    assert json.loads((path / "manifest.json").read_text())["name"] == manifest["name"]
    assert np.load(path / "original_ids.npy").tolist() == [i // 2 for i in range(46)]
    assert np.load(path / "turns.npy").tolist() == [1, 3] * 23  # the system message is turn 0
    index = EmbeddedBackend(tmp_path / "idx").open(str(chat_file))
    assert index.vocabulary.words[:4] == ["question", "number", "0", "what"]


def test_all_messages_without_a_filter(chat_file: Path, tmp_path: Path):
    (manifest,) = build_index(str(chat_file), query_filter=None, index_dir=tmp_path / "idx")
    assert manifest["counts"]["units"] == 23 * 5


def test_an_up_to_date_index_is_kept_and_a_changed_source_rebuilt(chat_file: Path, tmp_path: Path, write_jsonl, chat):
    (first,) = build_index(str(chat_file), index_dir=tmp_path / "idx")
    (again,) = build_index(str(chat_file), index_dir=tmp_path / "idx")
    assert again["created"] == first["created"] and again["build_settings"] == first["build_settings"]
    write_jsonl(chat_file, [chat("a brand new question")])
    (rebuilt,) = build_index(str(chat_file), index_dir=tmp_path / "idx")
    assert rebuilt["counts"]["units"] == 1 and rebuilt["name"] == first["name"]
    assert sorted(p.name for p in (tmp_path / "idx").iterdir() if p.suffix != ".lock") == [
        first["name"]
    ]  # no leftovers


def test_an_interrupted_build_resumes_from_completed_shards(chat_file: Path, tmp_path: Path, monkeypatch):
    clean = EmbeddedBackend(tmp_path / "clean", shard_rows=5)
    clean_manifest = clean.build(load_training_dataset(str(chat_file)), UnitSpec())

    backend = EmbeddedBackend(tmp_path / "idx", shard_rows=5)
    real_write = store._write_shard
    written: list[int] = []

    def crash_after_two(partial, number, contents):
        if len(written) == 2:
            raise KeyboardInterrupt("simulated crash")
        real_write(partial, number, contents)
        written.append(number)

    monkeypatch.setattr(store, "_write_shard", crash_after_two)
    with pytest.raises(KeyboardInterrupt):
        backend.build(load_training_dataset(str(chat_file)), UnitSpec())
    name = clean_manifest["name"]
    assert not (tmp_path / "idx" / name).exists()  # nothing half-built is visible
    partial = tmp_path / "idx" / f".{name}.partial"
    assert sorted(p.name for p in partial.iterdir() if p.name.startswith("shard-")) == ["shard-000000", "shard-000001"]

    monkeypatch.setattr(store, "_write_shard", real_write)
    processed: list[int] = []
    real_process = text_index.TextShardBuilder.process
    monkeypatch.setattr(
        text_index.TextShardBuilder,
        "process",
        lambda self, batch: processed.append(batch.shard) or real_process(self, batch),
    )
    manifest = backend.build(load_training_dataset(str(chat_file)), UnitSpec())
    assert processed == [2, 3, 4]  # the two completed shards were not redone
    assert manifest["counts"] == clean_manifest["counts"]
    assert _index_files(tmp_path / "idx" / name) == _index_files(tmp_path / "clean" / name)
    assert not partial.exists()


def test_a_partial_build_with_other_settings_starts_over(chat_file: Path, tmp_path: Path, monkeypatch):
    backend = EmbeddedBackend(tmp_path / "idx", shard_rows=5)

    def crash(partial, number, contents):
        raise RuntimeError("crash")

    real_write = store._write_shard
    monkeypatch.setattr(store, "_write_shard", crash)
    with pytest.raises(RuntimeError):
        backend.build(load_training_dataset(str(chat_file)), UnitSpec())
    monkeypatch.setattr(store, "_write_shard", real_write)
    manifest = backend.build(load_training_dataset(str(chat_file)), UnitSpec(query_filter="role:assistant"))
    assert manifest["counts"]["units"] == 46
    assert manifest["units_from"]["query_filter"] == "role:assistant"


def test_ngram_tables_are_built_by_the_second_search_of_a_size_and_kept(chat_file: Path, tmp_path: Path):
    build_index(str(chat_file), index_dir=tmp_path / "idx")
    test_set = TestSet.from_texts("q", ["what is 3 plus 3", "nothing here"])
    report = search(str(chat_file), test_sets=[test_set], ngram_size=3, index_dir=tmp_path / "idx")
    assert [i.raw_score for i in report.results[0].instances] == [1.0, 0.0]
    table = tmp_path / "idx" / report.results[0].index / "tables" / "ngram-3"
    assert not table.exists()  # the first search of a size reads the tokens; it builds no table
    assert report.manifests[report.results[0].index]["ngram_scans"] == [3]
    again = search(str(chat_file), test_sets=[test_set], ngram_size=3, index_dir=tmp_path / "idx")
    assert [i.raw_score for i in again.results[0].instances] == [1.0, 0.0]
    stamp = (table / "keys.npy").stat().st_mtime_ns
    search(str(chat_file), test_sets=[test_set], ngram_size=3, index_dir=tmp_path / "idx")
    assert (table / "keys.npy").stat().st_mtime_ns == stamp
    assert json.loads((table / "meta.json").read_text())["n"] == 3


def test_dataset_mixer_indexes_every_dataset(tmp_path: Path, write_jsonl, chat):
    write_jsonl(tmp_path / "one.jsonl", [chat("alpha beta gamma delta")])
    write_jsonl(tmp_path / "two.jsonl", [chat("epsilon zeta eta theta")])
    config = tmp_path / "mix.yaml"
    config.write_text("dataset_mixer:\n  one.jsonl: 1.0\n  two.jsonl: 0.5\n", encoding="utf-8")
    manifests = build_index(dataset_mixer_config=config, index_dir=tmp_path / "idx")
    assert [m["counts"]["units"] for m in manifests] == [1, 1]
    report = search(
        dataset_mixer_config=config,
        test_sets=[TestSet.from_texts("greek", ["beta gamma", "zeta eta"])],
        ngram_size=2,
        index_dir=tmp_path / "idx",
    )
    assert [r.score for r in report.results] == [0.5, 0.5]


def test_an_index_is_found_from_another_working_directory(tmp_path: Path, chat_file: Path, monkeypatch):
    monkeypatch.chdir(chat_file.parent)
    build_index("chat.jsonl", index_dir=tmp_path / "idx")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    report = search("chat.jsonl", test_sets=[TestSet.from_texts("t", ["follow up 3"])], index_dir=tmp_path / "idx")
    assert report.results[0].score == 1.0


def test_a_save_to_disk_folder(tmp_path: Path, chat):
    import datasets

    rows = [chat("the first question", "a second one"), chat("a third question")]
    dataset = datasets.Dataset.from_list(rows).select([1, 0])  # an indices mapping: rows must follow it
    datasets.DatasetDict({"train": dataset}).save_to_disk(str(tmp_path / "saved"))
    (manifest,) = build_index(str(tmp_path / "saved"), index_dir=tmp_path / "idx")
    assert manifest["source"]["kind"] == "disk" and manifest["counts"]["units"] == 3
    report = search(
        str(tmp_path / "saved"),
        test_sets=[TestSet.from_texts("t", ["a third question", "a second one"])],
        match_threshold=0.5,
        index_dir=tmp_path / "idx",
    )
    assert [i.matches[0].original_id for i in report.results[0].instances] == [0, 1]
    from genbench.contamination import decontaminate

    (summary,) = decontaminate(report, tmp_path / "out")
    assert (summary.kept, summary.removed) == (0, 2)
