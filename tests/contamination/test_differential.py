"""The embedded index against the brute-force definition, on random data with a small vocabulary.

Hash collisions are forced (``hash_bits=6``: only 64 distinct hash prefixes) and the match blocks are made tiny, so
the collision checks, the unit-range splitting and the batching all run; the scores must not change.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import genbench.contamination._analysis as analysis
from genbench.contamination import SearchMode, TestSet
from genbench.contamination._embedded import EmbeddedBackend, text_index, token_scan
from genbench.contamination._embedded.tokens import Vocabulary
from genbench.contamination._training_data import UnitSpec, load_training_dataset

VOCABULARY = ["a", "b", "c", "É", "東京"]


def _random_data(seed: int) -> tuple[list[list[str]], list[tuple[str, ...]]]:
    rng = random.Random(seed)
    units = [[rng.choice(VOCABULARY) for _ in range(rng.randint(0, 14))] for _ in range(40)]
    n_fields = 1 + seed % 2
    rows = []
    for _ in range(30):
        if rng.random() < 0.3:  # a piece of a unit: long matches and exact matches happen
            unit = rng.choice(units)
            start = rng.randint(0, len(unit))
            rows.append(tuple(" ".join(unit[start : start + rng.randint(1, 9)]) for _ in range(n_fields)))
        else:
            rows.append(
                tuple(
                    " ".join(rng.choice([*VOCABULARY, "zz"]) for _ in range(rng.randint(0, 10)))
                    for _ in range(n_fields)
                )
            )
    return units, rows


@pytest.mark.parametrize(("hash_bits", "pairs_per_block", "batch"), [(64, 4_000_000, 2048), (6, 7, 4)])
@pytest.mark.parametrize("seed", range(3))
def test_embedded_index_matches_the_definition(
    tmp_path: Path, monkeypatch, write_jsonl, seed, hash_bits, pairs_per_block, batch
):
    monkeypatch.setattr(text_index, "PAIRS_PER_BLOCK", pairs_per_block)
    monkeypatch.setattr(text_index, "INSTANCES_PER_BATCH", batch)
    if batch < 10:  # blocks of a few units, offsets read a few at a time, a unit longer than a block
        monkeypatch.setattr(token_scan, "BLOCK_TOKENS", 5)
        monkeypatch.setattr(token_scan, "OFFSET_CHUNK", 3)
    units, rows = _random_data(seed)
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": " ".join(unit)} for unit in units])
    backend = EmbeddedBackend(tmp_path / "indexes", shard_rows=7)
    backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
    _check_against_definition(backend.open(str(train), hash_bits=hash_bits), units, rows, seed)


@pytest.mark.parametrize("seed", range(3))
def test_every_backend_matches_the_definition(tmp_path: Path, monkeypatch, write_jsonl, make_backend, seed):
    """The contract: on random data, every backend gives the definition's scores, matches and matched units.

    Elasticsearch pages of 3 hits and msearch batches of 4 searches make every query page with search_after.
    """
    from genbench.contamination._es import text_index as es_text_index

    monkeypatch.setattr(es_text_index, "INSTANCES_PER_BATCH", 8)
    units, rows = _random_data(seed)
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": " ".join(unit)} for unit in units])
    backend = make_backend(shard_rows=7, page_size=3, msearch_batch=4)
    backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
    _check_against_definition(backend.open(str(train)), units, rows, seed)


def _check_against_definition(index, units: list[list[str]], rows: list[tuple[str, ...]], seed: int) -> None:
    unit_tokens = [analysis.tokenize(" ".join(unit)) for unit in units]
    fields = tuple(f"f{i}" for i in range(len(rows[0])))
    test_set = TestSet("random", fields, rows)
    rng = random.Random(seed)

    # Each n-gram size twice: the first search of a size reads the token file (embedded: .token_scan), the second
    # builds and uses the n-gram table.
    for ngram_size in [None, 1, 1, 2, 2, 3, 3, 5, 5]:
        threshold = rng.choice([None, 0.0, 0.25, 0.5]) if ngram_size else None
        result = index.search(test_set, SearchMode.create(ngram_size=ngram_size, match_threshold=threshold))
        expected_units = set()
        for number, row in enumerate(rows):
            row_tokens = [analysis.tokenize(text) for text in row]
            score, best = analysis.best_match(row_tokens, unit_tokens, ngram_size)
            instance = result.instances[number]
            assert instance.raw_score == score, (ngram_size, row)
            assert instance.score == analysis.apply_threshold(score, threshold)
            assert not instance.truncated
            if best is None:
                assert instance.matches == []
                continue
            match = instance.matches[0]
            assert match.unit_id == best and match.original_id == best
            if ngram_size is not None:
                for field, tokens in zip(match.fields, row_tokens, strict=True):
                    mask = analysis.matched_mask(tokens, unit_tokens[best], ngram_size)
                    assert field["matched"] == sum(mask)
                    start, end = analysis.longest_run(mask)
                    if end > start:
                        assert field["span"] == [start, end]
                        assert field["span_text"] == " ".join(tokens[start:end])
            for unit_number, tokens in enumerate(unit_tokens):
                pair = analysis.pair_score(row_tokens, tokens, ngram_size)
                if (pair > threshold) if threshold is not None else pair == 1.0:
                    expected_units.add(unit_number)
        if result.matched_units is not None:
            assert result.matched_units.tolist() == sorted(expected_units)
            assert result.matched_rows.tolist() == sorted(expected_units)


def test_collisions_are_recorded_as_impure(tmp_path: Path, write_jsonl):
    units, _ = _random_data(0)
    train = write_jsonl(tmp_path / "train.jsonl", [{"text": " ".join(unit)} for unit in units])
    backend = EmbeddedBackend(tmp_path / "indexes")
    backend.build(load_training_dataset(str(train)), UnitSpec(text_field="text"))
    table = backend.open(str(train), hash_bits=6).table(3)
    assert len(table.impure) > 0  # 5^3 = 125 distinct 3-grams cannot fit 64 prefixes


def _random_text(rng: random.Random) -> str:
    alphabet = ["a", "B", "z", "_", "7", " ", " ", ",", ".", "'", "é", "É", "ß", "東", "京", "Σ", "\u00a0", "\n", "-"]
    pieces = [rng.choice(alphabet) for _ in range(rng.randint(0, 30))]
    if rng.random() < 0.2:
        pieces.append("x" * rng.randint(7, 20))  # tokens longer than 8 bytes take another path
    if rng.random() < 0.05:
        pieces.append(rng.choice(["\x00", "\x1e"]))  # the separators the fast paths use
    return "".join(pieces)


@pytest.mark.parametrize("seed", range(5))
def test_vectorised_tokenizer_matches_the_analyzer(seed: int):
    rng = random.Random(seed)
    vocabulary = Vocabulary()
    for _ in range(5):
        texts = [_random_text(rng) for _ in range(rng.randint(0, 60))]
        if rng.random() < 0.5:
            texts = [t.encode("ascii", "ignore").decode() for t in texts]  # all-ASCII batches
        ids, lengths = vocabulary.encode(texts)
        assert lengths.tolist() == [len(analysis.tokenize(t)) for t in texts]
        assert [vocabulary.words[i] for i in ids] == [tok for t in texts for tok in analysis.tokenize(t)]
    assert len(set(vocabulary.words)) == len(vocabulary.words)
    frozen = Vocabulary(vocabulary.words)
    ids, _ = frozen.encode(["a b unseen-token"], grow=False)
    assert ids[-1] == -1 and len(frozen) == len(vocabulary)
    assert np.array_equal(frozen.encode(["A, b"], grow=False)[0], vocabulary.encode(["a b"], grow=False)[0])
