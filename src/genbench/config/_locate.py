"""Finding the line of a dotted config field in jsonnet source, for messages that name ``file:line``.

The source is tokenized by Pygments' Jsonnet lexer, so a field name inside a comment or string is never taken for
the field, and the object structure is read from the tokens, since neither jsonnet binding exposes a syntax tree.
A field defined more than once (``{a: 1} + {a: 2}``) is located where jsonnet takes it from: its last definition.
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass, field

from pygments.lexers.jsonnet import JsonnetLexer
from pygments.token import Comment, Keyword, Name, Operator, Punctuation, String, Text, _TokenType

Path = tuple[str | int, ...]

# A key separator: `:`, `::`, `:::`, each optionally after `+` (a field that merges into the inherited one).
_KEY_SEPARATORS = {":", "::", ":::", "+:", "+::", "+:::"}
_OPENERS = {"{": "object", "[": "array", "(": "group"}
_CLOSERS = {"}", "]", ")"}


class _Unnamed:
    """A path step no dotted field names: a local binding or a computed field name (``[expr]: ...``)."""

    def __repr__(self) -> str:
        return "<unnamed>"


_UNNAMED = _Unnamed()


@dataclass
class _Frame:
    """One open bracket: an object (keys), an array (elements) or parentheses (transparent)."""

    kind: str
    path: tuple[object, ...]
    key: object = None  # object: the field whose value is being read; array: unused
    index: int = 0  # array: the element being read
    element_started: bool = False  # array: the element's first token was seen
    computed_key: bool = False  # a `[expr]` field name, popped into its object's key


@dataclass
class _Definitions:
    """Where each dotted path is defined: path -> the lines of its definitions, in file order."""

    lines: dict[tuple[object, ...], list[int]] = field(default_factory=dict)

    def add(self, path: tuple[object, ...], line: int) -> None:
        self.lines.setdefault(path, []).append(line)


def _significant_tokens(source: str) -> list[tuple[int, _TokenType, str]]:
    """The tokens that carry structure (comments, strings and whitespace dropped), a quoted key as one token."""
    tokens: list[tuple[int, _TokenType, str]] = []
    for offset, kind, value in JsonnetLexer().get_tokens_unprocessed(source):
        if kind in Comment or kind in String or kind in Text or not value:
            continue
        # A quoted key ('a b': 1) comes as several Name.Variable tokens side by side: join them.
        last_offset, last_kind, last_value = tokens[-1] if tokens else (-1, None, "")
        quoted_key_goes_on = last_kind is Name.Variable and last_value[:1] in ("'", '"')
        if quoted_key_goes_on and kind is Name.Variable and last_offset + len(last_value) == offset:
            tokens[-1] = (last_offset, kind, last_value + value)
        else:
            tokens.append((offset, kind, value))
    return tokens


@functools.lru_cache(maxsize=16)
def _definitions(source: str) -> _Definitions:
    """Every field and array element that the source defines, with its line."""
    newlines = [i for i, char in enumerate(source) if char == "\n"]

    def line_of(offset: int) -> int:
        return bisect.bisect_left(newlines, offset) + 1

    found = _Definitions()
    stack: list[_Frame] = []
    top_level_local = False
    tokens = _significant_tokens(source)

    def child_path() -> tuple[object, ...]:
        if not stack:
            return (_UNNAMED,) if top_level_local else ()
        frame = stack[-1]
        if frame.kind == "object":
            return (*frame.path, frame.key if frame.key is not None else _UNNAMED)
        if frame.kind == "array":
            return (*frame.path, frame.index)
        return frame.path

    for position, (offset, kind, value) in enumerate(tokens):
        frame = stack[-1] if stack else None
        if frame is not None and frame.kind == "array" and not frame.element_started and value not in ("]", ","):
            frame.element_started = True
            found.add((*frame.path, frame.index), line_of(offset))
        if kind in Punctuation or kind in Operator:
            if value in _OPENERS:
                computed = frame is not None and frame.kind == "object" and frame.key is None and value == "["
                opened = _Frame("group" if computed else _OPENERS[value], child_path(), computed_key=computed)
                if computed:
                    opened.path = (_UNNAMED,)
                stack.append(opened)
            elif value in _CLOSERS:
                if stack:
                    closed = stack.pop()
                    if closed.computed_key and stack:
                        stack[-1].key = _UNNAMED
            elif value == "," and frame is not None:
                if frame.kind == "object":
                    frame.key = None
                elif frame.kind == "array":
                    frame.index += 1
                    frame.element_started = False
            elif value == ";" and not stack:
                top_level_local = False
        elif kind is Keyword and value == "local":
            if frame is None:
                top_level_local = True
            elif frame.kind == "object" and frame.key is None:
                frame.key = _UNNAMED
        elif kind is Name.Variable and frame is not None and frame.kind == "object" and frame.key is None:
            following = tokens[position + 1][2] if position + 1 < len(tokens) else ""
            if following in _KEY_SEPARATORS:
                name = value[1:-1] if value[:1] in ("'", '"') else value
                frame.key = name
                found.add((*frame.path, name), line_of(offset))
    return found


def locate(source: str | None, field: str) -> int | None:
    """Best-effort 1-based line of a dotted field in jsonnet source: the line of its last definition (the one that
    wins), else of its nearest defined parent; digits in the path are array indexes.

    >>> locate("{\\n  // type: 'x'\\n  data_source: {\\n    type: 'hf',\\n  },\\n  type: 'x',\\n}", "data_source.type")
    4
    """
    if not source or not field:
        return None
    path: list[object] = [int(part) if part.isdigit() else part for part in field.split(".")]
    definitions = _definitions(source).lines
    while path:
        lines = definitions.get(tuple(path))
        if lines:
            return lines[-1]
        path.pop()
    return None
