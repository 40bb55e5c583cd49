"""Token ids for many texts at once: the analyzer of :mod:`~genbench.contamination._analysis`, vectorised.

ASCII texts are tokenised on their bytes with numpy (a token of up to 8 bytes is its own 64-bit key), others by the
analyzer itself; both feed one vocabulary, so a token has one id however it was found.
See docs/contamination.md#how-the-embedded-index-works.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from genbench.contamination._analysis import SEPARATOR, tokenize_joined
from genbench.data._arrow_values import integer_array, integers_to_numpy

UNKNOWN = -1
"""The id of a token the vocabulary does not hold (when it is not allowed to grow)."""
_SEPARATOR_ID = -2
_ASCII_SEPARATOR = "\x00"  # neither a word character nor whitespace to str.split
_ASCII_JOIN = f" {_ASCII_SEPARATOR} "
_WORD_BYTES = "abcdefghijklmnopqrstuvwxyz0123456789_"
_ASCII_TABLE = str.maketrans(
    {i: (chr(i) if chr(i) in _WORD_BYTES or chr(i) == _ASCII_SEPARATOR else " ") for i in range(128)}
)
# The same mapping on bytes, applied after bytes.lower() (for ASCII text the same as str.lower()): bytes.translate
# is one table lookup per byte, several times faster than str.lower().translate() on the text.
_ASCII_BYTES_TABLE = bytes(ord(_ASCII_TABLE[i]) for i in range(128)) + b" " * 128
_SPACE = ord(" ")
_KEY_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def _factorize(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, uniques)`` with ``uniques[codes] == keys``, uniques in order of first appearance (pyarrow's hash
    table: much faster than sorting; through Arrow buffers, so that pyarrow does not import pandas)."""
    encoded = integer_array(keys, np.uint64).dictionary_encode()
    return integers_to_numpy(encoded.indices).astype(np.int64), integers_to_numpy(encoded.dictionary)


