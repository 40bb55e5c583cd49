"""Token ids for many texts at once: the analyzer of :mod:`~genbench.contamination._analysis`, vectorised.

ASCII texts are tokenised on their bytes with numpy (a token of up to 8 bytes is its own 64-bit key), others by the
analyzer itself; both feed one vocabulary, so a token has one id however it was found.
See docs/contamination.md#how-the-embedded-index-works.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from genbench.contamination._analysis import SEPARATOR, tokenize_joined
from genbench.contamination._embedded.packed_table import PackedTable

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


class Vocabulary:
    """Token strings to dense ids, in order of first appearance (within a call, tokens of up to 8 ASCII bytes first).

    Args:
        words: The tokens of ids ``0, 1, ...`` (e.g. read back from an index).
    """

    def __init__(self, words: Iterable[str] = ()):
        self.words: list[str] = []
        self.ids: dict[str, int] = {SEPARATOR: _SEPARATOR_ID, _ASCII_SEPARATOR: _SEPARATOR_ID}
        # Packed ASCII tokens and their ids, looked up a whole array at a time (a dict lookup per token cost a
        # quarter of an index build); a token is added on its first miss, found by its word.
        self._packed = PackedTable()
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

    def _packed_ids(self, keys: np.ndarray, grow: bool) -> np.ndarray:
        """The ids of packed ASCII tokens; those not in the packed table are looked up (or added) by word, in order
        of first appearance."""
        ids = self._packed.get(keys, UNKNOWN)
        ids[keys == 0] = _SEPARATOR_ID  # the separator byte packs to 0, which the table cannot hold
        missing = np.flatnonzero(ids == UNKNOWN)
        if not len(missing):
            return ids
        distinct, first, inverse = np.unique(keys[missing], return_index=True, return_inverse=True)
        distinct_ids = np.empty(len(distinct), dtype=np.int64)
        for position in np.argsort(first, kind="stable").tolist():
            word = int(distinct[position]).to_bytes(8, "little").rstrip(b"\x00").decode("ascii")
            distinct_ids[position] = self._id(word, grow)
        known = distinct_ids != UNKNOWN
        self._packed.insert(distinct[known], distinct_ids[known])
        ids[missing] = distinct_ids[inverse.reshape(-1)]
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
            ids[short] = self._packed_ids(keys, grow)
        long = np.flatnonzero(lengths > 8)
        if len(long):
            ids[long] = [
                self._id(data[s:e].decode("ascii"), grow)
                for s, e in zip(starts[long].tolist(), ends[long].tolist(), strict=True)
            ]
        return self._lengths(ids, len(texts))
