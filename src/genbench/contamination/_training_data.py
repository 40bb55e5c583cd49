"""Training data for contamination indexes: loading datasets and cutting their rows into training units.

A dataset is a JSONL or Parquet file, a dataset folder, a Hub id or a dataset-mixer YAML naming several; a *training
unit* (a chat message, or a row) is what one test instance is compared with.
See docs/contamination.md#what-is-matched-the-rules.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import shlex
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench._core.errors import DataLoadError, GenBenchError
from genbench.contamination._checksums import DIGEST, file_state, new_digest
from genbench.contamination._errors import ContaminationError
from genbench.contamination._units import (
    as_text,
    check_unit_schema,
    explicit_schema,
    is_list,
    message_field,
    message_texts,
    table_column,
)
from genbench.data import read_jsonl
from genbench.data._jsonl import NON_OBJECT_LINE, parse_object_lines

if TYPE_CHECKING:
    import pyarrow as pa

_FILE_SUFFIXES = {".jsonl": "jsonl", ".parquet": "parquet"}
_READ_BLOCK = 2 << 20


@dataclass(frozen=True)
class UnitSpec:
    """How the rows of a training dataset become units.

    Attributes:
        messages_field: Column holding a list of messages (objects); ignored when ``text_field`` is set.
        query_filter: ``key:value`` a message must have to be a unit (``role:user``); ``None`` keeps every message.
        query_field: Key of a message holding its text.
        text_field: Column whose text (or list of strings, joined with spaces) makes one unit per row.
    """

    messages_field: str | None = "messages"
    query_filter: str | None = "role:user"
    query_field: str = "content"
    text_field: str | None = None

    def __post_init__(self) -> None:
        if self.text_field is None and not self.messages_field:
            raise ContaminationError("Give either a messages field (--messages-field) or a text field (--text-field).")
        if self.text_field is None and self.query_filter is not None and ":" not in self.query_filter:
            raise ContaminationError(
                f"query_filter must look like key:value (e.g. role:user), got {self.query_filter!r}."
            )

    @property
    def filter(self) -> tuple[str, str] | None:
        if self.query_filter is None or self.text_field is not None:
            return None
        key, _, value = self.query_filter.partition(":")
        return key, value

    def to_dict(self) -> dict[str, Any]:
        if self.text_field is not None:
            return {"text_field": self.text_field}
        return {k: v for k, v in asdict(self).items() if k != "text_field"}

    @classmethod
    def from_dict(cls, recorded: Any) -> UnitSpec | None:
        """The spec a manifest's ``units_from`` records; ``None`` when it is not one."""
        if not isinstance(recorded, dict):
            return None
        try:
            return cls(**{k: v for k, v in recorded.items() if k in {f.name for f in fields(cls)}})
        except (TypeError, ContaminationError):
            return None

    def cli_options(self) -> str:
        """The command-line options that select these units (defaults left out), e.g. ``--text-field text``."""
        if self.text_field is not None:
            return f" --text-field {shlex.quote(self.text_field)}"
        options = ""
        if self.messages_field != "messages":
            options += f" --messages-field {shlex.quote(str(self.messages_field))}"
        if self.query_filter != "role:user":
            options += f" --query-filter {shlex.quote(self.query_filter or '')}"
        if self.query_field != "content":
            options += f" --query-field {shlex.quote(self.query_field)}"
        return options

    def describe(self) -> str:
        if self.text_field is not None:
            return f"text field {self.text_field!r}"
        where = f" with {self.query_filter}" if self.query_filter else ""
        return f"field {self.query_field!r} of the messages in {self.messages_field!r}{where}"


