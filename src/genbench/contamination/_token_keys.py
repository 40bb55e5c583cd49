"""64-bit keys of the analyzer's tokens, straight from the bytes of an Arrow buffer: the one-shot scan's tokeniser.

A token of at most 8 bytes *is* its key; a longer one's key is a hash, so the scan compares such tokens as strings
(:attr:`TokenKeys.lengths`). ASCII texts are tokenised on their bytes with numpy, others by the analyzer; both give
the tokens of :func:`~genbench.contamination._analysis.tokenize`. See docs/contamination.md#one-shot-scan-no-index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench.contamination._analysis import SEPARATOR, tokenize_joined
from genbench.contamination._hashing import mix
from genbench.data._arrow_values import valid_to_numpy

if TYPE_CHECKING:
    import pyarrow as pa

PACKED_BYTES = 8
"""Tokens of at most this many bytes are their own key."""
_SPACE = ord(" ")
_PADDING = b" " * 9
_WORD_BYTES = b"abcdefghijklmnopqrstuvwxyz0123456789_"
# Lower-case and keep word bytes, every other byte a space, in one table (ASCII: bytes.lower() is str.lower()).
_LOWER_WORDS = bytes(
    (b if bytes([b]) in _WORD_BYTES else _SPACE) if b < 128 else _SPACE
    for b in (ord(chr(i).lower()) if i < 128 else i for i in range(256))
)
_KEY_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_LONG_SEED = np.uint64(0x243F6A8885A308D3)
_LONG_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


@dataclass
class TokenKeys:
    """The tokens of a sequence of texts (units), as keys.

    Attributes:
        keys: ``uint64`` key of every token, the texts' tokens concatenated.
        lengths: Bytes of every token (a token longer than :data:`PACKED_BYTES` has a hashed key).
        first: ``int64``, where each text's tokens start in ``keys``; one more than texts (the last is the total).
    """

    keys: np.ndarray
    lengths: np.ndarray
    first: np.ndarray


def span_keys(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Keys of the byte spans ``raw[s:e]`` (``raw`` has at least 8 bytes of padding after the last span).

    Spans of up to 8 bytes are packed; longer spans are hashed, 8 bytes at a time, with their length.
    """
    lengths = ends - starts
    # Every byte offset viewed as the start of a little-endian uint64 (unaligned, no copy).
    words = np.ndarray(shape=(max(len(raw) - 7, 0),), dtype="<u8", buffer=raw, strides=(1,))
    keys = words[starts]
    keys &= _KEY_MASKS[np.minimum(lengths, PACKED_BYTES)]
    long = np.flatnonzero(lengths > PACKED_BYTES)
    if len(long):
        # Long tokens are few: hash them word by word, the set still holding words shrinking each round.
        hashes = np.full(len(long), _LONG_SEED, dtype=np.uint64) ^ lengths[long].astype(np.uint64)
        position, remaining = starts[long].copy(), lengths[long].copy()
        active = np.arange(len(long))
        while len(active):
            chunk = words[position[active]] & _KEY_MASKS[np.minimum(remaining[active], PACKED_BYTES)]
            hashes[active] = (hashes[active] ^ chunk) * _LONG_MULTIPLIER
            position[active] += PACKED_BYTES
            remaining[active] -= PACKED_BYTES
            active = active[remaining[active] > 0]
        keys[long] = mix(hashes)
    return keys


