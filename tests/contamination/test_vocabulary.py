"""The vocabulary of the embedded index (packed ASCII tokens and the analyzer's path) against the analyzer."""

from __future__ import annotations

import numpy as np

from genbench.contamination._analysis import tokenize
from genbench.contamination._embedded.tokens import UNKNOWN, Vocabulary


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