@dataclass
class LoadedDataset:
    """A training dataset, loaded.

    Attributes:
        name: The name or path it was asked for by.
        rows: Its rows: a reader of a JSONL file's line ranges or a Parquet file's row groups, an Arrow table (JSONL
            files read whole: see :func:`_read_file`), or a ``datasets.Dataset`` (dataset folders, Hub ids).
        kind: ``jsonl``, ``parquet``, ``disk`` (``save_to_disk`` folder), ``folder`` or ``hub``.
        path: The resolved file or folder (``None`` for a Hub id).
        split: The split read.
        fingerprint: SHA-256 of the file, or the ``datasets`` fingerprint.
        content_digest: XXH3-128 of the file (files only: what ``search`` checks the file against, see
            :mod:`~genbench.contamination._source_check`).
        state: The file's size and times when it was read (files only; ``None`` if it changed while read).
    """

    name: str
    rows: Any
    kind: str
    path: str | None
    split: str
    fingerprint: str
    content_digest: str | None = None
    state: dict[str, int] | None = None

    @property
    def num_rows(self) -> int:
        return int(self.rows.num_rows)

    @property
    def schema(self) -> pa.Schema:
        """The rows' schema (of a JSONL file read in blocks: the first block's, see :meth:`full_schema`)."""
        rows: Any = self.rows
        return rows.features.arrow_schema if _is_hf_dataset(rows) else rows.schema

    def full_schema(self) -> pa.Schema:
        """The schema of all rows: for a JSONL file read in blocks, the blocks' schemas unified (reads the file)."""
        rows: Any = self.rows
        return rows.full_schema() if isinstance(rows, _JsonlBlocks) else self.schema

    @property
    def column_names(self) -> list[str]:
        return list(self.schema.names)

    def slice(self, start: int, stop: int) -> pa.Table:
        """Rows ``[start, stop)`` as an Arrow table (read from the file for JSONL and Parquet files)."""
        rows: Any = self.rows
        if _is_hf_dataset(rows):
            return rows.with_format("arrow")[start:stop]
        if isinstance(rows, (_JsonlBlocks, _ParquetRowGroups)):
            return rows.slice(start, stop)
        return rows.slice(start, max(stop - start, 0))

    def source_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "path": self.path,
            "split": self.split,
            "fingerprint": self.fingerprint,
            "rows": self.num_rows,
        }
        if self.content_digest is not None:
            info[DIGEST] = self.content_digest
        if self.state is not None:
            info["file_state"] = self.state
        return info


def _is_hf_dataset(rows: Any) -> bool:
    """Whether ``rows`` is a ``datasets.Dataset`` (without importing ``datasets`` for files)."""
    return type(rows).__module__.startswith("datasets")


@dataclass
class UnitBatch:
    """The units of a range of rows (one build shard)."""

    shard: int
    row_start: int
    row_stop: int
    texts: list[str]
    original_ids: np.ndarray
    turns: np.ndarray


def load_training_dataset(name: str, split: str = "train", spec: UnitSpec | None = None) -> LoadedDataset:
    """Load a training dataset by file, folder or Hub id.

    JSONL and Parquet files are read with pyarrow alone (``datasets`` is not even imported). This is the one reader
    of training data: index builds and the one-shot scan read the same rows, and refuse the same files with the same
    errors. A JSONL file must be UTF-8 throughout (keys included: the error names the line); a range of lines that
    pyarrow cannot read whole (e.g. a field genbench never reads, holding numbers on one line and text on another)
    is read again keeping only the fields ``spec``'s units need (what the scan reads in the first place).

    Args:
        name: A JSONL or Parquet file, a dataset folder, or a cached Hub id.
        split: The split to read.
        spec: What the units are (to read only their fields where the whole rows cannot be read).

    Raises:
        ContaminationError: it cannot be found, read or loaded, the split does not exist, or it has no rows.
    """
    path = Path(name).expanduser()
    try:
        if is_local(path, "file"):
            kind = _FILE_SUFFIXES.get(path.suffix.lower())
            if kind is None:
                raise ContaminationError(
                    f"{path}: unsupported file type {path.suffix!r}; use a .jsonl or .parquet file, or a folder."
                )
            table, fingerprint, content, state = _read_file(path, kind, split, spec)
            loaded = LoadedDataset(name, table, kind, str(path.resolve()), split, fingerprint, content, state)
        elif is_local(path, "dir"):
            import datasets

            if (path / "dataset_dict.json").is_file() or (path / "state.json").is_file():
                kind, data = "disk", datasets.load_from_disk(str(path))
            else:
                kind, data = "folder", datasets.load_dataset(str(path))
            dataset = _pick_split(data, split, name)
            loaded = LoadedDataset(name, dataset, kind, str(path.resolve()), split, dataset._fingerprint)
        elif path.suffix.lower() in _FILE_SUFFIXES or path.is_absolute() or name.startswith("."):
            raise ContaminationError(f"The training data file {path} does not exist.")
        else:
            import datasets

            dataset = _pick_split(datasets.load_dataset(name, split=split), split, name)
            loaded = LoadedDataset(name, dataset, "hub", None, split, dataset._fingerprint)
    except GenBenchError:  # already says what is wrong (e.g. the JSONL line that is not JSON)
        raise
    except RecursionError:
        raise ContaminationError(
            f"Could not load the dataset {name!r} (split {split!r}): its values are nested too deeply to read."
        ) from None
    except Exception as exc:  # datasets and pyarrow raise many unrelated types; keep the cause chained
        raise ContaminationError(f"Could not load the dataset {name!r} (split {split!r}): {_describe(exc)}") from exc
    if loaded.num_rows == 0:
        raise ContaminationError(f"The dataset {name!r} (split {split!r}) is empty: there is nothing to index.")
    return loaded


