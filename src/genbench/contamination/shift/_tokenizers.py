"""How a corpus's text is cut into tokens for shift statistics: ``bytes``, ``words`` (the contamination analyzer) or
``hf`` (a model's local ``tokenizer.json``).

Every corpus index records its tokenizer's name and an engine refuses a test set tokenized otherwise; each token
keeps the character span it came from (:func:`tokenizer_named`). See docs/shift.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from genbench.contamination._analysis import TOKEN_PATTERN, lower
from genbench.contamination._errors import ContaminationError

TOKENIZERS = ("bytes", "words", "hf")
"""The tokenizers genbench cuts test text with."""
HF_TOKENIZER_FILE = "tokenizer.json"
"""The file an ``hf`` index keeps its tokenizer in (a Hugging Face ``tokenizers`` file)."""


@dataclass(frozen=True)
class SplitText:
    """A text cut into tokens.

    Attributes:
        text: The text.
        units: The tokens (byte values for ``bytes``, strings for ``words``).
        spans: For each token, the ``(start, end)`` characters of ``text`` it covers.
    """

    text: str
    units: list[int] | list[str]
    spans: list[tuple[int, int]]

    def characters(self, start: int, end: int) -> tuple[int, int]:
        """The characters ``(first, past_last)`` covered by the tokens ``start:end`` (``end > start``)."""
        return self.spans[start][0], self.spans[end - 1][1]


class CorpusTokenizer(Protocol):
    """Cuts text into tokens the way a corpus index was built."""

    name: str

    def split(self, text: str) -> SplitText:
        """``text`` cut into tokens."""
        ...


class ByteTokenizer:
    """UTF-8 bytes: the tokens of infini-gram's byte-level indexes (no tokenizer to download)."""

    name = "bytes"

    def split(self, text: str) -> SplitText:
        units: list[int] = []
        spans: list[tuple[int, int]] = []
        for position, character in enumerate(text):
            encoded = character.encode("utf-8", errors="surrogatepass")
            units.extend(encoded)
            spans.extend([(position, position + 1)] * len(encoded))
        return SplitText(text, units, spans)


class WordTokenizer:
    """genbench's contamination analyzer (:func:`genbench.contamination._analysis.tokenize`), with spans.

    ``lower`` keeps the length of most texts; where it does not (a few characters lower-case to two), the spans
    are those of the lower-cased text, which the examples' JSONL shows.
    """

    name = "words"

    def split(self, text: str) -> SplitText:
        lowered = lower(text)
        source = text if len(lowered) == len(text) else lowered
        matches = list(TOKEN_PATTERN.finditer(lowered))
        return SplitText(source, [m.group() for m in matches], [m.span() for m in matches])


class HfTokenizer:
    """A Hugging Face ``tokenizers`` file (``tokenizer.json``): its token ids, no special tokens added."""

    name = "hf"

    def __init__(self, path: str | os.PathLike[str]):
        from tokenizers import Tokenizer

        try:
            self._tokenizer = Tokenizer.from_file(str(path))
        except Exception as exc:  # the Rust library raises its own exception type for any unreadable file
            raise ContaminationError(f"{path} cannot be read as a tokenizer.json ({exc}).") from None
        self.vocabulary_size = self._tokenizer.get_vocab_size(with_added_tokens=True)

    def split(self, text: str) -> SplitText:
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        return SplitText(text, list(encoding.ids), [tuple(span) for span in encoding.offsets])  # type: ignore[misc]


def tokenizer_named(name: str, folder: str | os.PathLike[str] | None = None) -> CorpusTokenizer:
    """The tokenizer called ``name`` (``hf``: the ``tokenizer.json`` in the index ``folder``).

    Raises:
        ContaminationError: no tokenizer has that name, or an ``hf`` index has no readable tokenizer file.

    >>> split = tokenizer_named("bytes").split("hé!")
    >>> split.units, split.spans
    ([104, 195, 169, 33], [(0, 1), (1, 2), (1, 2), (2, 3)])
    >>> tokenizer_named("words").split("Hello, World").units
    ['hello', 'world']
    """
    if name == "bytes":
        return ByteTokenizer()
    if name == "words":
        return WordTokenizer()
    if name == "hf":
        if folder is None:
            raise ContaminationError("An 'hf' tokenizer needs its tokenizer.json (give --tokenizer-file).")
        return HfTokenizer(Path(folder) / HF_TOKENIZER_FILE)
    raise ContaminationError(f"Unknown corpus tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}.")
