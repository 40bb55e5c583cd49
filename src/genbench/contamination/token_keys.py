"""64-bit keys of the analyzer's tokens, straight from Arrow string arrays: the one-shot scan's tokeniser.

The scan (:mod:`~genbench.contamination.scan`) never needs token ids, only a way to tell tokens apart quickly: each
token gets a 64-bit *key*. A token of at most 8 bytes (UTF-8) *is* its key (its bytes, little-endian, zero-padded):
equal keys mean equal tokens. A longer token's key is a hash of its bytes, so equal keys only suggest equal tokens;
the scan compares the strings of such tokens before it counts a match (:attr:`TokenKeys.lengths` tells which).

Pure-ASCII texts (most of English data) are tokenised on the bytes of the Arrow buffer with numpy, with no Python
string per text or per token: one ``bytes.translate`` lower-cases and maps every byte that is not a word character
to a space, and tokens are the runs between spaces. Other texts go through the analyzer itself
(:func:`~genbench.contamination.analysis.tokenize_joined`). Both give the tokens of
:func:`~genbench.contamination.analysis.tokenize` (the tests check it on random text).

>>> import pyarrow as pa
>>> keys = unit_token_keys(pa.array(["Hi, THERE!", "", "héllo there"]))
>>> keys.first.tolist(), bool(keys.keys[1] == keys.keys[3]), bool(keys_of_tokens(["hi"])[0][0] == keys.keys[0])
([0, 2, 2, 4], True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from genbench.contamination.analysis import SEPARATOR, tokenize_joined

if TYPE_CHECKING:
    import pyarrow as pa

PACKED_BYTES = 8
"""Tokens of at most this many bytes are their own key."""
_SPACE = ord(" ")
_WORD_BYTES = b"abcdefghijklmnopqrstuvwxyz0123456789_"
# Lower-case and keep word bytes, every other byte a space, in one table (ASCII: bytes.lower() is str.lower()).
_LOWER_WORDS = bytes(
    (b if bytes([b]).lower() in _WORD_BYTES else _SPACE) if b < 128 else _SPACE
    for b in (ord(chr(i).lower()) if i < 128 else i for i in range(256))
)
_KEY_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_LONG_SEED = np.uint64(0x243F6A8885A308D3)
_LONG_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xFF51AFD7ED558CCD)
_MIX2 = np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT = np.uint64(33)


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


def _mix(values: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser, in place."""
    values ^= values >> _SHIFT
    values *= _MIX1
    values ^= values >> _SHIFT
    values *= _MIX2
    values ^= values >> _SHIFT
    return values