def _read_file(
    path: Path, kind: str, split: str, spec: UnitSpec | None = None
) -> tuple[Any, str, str, dict[str, int] | None]:
    """The file's rows (a reader that parses them range by range where it can), the file's SHA-256, its XXH3-128 and
    its :func:`~genbench.contamination._checksums.file_state` (``None`` when it changed while it was read).

    A JSONL file whose every line starts with ``{`` is read in blocks of :data:`BLOCK_LINES` lines
    (:class:`_JsonlBlocks`); a Parquet file by row groups (:class:`_ParquetRowGroups`). Other JSONL files (blank
    lines, leading spaces, a byte-order mark, lines that are not objects) are read whole, by pyarrow where it reads
    them exactly, else by the careful reader that names the offending line.
    """
    digest, content = hashlib.sha256(), new_digest()
    lines, last, position = 0, b"\n", 0
    objects_only, line_start = True, b""
    plain = kind == "jsonl"  # every line starts with `{` (so it can be parsed from any line start on)
    block_starts: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
    utf8 = codecs.getincrementaldecoder("utf-8")()
    try:
        # One streaming pass for the fingerprint, the line count and the byte offset of every BLOCK_LINES-th line;
        # the parsers read the file themselves, so its bytes are never all in memory.
        with open(path, "rb") as handle:
            state: dict[str, int] | None = file_state(os.fstat(handle.fileno()))
            while block := handle.read(_READ_BLOCK):
                digest.update(block)
                content.update(block)
                if kind == "parquet":
                    continue
                _check_utf8(utf8, block, path, lines)
                raw = np.frombuffer(block, dtype=np.uint8)
                newlines = np.flatnonzero(raw == ord("\n"))
                if plain:
                    starts = newlines + 1
                    inside = starts[starts < len(raw)]
                    plain = bool((raw[inside] == ord("{")).all()) and (last != b"\n" or raw[0] == ord("{"))
                    # Line i + 1 starts after the file's i-th newline (counting from 0).
                    block_starts.append(newlines[(-(lines + 1)) % BLOCK_LINES :: BLOCK_LINES] + (position + 1))
                if objects_only and not plain:
                    # Does every line start an object (see NON_OBJECT_LINE)? The start of a line cut by the block
                    # boundary is carried over, so that `^` only ever matches real line starts.
                    text = line_start + block
                    objects_only = _lines_start_objects(text, NON_OBJECT_LINE)
                    line_start = text[text.rfind(b"\n") + 1 :][:1024]
                elif plain:
                    line_start = block[block.rfind(b"\n") + 1 :][:1024]
                lines += len(newlines)
                last = block[-1:]
                position += len(block)
            if state is not None and (file_state(os.fstat(handle.fileno())) != state or position != state["bytes"]):
                state = None  # changed while read: its state cannot vouch for the checksum
    except OSError as exc:
        raise ContaminationError(f"Could not read {path}: {exc}") from exc
    if kind == "jsonl":
        _check_utf8(utf8, b"", path, lines, final=True)
    if last != b"\n":
        lines += 1
    if kind == "parquet":
        return _ParquetRowGroups(path), digest.hexdigest(), content.hexdigest(), state
    if plain and lines > 0:
        offsets = np.concatenate([*block_starts, [position]])
        offsets = offsets[(offsets < position) | (np.arange(len(offsets)) == len(offsets) - 1)]
        return _JsonlBlocks(path, offsets, lines, split, spec), digest.hexdigest(), content.hexdigest(), state
    table = _read_jsonl_fast(path, spec) if objects_only else None
    if table is None:
        # Anything unusual (blank lines, a line with several objects, bad JSON or UTF-8): the careful reader, which
        # also names the offending line in its errors.

        table = read_jsonl(path, split=split).data.table
    return table, digest.hexdigest(), content.hexdigest(), state