def keys_of_tokens(tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Keys and byte lengths of analyzer tokens (strings without spaces).

    >>> keys, lengths = keys_of_tokens(["ab", "a_very_long_token"])
    >>> int(keys[0]) == int.from_bytes(b"ab", "little"), lengths.tolist()
    (True, [2, 17])
    """
    if not tokens:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    raw = np.frombuffer(" ".join(tokens).encode("utf-8") + _PADDING, dtype=np.uint8)
    in_token = np.zeros(len(raw) + 1, dtype=bool)
    in_token[1:] = raw != _SPACE
    edges = np.flatnonzero(in_token[1:] != in_token[:-1])
    starts, ends = edges[0::2], edges[1::2]
    return span_keys(raw, starts, ends), ends - starts


def _byte_mask(size: int, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``True`` on the bytes inside the (sorted, disjoint) ranges ``[starts, ends)``: alternating runs of ``False``
    (before each range) and ``True`` (the range), laid out by ``np.repeat``."""
    bounds = np.empty(2 * len(starts) + 2, dtype=np.int64)
    bounds[0], bounds[-1] = 0, size
    bounds[1:-1:2], bounds[2:-1:2] = starts, ends
    flags = np.zeros(len(bounds) - 1, dtype=bool)
    flags[1::2] = True
    return np.repeat(flags, np.diff(bounds))


def span_token_keys(data: Any, starts: np.ndarray, ends: np.ndarray) -> TokenKeys:
    """The token keys of the texts ``data[starts[i]:ends[i]]`` (UTF-8; ranges sorted and disjoint).

    Args:
        data: The bytes (``bytes`` or a ``pyarrow.Buffer``).
        starts: Where each text starts.
        ends: Where each text ends.

    >>> data = "Hi, THERE!?héllo there".encode()
    >>> keys = span_token_keys(data, np.array([0, 10, 10]), np.array([10, 10, len(data)]))
    >>> keys.first.tolist(), bool(keys.keys[1] == keys.keys[3]), bool(keys_of_tokens(["hi"])[0][0] == keys.keys[0])
    ([0, 2, 2, 4], True, True)
    """
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    count = len(starts)
    if count == 0:
        return TokenKeys(np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64))
    raw_bytes = data if isinstance(data, bytes) else memoryview(data).tobytes()
    lowered = raw_bytes.translate(_LOWER_WORDS) + _PADDING
    raw = np.frombuffer(lowered, dtype=np.uint8)
    original = np.frombuffer(raw_bytes, dtype=np.uint8)
    other = np.zeros(count, dtype=bool)
    high = np.flatnonzero(original >= 128)
    if len(high):  # texts holding non-ASCII bytes take the analyzer's path
        owner = np.searchsorted(starts, high, side="right") - 1
        inside = (owner >= 0) & (high < ends[np.maximum(owner, 0)])
        other[np.unique(owner[inside])] = True
    ascii_rows = np.flatnonzero(~other)
    # in_token[i + 1]: byte i is a word byte of an ASCII text; a False before and after bounds every run.
    in_token = np.zeros(len(raw) + 1, dtype=bool)
    np.not_equal(raw, _SPACE, out=in_token[1:])
    covers_all = starts[0] == 0 and ends[-1] == len(raw_bytes) and np.array_equal(starts[1:], ends[:-1])
    if len(ascii_rows) < count or not covers_all:
        # Bytes between or outside the ASCII texts (other texts, other messages) are not tokens.
        in_token[1 : len(raw_bytes) + 1] &= _byte_mask(len(raw_bytes), starts[ascii_rows], ends[ascii_rows])
    token_starts, token_ends = _runs(in_token, starts[ascii_rows])
    first = np.empty(len(ascii_rows) + 1, dtype=np.int64)
    first[:-1] = np.searchsorted(token_starts, starts[ascii_rows])
    first[-1] = len(token_starts)
    ascii_part = TokenKeys(span_keys(raw, token_starts, token_ends), token_ends - token_starts, first)
    if len(ascii_rows) == count:
        return ascii_part
    other_rows = np.flatnonzero(other)
    texts = [
        raw_bytes[s:e].decode("utf-8")
        for s, e in zip(starts[other_rows].tolist(), ends[other_rows].tolist(), strict=True)
    ]
    return _in_text_order([(ascii_rows, ascii_part), (other_rows, _analyzer_keys(texts))], count)


def _runs(in_token: np.ndarray, text_starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and ends of the runs of word bytes (``in_token[i + 1]`` for byte ``i``; it begins and ends with
    ``False``), split where a text starts."""
    edges = np.flatnonzero(in_token[1:] != in_token[:-1])
    starts, ends = edges[0::2], edges[1::2]
    # A text that starts right after a word byte of the text before it (no separator between them) starts a token.
    joined = text_starts[(text_starts > 0) & in_token[text_starts + 1] & in_token[text_starts]]
    if len(joined):
        joined = np.unique(joined)  # an empty text and the next one start at the same byte
        starts = np.insert(starts, np.searchsorted(starts, joined), joined)
        ends = np.insert(ends, np.searchsorted(ends, joined), joined)
    return starts, ends


def _analyzer_keys(texts: list[str]) -> TokenKeys:
    """The analyzer's path, for any text."""
    tokens = tokenize_joined(texts) if texts else []
    separators = [number for number, token in enumerate(tokens) if token == SEPARATOR]
    counts = np.diff(np.array([-1, *separators, len(tokens)], dtype=np.int64)) - 1
    kept = [token for token in tokens if token != SEPARATOR] if separators else tokens
    keys, lengths = keys_of_tokens(kept)
    first = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    return TokenKeys(keys, lengths, first)


def _in_text_order(parts: list[tuple[np.ndarray, TokenKeys]], count: int) -> TokenKeys:
    """Put the tokens of groups of texts (rows, keys) back in text order."""
    counts = np.empty(count, dtype=np.int64)
    source_start = np.empty(count, dtype=np.int64)
    base = 0
    for rows, part in parts:
        counts[rows] = np.diff(part.first)
        source_start[rows] = part.first[:-1] + base
        base += len(part.keys)
    first = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    gather = np.arange(int(first[-1]), dtype=np.int64) + np.repeat(source_start - first[:-1], counts)
    keys = np.concatenate([part.keys for _, part in parts])[gather]
    lengths = np.concatenate([part.lengths for _, part in parts])[gather]
    return TokenKeys(keys, lengths, first)


def string_spans(texts: pa.Array) -> tuple[Any, np.ndarray, np.ndarray]:
    """The data buffer of an Arrow string (or large string) array and each string's byte range in it (nulls are
    empty)."""
    import pyarrow as pa

    if not (pa.types.is_string(texts.type) or pa.types.is_large_string(texts.type)):
        raise TypeError(f"a string array is needed, not {texts.type}")
    _, offsets_buffer, data = texts.buffers()
    count, offset = len(texts), texts.offset
    if count == 0 or data is None:
        empty = np.zeros(count, dtype=np.int64)
        return b"", empty, empty.copy()
    width = np.int64 if pa.types.is_large_string(texts.type) else np.int32
    size = np.dtype(width).itemsize
    offsets = np.frombuffer(offsets_buffer, dtype=width, count=count + 1, offset=offset * size).astype(np.int64)
    starts, ends = offsets[:-1], offsets[1:].copy()
    valid = valid_to_numpy(texts)
    ends[~valid] = starts[~valid]
    return data, starts, ends
