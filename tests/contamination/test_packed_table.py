"""The packed-token hash table against a dict, and the vocabulary built through it against the analyzer."""

from __future__ import annotations

import numpy as np

from genbench.contamination._analysis import tokenize
from genbench.contamination._embedded.packed_table import PackedTable
from genbench.contamination._embedded.tokens import UNKNOWN, Vocabulary


def test_lookups_and_insertions_agree_with_a_dict_through_growth_and_collisions() -> None:
    rng = np.random.default_rng(7)
    table, reference = PackedTable(), {}
    for _ in range(40):
        # Keys clustered in a narrow range collide in the table's slots; the table grows past its first size.
        keys = rng.integers(1, 300_000, size=5_000).astype(np.uint64)
        got = table.get(keys, -1)
        assert got.tolist() == [reference.get(k, -1) for k in keys.tolist()]
        new = np.unique(keys[got == -1])
        values = np.arange(len(reference), len(reference) + len(new))
        table.insert(new, values)
        reference.update(zip(new.tolist(), values.tolist(), strict=True))
    assert len(table) == len(reference) > 1 << 16
    every = np.array(list(reference), dtype=np.uint64)
    assert table.get(every, -1).tolist() == list(reference.values())


def test_vocabulary_ids_follow_first_appearance_and_match_the_analyzer() -> None:
    rng = np.random.default_rng(3)
    letters = np.array(list("abcdefghij_0123"))
    words = ["".join(rng.choice(letters, size=rng.integers(1, 12))) for _ in range(3_000)]
    texts = [" ".join(rng.choice(words, size=rng.integers(0, 40))) + "," for _ in range(2_000)]
    vocabulary = Vocabulary()
    ids, lengths = vocabulary.encode(texts[:1_000])
    more_ids, more_lengths = vocabulary.encode(texts[1_000:])
    expected = [token for text in texts for token in tokenize(text)]
    decoded = [vocabulary.words[i] for i in np.concatenate([ids, more_ids]).tolist()]
    assert decoded == expected
    assert np.concatenate([lengths, more_lengths]).tolist() == [len(tokenize(text)) for text in texts]
    # One id per distinct token, dense; tokens of up to 8 bytes (the packed ones) numbered in order of first
    # appearance (longer ones are numbered after them, call by call).
    assert sorted(vocabulary.words) == sorted(set(expected))
    short = [word for word in vocabulary.words if len(word) <= 8]
    assert short == list(dict.fromkeys(word for word in expected if len(word) <= 8))
    frozen, _ = vocabulary.encode(["zzz " + texts[0]], grow=False)
    assert frozen[0] == UNKNOWN and frozen[1:].tolist() == ids[: lengths[0]].tolist()