BLOCK_LINES = 1024
"""Lines of a JSONL file whose start offset is kept: a range of rows is parsed from the block holding its first."""


class _JsonlBlocks:
    """The rows of a JSONL file, parsed range by range (pyarrow's JSON reader on the range's bytes).

    Each range infers its own types, so a field whose type changes from one part of a large file to another is
    read where pyarrow's whole-file reader would give up. When a range cannot be read exactly as one row per line
    (bad JSON or UTF-8, several objects on a line), the whole file goes to the careful reader, which names the
    offending line (or, for what it can combine, gives the table that all later ranges are sliced from).

    Args:
        path: The file; every line starts with ``{``.
        offsets: Byte offset of lines ``0, BLOCK_LINES, 2 * BLOCK_LINES, ...``, then the file size.
        rows: Its number of lines.
        split: The split name (for the careful reader).
    """

    def __init__(self, path: Path, offsets: np.ndarray, rows: int, split: str, spec: UnitSpec | None = None):
        self.path = path
        self.offsets = offsets
        self.num_rows = rows
        self.split = split
        self.spec = spec
        self._schema: pa.Schema | None = None
        self._whole: pa.Table | None = None

    @property
    def schema(self) -> pa.Schema:
        """The first block's schema."""
        if self._whole is not None:
            return self._whole.schema
        if self._schema is None:
            self._schema = self._read(0, 1).schema
        return self._schema

    def full_schema(self) -> pa.Schema:
        """The schemas of all blocks, unified (where they cannot be, the first block's)."""
        import pyarrow as pa

        if self._whole is not None:
            return self._whole.schema
        step = max(1, (8 << 20) // max(1, int(self.offsets[-1]) // len(self.offsets)))  # about 8 MiB per read
        schemas = [
            self._read(b, min(b + step, len(self.offsets) - 1)).schema for b in range(0, len(self.offsets) - 1, step)
        ]
        try:
            return pa.unify_schemas(schemas, promote_options="permissive")
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            return self.schema

    def slice(self, start: int, stop: int) -> pa.Table:
        start, stop = max(start, 0), min(stop, self.num_rows)
        if self._whole is not None:
            return self._whole.slice(start, max(stop - start, 0))
        if start >= stop:
            return self._read(0, 1).slice(0, 0)
        first, last = start // BLOCK_LINES, (stop - 1) // BLOCK_LINES + 1
        table = self._read(first, last)
        if self._whole is not None:  # the careful reader took over
            return self._whole.slice(start, stop - start)
        return table.slice(start - first * BLOCK_LINES, stop - start)

    def _read(self, first: int, last: int) -> pa.Table:
        """Blocks ``[first, last)``."""
        begin, end = int(self.offsets[first]), int(self.offsets[last])
        try:
            with open(self.path, "rb") as handle:
                handle.seek(begin)
                data = handle.read(end - begin)
        except OSError as exc:
            raise ContaminationError(f"Could not read {self.path}: {exc}") from exc
        expected = min(last * BLOCK_LINES, self.num_rows) - first * BLOCK_LINES
        table = parse_unit_lines(data, expected, self.spec, block_size=_PARSE_BLOCK, memory_pool=_pool())
        if table is None:
            self._whole = read_jsonl(self.path, split=self.split).data.table
            return self._whole
        return table


def parse_unit_lines(
    data: bytes, rows: int, spec: UnitSpec | None, *, projected_first: bool = False, **options: Any
) -> pa.Table | None:
    """``data`` (whole lines, each starting an object) as a table of ``rows`` rows; ``None`` if it is not that.

    The whole rows are read, or where pyarrow cannot read them (a field whose values it cannot combine), the fields
    the units of ``spec`` need only (:func:`~genbench.contamination._units.explicit_schema`; ``projected_first``
    tries those first: the scan's way, faster). The index builds and the scan both read JSONL through here, so they
    accept and refuse the same lines. ``options`` go to :func:`~genbench.data._jsonl.parse_object_lines`.
    """
    import pyarrow.json as paj

    schema = explicit_schema(spec) if spec is not None else None
    projected = (
        paj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore") if schema is not None else None
    )
    attempts = [projected, None] if projected_first else [None, projected]
    if projected is None:
        attempts = [None]
    for parse_options in attempts:
        table = parse_object_lines(data, rows, parse_options=parse_options, **options)
        if table is not None and table.num_columns:
            return table
    return None


def _check_utf8(
    decoder: codecs.IncrementalDecoder, block: bytes, path: Path, lines_before: int, *, final: bool = False
) -> None:
    """Feed ``block`` to an incremental UTF-8 decoder; raise naming the line of the first invalid byte."""
    if block.isascii() and not decoder.getstate()[0]:
        return  # ASCII is UTF-8, and no sequence is left open: nothing to decode (a fast scan of the bytes)
    try:
        decoder.decode(block, final)
    except UnicodeDecodeError as exc:
        line = lines_before + block[: max(exc.start, 0)].count(b"\n") + 1
        raise DataLoadError(
            f"{path}, line {line}: not valid UTF-8 text ({exc.reason}); JSONL files are UTF-8 throughout, keys "
            "included."
        ) from None


def _pool() -> pa.MemoryPool:
    """The memory pool of the tables of JSONL ranges: the system allocator's, whose freed memory the next shard
    reuses and :func:`~genbench.contamination._memory.give_back_free_memory` returns after the last (pyarrow's default
    pool keeps its worker threads' freed pages)."""
    import pyarrow as pa

    return pa.system_memory_pool()


_PARSE_BLOCK = 1 << 20
"""pyarrow's JSON block size for a range (blocks are parsed in parallel)."""


class _ParquetRowGroups:
    """The rows of a Parquet file, read by row groups."""

    def __init__(self, path: Path):
        import pyarrow.parquet as pq

        self.file = pq.ParquetFile(path)
        self.schema = self.file.schema_arrow
        self.num_rows = int(self.file.metadata.num_rows)
        sizes = [self.file.metadata.row_group(g).num_rows for g in range(self.file.num_row_groups)]
        self.group_starts = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])

    def slice(self, start: int, stop: int) -> pa.Table:
        start, stop = max(start, 0), min(stop, self.num_rows)
        if start >= stop:
            return self.schema.empty_table()
        first = int(np.searchsorted(self.group_starts, start, side="right")) - 1
        last = int(np.searchsorted(self.group_starts, stop, side="left"))
        table = self.file.read_row_groups(list(range(first, last)))
        return table.slice(start - int(self.group_starts[first]), stop - start)


