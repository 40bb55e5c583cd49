"""Reading JSONL files (one JSON object per line) into an in-memory ``datasets.Dataset``.

The fast path parses the whole file with pyarrow's JSON reader and wraps the table without writing to the Hugging
Face cache. Only when that fails (or pyarrow accepted something that is not one object per line) does a line-by-line
pass run, which builds the table or raises an error naming the file, the line and, for type conflicts, the field.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench._core.errors import DataLoadError, DataNotFoundError
from genbench._core.json_files import DuplicateKeyError, unique_keys
from genbench.data._json_nesting import a_line_nests_deeper_than

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa
    import pyarrow.json as paj

_BLOCK_BYTES = 1 << 20
NON_OBJECT_LINE = re.compile(rb"^[ \t\r\f\v]*[^{\s]", re.MULTILINE)
"""A line whose first character (after spaces) does not open an object: such files must not reach pyarrow's reader
(it crashes the process on a first line ``null``)."""
# Part of the fingerprint, so a change in how files are parsed never reuses a stale `datasets` cache entry.
_FINGERPRINT_VERSION = b"genbench-jsonl-1\0"


def read_jsonl(path: str | os.PathLike[str], *, split: str) -> datasets.Dataset:
    """Read a JSONL file into an in-memory ``datasets.Dataset``.

    Each non-blank line must be one JSON object; blank lines are ignored. Fields missing from some lines are
    ``None`` there. Types are kept (ints stay ints, lists of strings and nested lists stay lists); ints and
    floats in one field become floats.

    Args:
        path: The JSONL file.
        split: Split name recorded on the dataset (``train``, ``validation``, ``test`` or any other).

    Returns:
        The examples, in file order. The dataset is in memory (nothing is written to the Hugging Face
        cache) and its fingerprint is derived from the file's content.

    Raises:
        DataNotFoundError: The file does not exist.
        DataLoadError: The file cannot be read, is not UTF-8, has no examples, has a line that is not valid
            JSON or not an object (the message names the line), or a field whose values have types that
            cannot be combined (the message names the field and the lines).

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     file = pathlib.Path(tmp, "test.jsonl")
    ...     _ = file.write_text('{"input": "1+1", "target": 2, "options": ["1", "2"]}\\n\\n'
    ...                         '{"input": "2+2", "target": 4}\\n')
    ...     dataset = read_jsonl(file, split="test")
    >>> dataset.num_rows, dataset.column_names
    (2, ['input', 'target', 'options'])
    >>> dataset[1]
    {'input': '2+2', 'target': 4, 'options': None}
    """
    table, data = _read_table(Path(path))
    return _to_dataset(table, split=split, fingerprint=hashlib.sha256(_FINGERPRINT_VERSION + data).hexdigest()[:16])


def read_jsonl_table(path: str | os.PathLike[str]) -> pa.Table:
    """Read a JSONL file into a ``pyarrow.Table``: :func:`read_jsonl`'s rows and types, without ``datasets``.

    For the light paths (``genbench-cli show-task``) that must not pay for importing ``datasets``.

    Raises:
        DataNotFoundError: The file does not exist.
        DataLoadError: As :func:`read_jsonl`.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     file = pathlib.Path(tmp, "test.jsonl")
    ...     _ = file.write_text('{"input": "1+1", "target": 2}\\n{"input": "2+2", "target": 4.5}\\n')
    ...     read_jsonl_table(file).to_pylist()
    [{'input': '1+1', 'target': 2.0}, {'input': '2+2', 'target': 4.5}]
    """
    return _read_table(Path(path))[0]


def _read_table(path: Path) -> tuple[pa.Table, bytes]:
    """The checked table of a JSONL file, and the file's bytes."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataNotFoundError(f"Data file not found: {path}", filename=str(path)) from None
    except OSError as exc:
        raise DataLoadError(f"Could not read {path}: {exc}") from exc

    # pyarrow does not validate UTF-8 inside strings; check here, where the line can be named.
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataLoadError(f"{path}, line {line}: not valid UTF-8 text ({exc.reason}).") from None
    table = _parse_with_arrow(data)
    if table is None:
        table = _parse_line_by_line(data, path)
    if table.num_rows == 0:
        raise DataLoadError(f"{path}: no examples (the file is empty or has only blank lines).")
    if table.num_columns == 0:
        raise DataLoadError(f"{path}: the examples have no fields (every line is {{}}).")
    bad_name = next((name for name in table.column_names if "\0" in name), None)
    if bad_name is not None:  # datasets cuts such a name at the NUL and then fails with a cast error
        raise DataLoadError(f"{path}: the field name {bad_name!r} contains a NUL character; rename the field.")
    return table, data