def span_keys(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Keys of the byte spans ``raw[s:e]`` (``raw`` has at least 8 bytes of padding after the last span).

    Spans of up to 8 bytes are packed; longer spans are hashed, 8 bytes at a time, with their length.
    """
    lengths = ends - starts
    windows = np.lib.stride_tricks.as_strided(raw, shape=(max(len(raw) - 7, 0), 8), strides=(1, 1))
    keys = np.ascontiguousarray(windows[starts]).view("<u8").ravel()
    keys &= _KEY_MASKS[np.minimum(lengths, PACKED_BYTES)]
    long = np.flatnonzero(lengths > PACKED_BYTES)
    if len(long):
        # Long tokens are few: hash them word by word, the set still holding words shrinking each round.
        hashes = np.full(len(long), _LONG_SEED, dtype=np.uint64) ^ lengths[long].astype(np.uint64)
        position, remaining = starts[long].copy(), lengths[long].copy()
        active = np.arange(len(long))
        while len(active):
            words = np.ascontiguousarray(windows[position[active]]).view("<u8").ravel()
            words &= _KEY_MASKS[np.minimum(remaining[active], PACKED_BYTES)]
            hashes[active] = (hashes[active] ^ words) * _LONG_MULTIPLIER
            position[active] += PACKED_BYTES
            remaining[active] -= PACKED_BYTES
            active = active[remaining[active] > 0]
        keys[long] = _mix(hashes)
    return keys


def _spaced_spans(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and ends of the runs of non-space bytes of ``raw`` (which ends with a space)."""
    in_token = np.zeros(len(raw) + 1, dtype=bool)
    in_token[1:] = raw != _SPACE
    edges = np.flatnonzero(in_token[1:] != in_token[:-1])
    return edges[0::2], edges[1::2]


def keys_of_tokens(tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Keys and byte lengths of analyzer tokens (strings without spaces).

    >>> keys, lengths = keys_of_tokens(["ab", "a_very_long_token"])
    >>> int(keys[0]) == int.from_bytes(b"ab", "little"), lengths.tolist()
    (True, [2, 17])
    """
    if not tokens:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    raw = np.frombuffer(" ".join(tokens).encode("utf-8") + b" " * 9, dtype=np.uint8)
    starts, ends = _spaced_spans(raw)
    return span_keys(raw, starts, ends), ends - starts


def _ascii_keys(texts: pa.Array) -> TokenKeys:
    """The byte path: ASCII texts joined with spaces in Arrow, tokens cut with numpy."""
    import pyarrow as pa
    import pyarrow.compute as pc

    count = len(texts)
    one_list = pa.ListArray.from_arrays(pa.array([0, count], type=pa.int32()), texts)
    joined = pc.binary_join(one_list, " ")[0].as_buffer()
    data = (joined.to_pybytes() if joined is not None else b"").translate(_LOWER_WORDS) + b" " * 9
    raw = np.frombuffer(data, dtype=np.uint8)
    starts, ends = _spaced_spans(raw)
    # Where each text starts in the joined bytes: its offset plus one space per text before it.
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32, count=count + 1, offset=texts.offset * 4)
    text_starts = offsets[:-1].astype(np.int64) - int(offsets[0]) + np.arange(count, dtype=np.int64)
    first = np.empty(count + 1, dtype=np.int64)
    first[:-1] = np.searchsorted(starts, text_starts)
    first[-1] = len(starts)
    return TokenKeys(span_keys(raw, starts, ends), ends - starts, first)


def _analyzer_keys(texts: list[str]) -> TokenKeys:
    """The analyzer's path, for any text."""
    tokens = tokenize_joined(texts) if texts else []
    separators = [number for number, token in enumerate(tokens) if token == SEPARATOR]
    counts = np.diff(np.array([-1, *separators, len(tokens)], dtype=np.int64)) - 1 if texts else np.zeros(0, int)
    kept = [token for token in tokens if token != SEPARATOR] if separators else tokens
    keys, lengths = keys_of_tokens(kept)
    first = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    return TokenKeys(keys, lengths, first)


def unit_token_keys(texts: pa.Array) -> TokenKeys:
    """The token keys of every text of an Arrow string array (nulls count as empty texts).

    ASCII texts take the byte path; the others the analyzer's, and the two are put back in text order.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_string(texts.type):
        texts = pc.cast(texts, pa.string())
    texts = pc.fill_null(texts, "")
    if len(texts) == 0:
        return TokenKeys(np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64))
    is_ascii = pc.string_is_ascii(texts)
    if pc.all(is_ascii).as_py():
        return _ascii_keys(texts)
    ascii_mask = is_ascii.to_numpy(zero_copy_only=False)
    ascii_rows, other_rows = np.flatnonzero(ascii_mask), np.flatnonzero(~ascii_mask)
    parts = [
        _ascii_keys(texts.take(pa.array(ascii_rows))),
        _analyzer_keys(texts.take(pa.array(other_rows)).to_pylist()),
    ]
    # Put the two groups' tokens back in text order.
    counts = np.empty(len(texts), dtype=np.int64)
    source_start = np.empty(len(texts), dtype=np.int64)
    base = 0
    for rows, part in zip((ascii_rows, other_rows), parts, strict=True):
        counts[rows] = np.diff(part.first)
        source_start[rows] = part.first[:-1] + base
        base += len(part.keys)
    first = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(counts, out=first[1:])
    gather = np.arange(int(first[-1]), dtype=np.int64) + np.repeat(source_start - first[:-1], counts)
    keys = np.concatenate([part.keys for part in parts])[gather]
    lengths = np.concatenate([part.lengths for part in parts])[gather]
    return TokenKeys(keys, lengths, first)