_LINE_START_OK = np.zeros(256, dtype=bool)
_LINE_START_OK[[ord("{"), ord("\n")]] = True


def _lines_start_objects(text: bytes, non_object_line: Any) -> bool:
    """Whether no line of ``text`` matches ``non_object_line`` (``data.jsonl.NON_OBJECT_LINE``), fast.

    Where every line starts with ``{`` or is empty, that pattern cannot match; numpy checks those first bytes
    several times faster than the regex scans the text. Any other first byte (a space, or a line that is not an
    object) is left to the regex itself, so the answer is always the pattern's.
    """
    if not text:
        return True
    raw = np.frombuffer(text, dtype=np.uint8)
    starts = np.flatnonzero(raw[:-1] == ord("\n")) + 1
    if _LINE_START_OK[raw[0]] and _LINE_START_OK[raw[starts]].all():
        return True
    return non_object_line.search(text) is None


def _read_jsonl_fast(path: Path, spec: UnitSpec | None) -> pa.Table | None:
    """pyarrow's multi-threaded JSON reader (:func:`parse_unit_lines`), when every line of the file starts an object
    (blank lines are skipped, as the careful reader skips them); else ``None``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ContaminationError(f"Could not read {path}: {exc}") from exc
    rows = sum(1 for line in data.split(b"\n") if line.strip())
    if rows == 0:
        return None  # the careful reader says the file has no examples
    return parse_unit_lines(data, rows, spec, block_size=_READ_BLOCK)


def _pick_split(data: Any, split: str, name: str) -> Any:
    import datasets

    if isinstance(data, datasets.Dataset):
        return data
    if isinstance(data, datasets.DatasetDict):
        if split not in data:
            raise ContaminationError(f"The dataset {name!r} has no split {split!r}; its splits are {sorted(data)}.")
        return data[split]
    raise ContaminationError(f"The dataset {name!r} loaded as {type(data).__name__}; a map-style dataset is needed.")


def _describe(exc: BaseException) -> str:
    message = f"{type(exc).__name__}: {exc}"
    text = str(exc).lower()
    if "offline" in text or "connection" in text or "couldn't find" in text or "doesn't exist" in text:
        message += (
            " (a Hub dataset must be in the local Hugging Face cache when offline; or give a .jsonl/.parquet file or "
            "a folder written by save_to_disk)"
        )
    return message


def read_dataset_mixer(config_path: str | os.PathLike[str]) -> list[str]:
    """The dataset names of a training config's ``dataset_mixer`` (or ``dataset_mixer_list``).

    Names that are paths relative to the config file's folder are resolved against it.

    Raises:
        ContaminationError: the file cannot be read, is not YAML, or has no dataset mixer.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     config = pathlib.Path(tmp, "mix.yaml")
    ...     _ = config.write_text("dataset_mixer:\\n  allenai/tulu-v2-sft-mixture: 1.0\\n  org/other: 5000\\n")
    ...     read_dataset_mixer(config)
    ['allenai/tulu-v2-sft-mixture', 'org/other']
    """
    import yaml

    path = Path(config_path)
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ContaminationError(f"Could not read the dataset mixer config {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ContaminationError(f"{path} is not valid YAML: {exc}") from exc
    mixer = config.get("dataset_mixer") if isinstance(config, dict) else None
    if mixer is None and isinstance(config, dict) and isinstance(config.get("dataset_mixer_list"), list):
        mixer = config["dataset_mixer_list"][::2]  # [name, proportion, name, proportion, ...]
    if isinstance(mixer, dict):
        names = [str(name) for name in mixer]
    elif isinstance(mixer, list) and all(isinstance(name, str) for name in mixer):
        names = list(mixer)
    else:
        raise ContaminationError(
            f"{path} has no `dataset_mixer` mapping of dataset names to proportions (or `dataset_mixer_list`)."
        )
    if not names:
        raise ContaminationError(f"{path}: the dataset mixer is empty.")
    resolved = []
    for name in names:
        local = path.parent / name
        resolved.append(
            str(local) if not Path(name).is_absolute() and is_local(local) and not is_local(Path(name)) else name
        )
    return resolved


def is_local(path: Path, kind: str = "any") -> bool:
    """Whether ``path`` names an existing file (``kind="file"``), folder (``"dir"``) or either; ``False`` for names
    the file system cannot even hold (a long Hub id is not an error)."""
    try:
        return path.is_file() if kind == "file" else path.is_dir() if kind == "dir" else path.exists()
    except OSError:
        return False


def index_name(dataset: str) -> str:
    """The directory-safe name of a dataset's index: the Hub id or, for a local path, its stem and a path hash.

    >>> index_name("allenai/tulu-2-sft-mixture")
    'allenai__tulu-2-sft-mixture'
    """
    path = Path(dataset).expanduser()
    if is_local(path):
        resolved = str(path.resolve())
        stem = path.name.rsplit(".", 1)[0] if path.is_file() else path.name
        digest = hashlib.sha256(resolved.encode("utf-8")).hexdigest()[:8]
        return f"{safe_file_name(stem)}-{digest}"
    return safe_file_name(dataset.replace("/", "__"))


def safe_file_name(text: str) -> str:
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in text).strip("._") or "dataset"
    if len(cleaned) > 80:
        cleaned = cleaned[:60] + "-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return cleaned


def check_unit_spec(loaded: LoadedDataset, spec: UnitSpec) -> None:
    """Raise a clear error when the fields ``spec`` names are missing from the dataset.

    A JSONL file read in blocks is checked against its first block's schema, and only where that fails against all
    blocks' (a field may first appear, or first have a value, further down).
    """
    try:
        check_unit_schema(loaded.name, loaded.schema, spec)
    except ContaminationError:
        if not isinstance(loaded.rows, _JsonlBlocks):
            raise
        check_unit_schema(loaded.name, loaded.full_schema(), spec)


def iter_unit_batches(
    loaded: LoadedDataset, spec: UnitSpec, *, shard_rows: int, first_shard: int = 0
) -> Iterator[UnitBatch]:
    """The units of the dataset, ``shard_rows`` rows at a time, from shard ``first_shard`` on.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     file = pathlib.Path(tmp, "chat.jsonl")
    ...     _ = file.write_text('{"messages": [{"role": "user", "content": "Hi!"}, '
    ...                         '{"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Bye"}]}\\n')
    ...     loaded = load_training_dataset(str(file))
    ...     batch = next(iter_unit_batches(loaded, UnitSpec(), shard_rows=100))
    >>> batch.texts, batch.original_ids.tolist(), batch.turns.tolist()
    (['Hi!', 'Bye'], [0, 0], [0, 2])
    """
    check_unit_spec(loaded, spec)
    rows = loaded.num_rows
    for shard, row_start in enumerate(range(0, rows, shard_rows)):
        if shard < first_shard:
            continue
        row_stop = min(row_start + shard_rows, rows)
        table = loaded.slice(row_start, row_stop)
        try:
            if spec.text_field is not None:
                texts, local_rows, turns = _text_units(table_column(table, spec.text_field))
            else:
                texts, local_rows, turns = _message_units(table_column(table, spec.messages_field or ""), spec)
        except ContaminationError as exc:
            raise ContaminationError(f"{loaded.name}, rows {row_start + 1}-{row_stop}: {exc}") from exc
        del table
        yield UnitBatch(shard, row_start, row_stop, texts, local_rows + row_start, turns)


def _text_units(column: pa.ChunkedArray) -> tuple[list[str], np.ndarray, np.ndarray]:
    texts = [text for chunk in column.chunks for text in as_text(chunk).to_pylist()]
    return texts, np.arange(len(texts), dtype=np.int64), np.full(len(texts), -1, dtype=np.int32)


def _message_units(column: pa.ChunkedArray, spec: UnitSpec) -> tuple[list[str], np.ndarray, np.ndarray]:
    texts: list[str] = []
    rows, turns = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int32)]
    row_offset = 0
    for lists in column.chunks:  # chunk by chunk: combining chunks would copy the shard
        chunk_texts, chunk_rows, chunk_turns = message_texts(lists, spec)
        texts.extend(chunk_texts)
        rows.append(chunk_rows + row_offset)
        turns.append(chunk_turns)
        row_offset += len(lists)
    return texts, np.concatenate(rows), np.concatenate(turns)


def filter_values_seen(loaded: LoadedDataset, spec: UnitSpec, limit_rows: int = 10_000) -> list[str]:
    """The distinct values of the filter key in the first rows (for the error when a filter matches nothing)."""
    if spec.filter is None:
        return []
    import pyarrow as pa

    table = loaded.slice(0, min(limit_rows, loaded.num_rows))
    lists = table_column(table, spec.messages_field or "").combine_chunks()
    if not is_list(lists.type) or not pa.types.is_struct(lists.type.value_type):
        return []
    values = as_text(message_field(lists.flatten(), spec.filter[0])).unique().to_pylist()
    return sorted(str(v) for v in values)[:20]


def no_units_error(loaded: LoadedDataset, spec: UnitSpec) -> ContaminationError:
    """The error for a dataset without a single unit, with the filter values seen when a filter is the cause."""
    hint = ""
    if spec.filter is not None:
        seen = filter_values_seen(loaded, spec)
        hint = f" No message has {spec.query_filter}" + (
            f"; the values of {spec.filter[0]!r} are {seen}. Check --query-filter." if seen else "."
        )
    return ContaminationError(f"The dataset {loaded.name!r} has no training units ({spec.describe()}).{hint}")


def iter_rows_json(loaded: LoadedDataset, batch_rows: int = 10_000) -> Iterator[tuple[int, str]]:
    """Each row as one JSON line (without the newline), in order: a JSONL source's own lines, verbatim.

    Rows of other sources are serialised with ``json.dumps`` (values JSON cannot hold become strings).
    """
    import json

    if isinstance(loaded.rows, _JsonlBlocks):  # one object per line, no blank lines: stream the lines
        with open(loaded.rows.path, "rb") as handle:
            for number, line in enumerate(handle):
                yield number, line.rstrip(b"\n").rstrip(b"\r").decode("utf-8")
        return
    if loaded.kind == "jsonl" and loaded.path is not None:
        lines = _jsonl_lines(Path(loaded.path))
        if lines is not None and len(lines) == loaded.num_rows:
            yield from enumerate(lines)
            return
    for start in range(0, loaded.num_rows, batch_rows):
        for offset, record in enumerate(loaded.slice(start, start + batch_rows).to_pylist()):
            yield start + offset, json.dumps(record, ensure_ascii=False, default=str)


def _jsonl_lines(path: Path) -> list[str] | None:
    """The non-blank lines of a JSONL file, as ``read_jsonl`` counts rows; ``None`` if the file cannot be read."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return [line.rstrip(b"\r").decode("utf-8") for line in data.split(b"\n") if line.strip()]