def validate_jsonl(data: bytes, *, source: str, content_type: str = "", allow_empty: bool = False) -> int:
    """Check that ``data`` is a complete JSONL file that :func:`read_jsonl` will read; return its row count.

    Used before a downloaded file enters the cache, so an error page, an empty body or a body cut inside a line
    is never kept.

    Args:
        data: The file's bytes.
        source: What to name in messages (the URL or path).
        content_type: The ``Content-Type`` the server sent, if any.
        allow_empty: Accept a body with no examples (a split declared empty).

    Raises:
        DataLoadError: HTML instead of JSONL, not UTF-8, no examples, a line that is not one JSON object (a last
            line cut short included), or fields with types that cannot be combined; the message names the line.

    >>> validate_jsonl(b'{"a": 1}\\n{"a": 2}\\n', source="x.jsonl")
    2
    >>> validate_jsonl(b'{"a": 1}\\n{"a": ', source="x.jsonl")
    Traceback (most recent call last):
    ...
    genbench._core.errors.DataLoadError: x.jsonl, line 2: invalid JSON: Expecting value (column 7).
    """
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if "html" in content_type.lower() or head.startswith((b"<!doctype", b"<html", b"<?xml", b"<head", b"<body")):
        preview = data[:80].decode("utf-8", "replace").strip().replace("\n", " ")
        raise DataLoadError(
            f"{source}: the server sent an HTML page (Content-Type {content_type or 'unknown'!r}, starting "
            f"{preview!r}), not JSONL: an error or login page, or the URL of a web page instead of the raw file."
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataLoadError(f"{source}, line {line}: not valid UTF-8 text ({exc.reason}).") from None
    if not data.strip():
        if allow_empty:
            return 0
        raise DataLoadError(f"{source}: the body is empty (no examples).")
    table = _parse_with_arrow(data)
    if table is None:
        table = _parse_line_by_line(data, source)
    if table.num_columns == 0:
        raise DataLoadError(f"{source}: the examples have no fields (every line is {{}}).")
    return int(table.num_rows)


class _LineProblem(ValueError):
    """Why one line is not readable JSON (the caller adds where the line is)."""


def _loads_line(line: str) -> Any:
    """One JSON Lines line parsed, a key given twice in one object refused (which value was meant cannot be known).

    Raises:
        _LineProblem: invalid JSON (with its column), a key given twice, nesting too deep for Python's parser.
    """
    try:
        return json.loads(line, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise _LineProblem(f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except DuplicateKeyError as exc:
        raise _LineProblem(f"key {exc.key!r} appears twice in one object; keep one") from None
    except RecursionError:
        raise _LineProblem(
            "values nested too deeply to read (Python's JSON parser gave up); flatten the line's data"
        ) from None


def iter_json_objects(
    path: str | os.PathLike[str], *, error: type[Exception] = DataLoadError, expected: str = "a JSON object"
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of a small JSONL file, read line by line.

    For record files a person writes (predictions, qrels); :func:`read_jsonl` is the fast path for datasets.

    Raises:
        error: a line is not UTF-8, not valid JSON (a key twice in one object included), nested too deeply to read,
            or not an object, naming the file, the line and the column.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.jsonl"
    >>> _ = path.write_text('{"a": 1}\\n\\n[2]\\n')
    >>> next(iter_json_objects(path))
    (1, {'a': 1})
    >>> list(iter_json_objects(path))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genbench._core.errors.DataLoadError: ...rows.jsonl:3: expected a JSON object, got list
    """
    with open(path, "rb") as handle:  # bytes, so that a non-UTF-8 line is reported with its number
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise error(
                    f"{path}:{number}: not UTF-8 text ({exc.reason} at byte {exc.start + 1} of the line): "
                    "save the file as UTF-8"
                ) from None
            if not line.strip():
                continue
            try:
                record = _loads_line(line)
            except _LineProblem as problem:
                raise error(f"{path}:{number}: {problem}") from None
            if not isinstance(record, dict):
                raise error(f"{path}:{number}: expected {expected}, got {type(record).__name__}")
            yield number, record


def plain_object_lines(data: bytes) -> int | None:
    """The number of lines of ``data`` when every line starts with ``{`` (plainly one object per line), else ``None``.

    Such bytes are safe for pyarrow's JSON reader (which crashes the process on a line ``null``: see
    ``data.jsonl.NON_OBJECT_LINE``); anything else (blank lines, leading spaces) is left to the careful reader.

    >>> plain_object_lines(b'{"a": 1}\\n{"a": 2}'), plain_object_lines(b'{"a": 1}\\n\\n')
    (2, None)
    >>> plain_object_lines(b"null\\n") is None
    True
    """
    if not data:
        return 0
    newlines = data.count(b"\n")
    lines = newlines if data.endswith(b"\n") else newlines + 1
    # Every line but the first starts after a newline: all those newlines (the last one excepted when it ends the
    # data) must be followed by "{" (bytes.count is a fast search, no array of positions).
    if data[:1] != b"{" or data.count(b"\n{") != lines - 1:
        return None
    return lines


def _parse_with_arrow(data: bytes) -> pa.Table | None:
    """The whole file as one Arrow table, or None when pyarrow cannot parse it exactly as one row per line."""

    # pyarrow's reader kills the process (segmentation fault, pyarrow 26) on a file whose first line is `null`, and
    # reads a later `null` line as a row of nulls: only files whose every line starts an object go to it.
    lines = plain_object_lines(data)  # every line starts with "{": no need for the (slower) regex over the file
    if lines is None and NON_OBJECT_LINE.search(data):
        return None
    # pyarrow also accepts several objects on one line ("{...}{...}"), which is not JSONL: the row count is checked.
    rows = lines if lines is not None else sum(map(bool, map(bytes.strip, data.split(b"\n"))))
    return parse_object_lines(data, rows)


def parse_object_lines(
    data: bytes,
    rows: int,
    *,
    block_size: int = _BLOCK_BYTES,
    use_threads: bool = True,
    parse_options: paj.ParseOptions | None = None,
    memory_pool: pa.MemoryPool | None = None,
) -> pa.Table | None:
    """``data`` (whole lines that start objects: see :func:`plain_object_lines` and :data:`NON_OBJECT_LINE`) parsed by
    pyarrow's JSON reader as a valid table of exactly ``rows`` rows; ``None`` when pyarrow cannot read it so (bad
    JSON or UTF-8, several objects on a line, a type it cannot convert): the careful reader then says why.

    >>> parse_object_lines(b'{"a": 1}\\n{"a": 2}\\n', 2).column("a").to_pylist()
    [1, 2]
    >>> parse_object_lines(b'{"a": 1}{"a": 2}', 1) is None  # two objects on one line: not JSONL
    True
    """
    import pyarrow as pa
    import pyarrow.json as paj

    if a_line_nests_deeper_than(data):  # pyarrow's reader would crash the process (see genbench.data._json_nesting)
        return None
    while True:
        try:
            options = paj.ReadOptions(block_size=block_size, use_threads=use_threads)
            table = paj.read_json(
                pa.BufferReader(data), read_options=options, parse_options=parse_options, memory_pool=memory_pool
            )
            break
        except pa.ArrowInvalid as exc:
            # A line longer than a block: retry with bigger blocks, as `datasets`' JSON builder does.
            if "straddl" in str(exc) and block_size <= len(data):
                block_size = min(block_size * 4, len(data) + 1, 2**31 - 1)
                continue
            return None
        except (pa.ArrowNotImplementedError, pa.ArrowTypeError, OSError):
            return None
    if table.num_rows != rows:
        return None
    try:
        # pyarrow does not check the UTF-8 inside strings while parsing, and can build an invalid table (a list of
        # strings starting with null: `[null, "b"]` gives list offsets past the values), which fails later.
        table.validate(full=True)
    except (pa.ArrowInvalid, pa.ArrowIndexError):
        return None
    return table


def _parse_line_by_line(data: bytes, path: Path | str) -> pa.Table:
    """Parse in Python, raising an error with the line number (and field) of the first problem."""
    import pyarrow as pa

    text = data.decode("utf-8-sig")  # read_jsonl checked the encoding

    rows: list[dict[str, Any]] = []
    line_numbers: list[int] = []
    # split("\n"), not splitlines(): JSON strings may contain U+2028 and other characters splitlines() breaks on.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = _loads_line(line)
        except _LineProblem as problem:
            raise DataLoadError(f"{path}, line {number}: {problem}.") from None
        if not isinstance(value, dict):
            raise DataLoadError(
                f"{path}, line {number}: expected one JSON object per line, got {_describe(value)}: {_preview(line)}"
            )
        rows.append(value)
        line_numbers.append(number)

    names = list(dict.fromkeys(key for row in rows for key in row))
    arrays = []
    for name in names:
        values = [row.get(name) for row in rows]
        try:
            arrays.append(pa.array(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as exc:
            raise _type_conflict(path, name, values, line_numbers, exc) from None
    if not names:
        if rows:
            raise DataLoadError(f"{path}: the examples have no fields (every line is {{}}).")
        return pa.table({})
    return pa.Table.from_arrays(arrays, names=names)


def _type_conflict(
    path: Path | str, name: str, values: list[Any], line_numbers: list[int], exc: Exception
) -> DataLoadError:
    """The error for a field whose values cannot share one Arrow type, naming the first offending line."""
    import pyarrow as pa

    def combinable(subset: list[Any]) -> bool:
        try:
            pa.array(subset)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            return False
        return True

    # Smallest prefix that cannot be combined (failure is monotone in the prefix); its last value offends.
    low, high = 1, len(values)
    while low < high:
        middle = (low + high) // 2
        if combinable(values[:middle]):
            low = middle + 1
        else:
            high = middle
    bad = low - 1
    first = next((i for i, value in enumerate(values[:bad]) if value is not None), None)
    if first is None or not combinable(values[bad : bad + 1]):
        return DataLoadError(
            f"{path}, line {line_numbers[bad]}: field {name!r} has a value that cannot be stored "
            f"({_describe(values[bad])}: {exc})."
        )
    return DataLoadError(
        f"{path}, line {line_numbers[bad]}: field {name!r} is {_describe(values[bad])}, which cannot be combined "
        f"with {_describe(values[first])} on line {line_numbers[first]}; every value of a field must have "
        "the same type (or be null)."
    )


def _describe(value: Any, depth: int = 0) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        if depth > 2:
            return "a list"
        kinds = list(dict.fromkeys(_describe(item, depth + 1) for item in value if item is not None))
        if not kinds:
            return "an empty list"
        if len(kinds) == 1:
            return f"a list of {_plural(kinds[0])}"
        return f"a list mixing {', '.join(_plural(kind) for kind in kinds[:-1])} and {_plural(kinds[-1])}"
    return type(value).__name__


def _plural(description: str) -> str:
    noun = description.split(" ", 1)[1] if description.startswith(("a ", "an ")) else description
    return noun if noun.startswith("list") else f"{noun}s"


def _preview(line: str, limit: int = 60) -> str:
    line = line.strip()
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _to_dataset(table: pa.Table, *, split: str, fingerprint: str) -> datasets.Dataset:
    import datasets
    from datasets.table import InMemoryTable

    try:
        named_split = datasets.NamedSplit(split)
    except ValueError:  # names like "test-hard" are fine for genbench but not for `NamedSplit`
        named_split = None
    return datasets.Dataset(InMemoryTable(table), split=named_split, fingerprint=fingerprint)
