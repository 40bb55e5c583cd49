"""A shift index is verified before use: a damaged, swapped or grown index is refused; reports pin their corpus."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from genbench.contamination._errors import ContaminationError, DamagedIndexError
from genbench.contamination._testsets import TestSet
from genbench.contamination.shift import measure_shift, open_corpus, read_shift_report
from genbench.contamination.shift._infinigram import build_infinigram_index, register_infinigram_index
from genbench.contamination.shift._manifest import MANIFEST
from tests.contamination.shift_support import write_corpus

pytest.importorskip("infini_gram")


def _index(tmp_path: Path, texts: list[str], name: str = "toy", **options: object) -> Path:
    corpus = write_corpus(tmp_path / f"corpus-{name}", texts, files=1)
    return build_infinigram_index([corpus], tmp_path / f"index-{name}", name=name, **options)  # type: ignore[arg-type]


def test_a_damaged_file_is_refused(tmp_path: Path) -> None:
    index = _index(tmp_path, ["the cat sat", "on the mat"])
    table = index / "table.0"
    data = bytearray(table.read_bytes())
    data[0] ^= 1
    table.write_bytes(bytes(data))
    with pytest.raises(DamagedIndexError, match=r"table\.0 does not have the checksum"):
        open_corpus(index)


def test_a_swapped_file_is_refused(tmp_path: Path) -> None:
    one = _index(tmp_path, ["the cat sat", "on the mat"], name="one")
    other = _index(tmp_path, ["the dog ran", "in the pk!"], name="other")  # same sizes, other bytes
    assert (one / "tokenized.0").stat().st_size == (other / "tokenized.0").stat().st_size
    shutil.copy(other / "tokenized.0", one / "tokenized.0")
    with pytest.raises(DamagedIndexError, match=r"tokenized\.0"):
        open_corpus(one)


def test_a_file_the_manifest_does_not_list_is_refused(tmp_path: Path) -> None:
    index = _index(tmp_path, ["the cat sat"])
    shutil.copy(index / "table.0", index / "table.1")
    with pytest.raises(DamagedIndexError, match=r"table\.1 is not part of the shift index"):
        open_corpus(index)


def test_an_edited_manifest_is_refused(tmp_path: Path) -> None:
    index = _index(tmp_path, ["the cat sat"])
    manifest = json.loads((index / MANIFEST).read_text())
    manifest["name"] = "c4"
    (index / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(DamagedIndexError, match="was changed since the index was built"):
        open_corpus(index)


def test_a_folder_without_a_manifest_says_how_to_register(tmp_path: Path) -> None:
    index = _index(tmp_path, ["the cat sat"])
    (index / MANIFEST).unlink()
    with pytest.raises(ContaminationError, match="genbench-cli shift register"):
        open_corpus(index)
    manifest = register_infinigram_index(index, name="downloaded", tokenizer="bytes")
    corpus = open_corpus(index)
    assert corpus.identity.name == "downloaded" and corpus.identity.index_sha256 == manifest["manifest_sha256"]
    assert corpus.identity.tokens == len("the cat sat") and corpus.count(list(b"cat")) == 1


def test_a_report_pins_its_corpus(tmp_path: Path) -> None:
    one = open_corpus(_index(tmp_path, ["the cat sat", "on the mat"], name="one"))
    other = open_corpus(_index(tmp_path, ["the cat sat", "on the mat!"], name="one-again"))
    [result] = measure_shift(TestSet.from_texts("t", ["the cat"]), corpus=one, output_dir=tmp_path / "out")
    assert result.path is not None
    report = read_shift_report(result.path, corpus=one.identity)
    assert report["corpus"]["index_sha256"] == one.identity.index_sha256
    with pytest.raises(ContaminationError, match="measured against another corpus"):
        read_shift_report(result.path, corpus=other.identity)
    examples = result.path.parent / report["examples_file"]
    examples.write_text(examples.read_text().replace('"tokens": 7', '"tokens": 8'))
    assert '"tokens": 8' in examples.read_text()
    with pytest.raises(ContaminationError, match="was changed since"):
        read_shift_report(result.path)


def test_a_corpus_name_that_is_not_the_index_is_an_error(tmp_path: Path) -> None:
    index = _index(tmp_path, ["the cat sat"])
    with pytest.raises(ContaminationError, match="holds the corpus 'toy', not 'c4'"):
        measure_shift(TestSet.from_texts("t", ["x"]), corpus=index, corpus_name="c4")


def test_an_elasticsearch_index_with_other_documents_is_refused(tmp_path: Path, osmem: Any) -> None:
    from genbench.contamination._es import ElasticsearchBackend
    from genbench.contamination._training_data import UnitSpec, load_training_dataset
    from genbench.contamination.shift._elasticsearch import ElasticsearchCorpus
    from tests.contamination.es_support import osmem_client

    clone = osmem.clone()
    try:
        train = write_corpus(tmp_path / "train", ["the cat sat", "on the mat"], files=1) / "part0.jsonl"
        backend = ElasticsearchBackend(client=osmem_client(clone.url))
        backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
        corpus = ElasticsearchCorpus(backend, str(train))
        assert corpus.identity.documents == 2 and corpus.contains(corpus.token_ids(corpus.tokenizer.split("cat sat")))
        backend.client.index(index=corpus.index_name, document={"text": "an added document"}, refresh=True)
        with pytest.raises(DamagedIndexError, match="holds 3 documents, its manifest records 2"):
            ElasticsearchCorpus(backend, str(train))
    finally:
        clone.close()


def test_a_token_level_index_keeps_and_checks_its_tokenizer(tmp_path: Path) -> None:
    from tests.contamination.shift_support import trained_tokenizer

    texts = ["the cat sat on the mat", "the dog sat on the log"]
    tokenizer_file = trained_tokenizer(tmp_path / "tokenizer", texts)
    index = _index(tmp_path, texts, tokenizer="hf", tokenizer_file=tokenizer_file)
    (index / MANIFEST).unlink()  # as downloaded: an index and, apart, the model's tokenizer
    (index / "tokenizer.json").unlink()
    register_infinigram_index(index, name="prebuilt", tokenizer="hf", token_dtype="u16", tokenizer_file=tokenizer_file)
    corpus = open_corpus(index)
    ids = corpus.token_ids(corpus.tokenizer.split("sat on the"))
    assert corpus.count(ids) == 2 and corpus.identity.tokenizer == "hf"
    (index / "tokenizer.json").write_text((index / "tokenizer.json").read_text().replace('"sat"', '"sit"'))
    with pytest.raises(DamagedIndexError, match="tokenizer.json"):
        open_corpus(index)