class Vocabulary:
    """Token strings to dense ids, in order of first appearance (within a call, tokens of up to 8 ASCII bytes first).

    Args:
        words: The tokens of ids ``0, 1, ...`` (e.g. read back from an index).
    """

    def __init__(self, words: Iterable[str] = ()):
        self.words: list[str] = []
        self.ids: dict[str, int] = {SEPARATOR: _SEPARATOR_ID, _ASCII_SEPARATOR: _SEPARATOR_ID}
        # Packed ASCII tokens (sorted) and their ids: looked up with one binary search per distinct token of a call
        # (a dict lookup per token cost a quarter of an index build).
        self._packed = np.zeros(1, dtype=np.uint64)
        self._packed_ids = np.full(1, _SEPARATOR_ID, dtype=np.int64)
        self.extend(words)

    def __len__(self) -> int:
        return len(self.words)

    def extend(self, words: Iterable[str]) -> None:
        """Add tokens (in id order) that are known to be new."""
        added = list(words)
        first = len(self.words)
        self.ids.update(zip(added, range(first, first + len(added)), strict=True))
        self.words.extend(added)

    def _id(self, word: str, grow: bool) -> int:
        found = self.ids.get(word)
        if found is None:
            if not grow:
                return UNKNOWN
            found = self.ids[word] = len(self.words)
            self.words.append(word)
        return found

    def encode(self, texts: Sequence[str], *, grow: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The token ids of all texts, concatenated, and the number of tokens of each text.

        Args:
            texts: The texts.
            grow: Give new tokens new ids; otherwise they get :data:`UNKNOWN`.

        >>> vocabulary = Vocabulary()
        >>> ids, lengths = vocabulary.encode(["Hello, World!", "héllo world", ""])
        >>> [vocabulary.words[i] for i in ids], lengths.tolist()
        (['hello', 'world', 'héllo', 'world'], [2, 2, 0])
        """
        if all(map(str.isascii, texts)):
            return self._encode_ascii(texts, grow)
        ascii_rows = [number for number, text in enumerate(texts) if text.isascii()]
        if not ascii_rows:
            return self._encode_any(texts, grow)
        other_rows = [number for number, text in enumerate(texts) if not text.isascii()]
        ascii_ids, ascii_lengths = self._encode_ascii([texts[i] for i in ascii_rows], grow)
        other_ids, other_lengths = self._encode_any([texts[i] for i in other_rows], grow)
        # Put the two groups' tokens back in text order.
        lengths = np.empty(len(texts), dtype=np.int64)
        lengths[ascii_rows] = ascii_lengths
        lengths[other_rows] = other_lengths
        source_start = np.empty(len(texts), dtype=np.int64)
        source_start[ascii_rows] = np.cumsum(ascii_lengths) - ascii_lengths
        source_start[other_rows] = np.cumsum(other_lengths) - other_lengths + len(ascii_ids)
        target_start = np.cumsum(lengths) - lengths
        gather = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(source_start - target_start, lengths)
        return np.concatenate([ascii_ids, other_ids])[gather], lengths

    @staticmethod
    def _lengths(ids: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Split ids at separators: (ids without separators, tokens per text)."""
        if count == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        separators = np.flatnonzero(ids == _SEPARATOR_ID)
        lengths = np.diff(np.concatenate([[-1], separators, [len(ids)]])) - 1
        return ids[ids != _SEPARATOR_ID], lengths

    def _encode_any(self, texts: Sequence[str], grow: bool) -> tuple[np.ndarray, np.ndarray]:
        """The analyzer itself (regex), for any text."""
        items = tokenize_joined(texts) if texts else []
        if grow:
            ids = self.ids
            for word in dict.fromkeys(items):
                if word not in ids:
                    ids[word] = len(self.words)
                    self.words.append(word)
            encoded = np.fromiter(map(ids.__getitem__, items), dtype=np.int64, count=len(items))
        else:
            get = self.ids.get
            encoded = np.fromiter((get(w, UNKNOWN) for w in items), dtype=np.int64, count=len(items))
        return self._lengths(encoded, len(texts))

    def _packed_lookup(self, keys: np.ndarray, grow: bool) -> np.ndarray:
        """The ids of distinct packed ASCII tokens; those not seen packed before are looked up (or added) by word."""
        order = np.argsort(keys)  # sorted values are searched several times faster (cache-friendly)
        where = np.empty(len(keys), dtype=np.int64)
        where[order] = np.minimum(np.searchsorted(self._packed, keys[order]), len(self._packed) - 1)
        found = self._packed[where] == keys
        ids = np.where(found, self._packed_ids[where], UNKNOWN)
        new_keys, new_ids = [], []
        for position in np.flatnonzero(~found).tolist():
            key = int(keys[position])
            word = key.to_bytes(8, "little").rstrip(b"\x00").decode("ascii")
            ids[position] = token_id = self._id(word, grow)
            if token_id != UNKNOWN:
                new_keys.append(key)
                new_ids.append(token_id)
        if new_keys:
            added = np.array(new_keys, dtype=np.uint64)
            order = np.argsort(added)
            at = np.searchsorted(self._packed, added[order])
            self._packed = np.insert(self._packed, at, added[order])
            self._packed_ids = np.insert(self._packed_ids, at, np.array(new_ids, dtype=np.int64)[order])
        return ids

    def _encode_ascii(self, texts: Sequence[str], grow: bool) -> tuple[np.ndarray, np.ndarray]:
        """ASCII texts, on their bytes."""
        joined = _ASCII_JOIN.join(texts)
        if joined.count(_ASCII_SEPARATOR) != max(len(texts) - 1, 0) or not texts:
            return self._encode_any(texts, grow)  # a text holds the separator byte itself
        data = joined.encode("ascii").lower().translate(_ASCII_BYTES_TABLE) + b" " * 8
        raw = np.frombuffer(data, dtype=np.uint8)
        in_token = np.zeros(len(raw) + 1, dtype=bool)
        in_token[1:] = raw != _SPACE
        edges = np.flatnonzero(in_token[1:] != in_token[:-1])
        starts, ends = edges[0::2], edges[1::2]
        lengths = ends - starts
        ids = np.empty(len(starts), dtype=np.int64)

        short = np.flatnonzero(lengths <= 8)
        if len(short):
            # The 8 bytes at each token start, as one little-endian word (every byte offset viewed as the start of an
            # unaligned uint64, no copy), cut to the token's length.
            words = np.ndarray(shape=(len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
            keys = words[starts[short]]
            keys &= _KEY_MASKS[lengths[short]]
            codes, uniques = _factorize(keys)
            unique_ids = self._packed_lookup(uniques, grow)
            ids[short] = unique_ids[codes]
        long = np.flatnonzero(lengths > 8)
        if len(long):
            ids[long] = [
                self._id(data[s:e].decode("ascii"), grow)
                for s, e in zip(starts[long].tolist(), ends[long].tolist(), strict=True)
            ]
        return self._lengths(ids, len(texts))
