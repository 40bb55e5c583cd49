"""Re-splitting a data source with a ``split.jsonnet`` file: each target split lists ``"split:index"`` entries naming
examples of the loaded source. See docs/data.md#splitjsonnet-re-splitting.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench._core.errors import ConfigError, ConfigProblem
from genbench._core.json_files import unique_keys
from genbench.data._sources import order_splits
from genbench.data._split_features import reconcile_features

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa

logger = logging.getLogger(__name__)

SplitSpec = Mapping[str, Sequence[tuple[str, int]]]
"""A parsed split file: target split name to ``(source split, index)`` entries."""

MAX_REPORTED_PROBLEMS = 50
"""Problems listed one by one in an error; the rest are summed up in one final line."""

# "dev" as a word of its own ("dev", "dev_matched", "mnli-dev"), not inside another word ("device").
_DEV = re.compile(r"(?<![A-Za-z0-9])dev(?![A-Za-z0-9])")


def normalise_split_name(name: str) -> str:
    """A source split name as the original framework read it: no file extension, ``dev`` → ``validation``.

    >>> normalise_split_name("train.jsonl"), normalise_split_name("dev"), normalise_split_name("dev_matched.tsv")
    ('train', 'validation', 'validation_matched')
    """
    return _DEV.sub("validation", name.strip().split(".")[0])


def load_split_file(
    path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None
) -> dict[str, list[tuple[str, int]]]:
    """Evaluate and check a ``split.jsonnet`` file.

    Args:
        path: The split file (jsonnet, evaluated with imports confined to its directory).
        root: The task directory the file must be inside (after resolving symlinks); default: its own directory.

    Returns:
        Target split name to its ``(source split, index)`` entries, in file order; source names normalised by
        :func:`normalise_split_name`.

    Raises:
        ConfigError: The file is outside ``root`` or missing, cannot be evaluated, or is not an object mapping
            non-empty split names to lists of ``"split:index"`` strings. All malformed entries are reported
            together, each with its field path (``test[3]``: split name and position).

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as task_dir:
    ...     file = pathlib.Path(task_dir, "split.jsonnet")
    ...     _ = file.write_text("{test: ['test:%d' % i for i in [2, 0]], test_hard: ['dev:1', 'train.jsonl:1']}")
    ...     load_split_file(file)
    {'test': [('test', 2), ('test', 0)], 'test_hard': [('validation', 1), ('train', 1)]}
    """
    path = Path(path)
    _check_confined(path, Path(root) if root is not None else path.parent)
    return parse_split_spec(_evaluate(path), file=str(path))


def _check_confined(path: Path, root: Path) -> None:
    """The split file must be a file inside ``root`` (the task directory), also after resolving symlinks, so a
    config cannot make genbench read (and echo in an error) a file elsewhere."""
    resolved, real_root = path.resolve(), root.resolve()
    if not resolved.is_relative_to(real_root):
        raise ConfigError(
            str(path),
            [ConfigProblem("split_file", f"must be a file inside the task directory {real_root}; it is outside it")],
        )
    if not resolved.is_file():
        raise ConfigError(str(path), [ConfigProblem("split_file", "file not found in the task directory")])


def _evaluate(path: Path) -> Any:
    """The split document. Split files are often long literal lists (plain JSON, which is valid jsonnet), and
    Python's JSON parser reads those ~10x faster than jsonnet; anything else goes through sandboxed jsonnet,
    which also reports errors with their line and column."""
    from genbench.config._jsonnet import evaluate_jsonnet

    try:
        return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
    except (OSError, ValueError):  # not plain JSON (or a duplicate key, which jsonnet reports properly)
        return evaluate_jsonnet(path=path)


def parse_split_spec(document: object, *, file: str | None = None) -> dict[str, list[tuple[str, int]]]:
    """Check an evaluated split document and parse its ``"split:index"`` entries.

    Args:
        document: The evaluated split file.
        file: The file name used in error messages.

    Returns:
        As :func:`load_split_file`.

    Raises:
        ConfigError: Every malformed entry at once (the first :data:`MAX_REPORTED_PROBLEMS` one by one).

    >>> parse_split_spec({"test": ["test:1", "train-3", 7]}, file="split.jsonnet")
    Traceback (most recent call last):
    ...
    genbench._core.errors.ConfigError: split.jsonnet: test[1]: expected 'split:index' (e.g. 'train:3'), got 'train-3'
    split.jsonnet: test[2]: expected a 'split:index' string (e.g. 'train:3'), got the number 7
    """
    if not isinstance(document, dict):
        raise ConfigError(
            file,
            [ConfigProblem("", f"expected an object mapping split names to lists of 'split:index' strings, "
                                f"got {_json_kind(document)}")],
        )  # fmt: skip
    if not document:
        raise ConfigError(file, [ConfigProblem("", "the split file defines no splits")])
    problems: list[ConfigProblem] = []
    spec: dict[str, list[tuple[str, int]]] = {}
    normalised: dict[str, str] = {}  # few distinct source names, many entries
    for target, entries in document.items():
        if not target.strip():
            problems.append(ConfigProblem(repr(target), "split names must be non-empty"))
        if not isinstance(entries, list):
            problems.append(
                ConfigProblem(target, f"expected a list of 'split:index' strings, got {_json_kind(entries)}")
            )
            continue
        parsed = []
        for position, entry in enumerate(entries):
            if isinstance(entry, str):
                source, colon, index = entry.partition(":")
                index = index.strip()
                if colon and index.isdigit() and index.isascii():
                    name = normalised.get(source)
                    if name is None:
                        name = normalised[source] = normalise_split_name(source)
                    if name:
                        parsed.append((name, int(index)))
                        continue
            problems.append(ConfigProblem(f"{target}[{position}]", _entry_problem(entry)))
        spec[target] = parsed
    if problems:
        raise ConfigError(file, _capped(problems, "malformed entries"))
    return spec


def _entry_problem(entry: Any) -> str:
    """What is wrong with a malformed entry."""
    if not isinstance(entry, str):
        return f"expected a 'split:index' string (e.g. 'train:3'), got {_json_kind(entry)}"
    source, colon, index = entry.partition(":")
    index = index.strip()
    if colon and source.strip() and index.startswith("-") and index[1:].isdigit():
        return f"expected 'split:index' with a non-negative index, got {entry!r}"
    return f"expected 'split:index' (e.g. 'train:3'), got {entry!r}"


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {json.dumps(value)}"
    if isinstance(value, (int, float)):
        return f"the number {json.dumps(value)}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _capped(problems: list[ConfigProblem], what: str) -> list[ConfigProblem]:
    if len(problems) <= MAX_REPORTED_PROBLEMS:
        return problems
    rest = len(problems) - MAX_REPORTED_PROBLEMS
    return [*problems[:MAX_REPORTED_PROBLEMS], ConfigProblem("", f"... and {rest} more {what}")]


def resplit(
    datasets: Mapping[str, datasets.Dataset], spec: SplitSpec, *, file: str | os.PathLike[str] | None = None
) -> dict[str, datasets.Dataset]:
    """Build new splits from ``(source split, index)`` entries, e.g. those of :func:`load_split_file`.

    Each target split holds the named examples in order (duplicates kept). Target names need not exist in
    the source (``test_hard`` is fine); source splits not named as targets are dropped. Examples are taken
    with ``concatenate_datasets`` and ``select`` (an index mapping, no copy of the rows). When one target
    draws from several source splits whose features differ, they are reconciled where that loses nothing
    (a ``ClassLabel`` and in-range integers become the ``ClassLabel``, integers and floats become floats, a
    null column takes the other type); any other difference is an error.

    Args:
        datasets: The loaded data source, split name to dataset.
        spec: Target split name to ``(source split, index)`` entries.
        file: The split file, for error messages.

    Returns:
        Target split name to dataset, ordered train, validation, test, then the others in ``spec`` order.

    Raises:
        ConfigError: Entries naming a source split the data source lacks or an index out of range, all at
            once, each with its field path (``test[3]``), the available splits and their sizes.
        DataLoadError: One target mixes source splits whose features cannot be reconciled.

    >>> from datasets import Dataset
    >>> source = {"train": Dataset.from_dict({"x": ["a", "b", "c"]}), "test": Dataset.from_dict({"x": ["d"]})}
    >>> new = resplit(source, {"test": [("test", 0), ("train", 2)], "test_hard": [("train", 1), ("train", 1)]})
    >>> {name: list(split["x"]) for name, split in new.items()}
    {'test': ['d', 'c'], 'test_hard': ['b', 'b']}
    """
    file_name = None if file is None else str(file)
    plans = _plan(datasets, spec, file_name)
    result = {}
    for target, (codes, indices) in plans.items():
        result[target] = _build_split(datasets, list(datasets), target, codes, indices, file_name)
    return order_splits(result)


def resplit_tables(
    tables: Mapping[str, pa.Table], spec: SplitSpec, *, file: str | os.PathLike[str] | None = None
) -> dict[str, pa.Table] | None:
    """:func:`resplit` over ``pyarrow`` tables, for the light paths that must not import ``datasets``.

    Returns:
        Target split name to table (the rows :func:`resplit` selects, in its order), or None when a target draws
        from source splits whose columns differ: reconciling them needs ``datasets``' feature types (use
        :func:`resplit`).

    Raises:
        ConfigError: As :func:`resplit`.

    >>> import pyarrow as pa
    >>> source = {"train": pa.table({"x": ["a", "b", "c"]}), "test": pa.table({"x": ["d"]})}
    >>> new = resplit_tables(source, {"test": [("test", 0), ("train", 2)], "test_hard": [("train", 1)]})
    >>> {name: table.column("x").to_pylist() for name, table in new.items()}
    {'test': ['d', 'c'], 'test_hard': ['b']}
    """
    import numpy as np
    import pyarrow as pa

    from genbench.data._arrow_values import integer_array

    file_name = None if file is None else str(file)
    plans = _plan(tables, spec, file_name)
    sources = list(tables)
    result = {}
    for target, (codes, indices) in plans.items():
        used = list(dict.fromkeys(codes.tolist()))
        if not used:
            logger.warning("%s: split %r has no entries; it is empty.", file_name or "split file", target)
            result[target] = tables[sources[0]].slice(0, 0) if sources else pa.Table.from_arrays([], names=[])
            continue
        parts = [tables[sources[code]] for code in used]
        if any(not part.schema.equals(parts[0].schema) for part in parts[1:]):
            return None
        offsets = np.zeros(len(sources), dtype=np.int64)
        start = 0
        for code, part in zip(used, parts, strict=True):
            offsets[code] = start
            start += part.num_rows
        combined = parts[0] if len(parts) == 1 else pa.concat_tables(parts)
        result[target] = combined.take(integer_array(offsets[codes] + indices))
    return order_splits(result)


def _plan(splits: Mapping[str, Any], spec: SplitSpec, file_name: str | None) -> dict[str, tuple[Any, Any]]:
    """Each target's ``(source codes, indices)`` arrays, after checking every entry against the sources' sizes."""
    import numpy as np

    sources = list(splits)
    sizes = np.array([len(splits[name]) for name in sources] + [0], dtype=np.int64)  # [-1]: unknown splits
    available = ", ".join(f"{name} ({len(splits[name])} examples)" for name in sources) or "no splits"
    codes_by_name: dict[str, int] = {}

    def code_of(name: str) -> int:
        if name not in codes_by_name:
            codes_by_name[name] = _source_code(name, sources)
        return codes_by_name[name]

    problems: list[ConfigProblem] = []
    mismatches = 0
    plans: dict[str, tuple[Any, Any]] = {}
    for target, entries in spec.items():
        codes = np.array([code_of(entry[0]) for entry in entries], dtype=np.int64).reshape(-1)
        indices = np.array([entry[1] for entry in entries], dtype=np.int64).reshape(-1)
        known = codes >= 0
        bad = np.flatnonzero(~known | (indices < 0) | (indices >= sizes[codes]))
        mismatches += len(bad)
        for position in bad[: max(0, MAX_REPORTED_PROBLEMS - len(problems))]:
            source, index = entries[position]
            if not known[position]:
                message = f"unknown source split {source!r}; the data source has {available}"
            else:
                size = int(sizes[codes[position]])
                message = f"index {index} is out of range for split {source!r}, which has {size} examples" + (
                    f" (indices 0-{size - 1})" if size else ""
                )
            problems.append(ConfigProblem(f"{target}[{position}]", message))
        plans[target] = (codes, indices)
    if problems:
        if mismatches > len(problems):
            rest = mismatches - len(problems)
            problems.append(ConfigProblem("", f"... and {rest} more entries that do not match the data source"))
        raise ConfigError(file_name, problems)
    return plans


def _source_code(name: str, sources: list[str]) -> int:
    """Position of source split ``name`` in ``sources``, or -1; a normalised ``validation`` also finds ``dev``."""
    if name in sources:
        return sources.index(name)
    original = name.replace("validation", "dev")
    return sources.index(original) if original in sources else -1


def _build_split(
    splits: Mapping[str, datasets.Dataset], sources: list[str], target: str, codes: Any, indices: Any, file: str | None
) -> datasets.Dataset:
    import numpy as np
    from datasets import concatenate_datasets

    used = list(dict.fromkeys(codes.tolist()))
    if not used:
        logger.warning("%s: split %r has no entries; it is empty.", file or "split file", target)
        return splits[sources[0]].select([], keep_in_memory=True) if sources else _empty_dataset()
    if len(used) == 1:
        # keep_in_memory: the index mapping is a small array; never write it next to a dataset's files.
        return splits[sources[used[0]]].select(indices, keep_in_memory=True)
    where = f"{file or 'split file'}: split {target!r}"
    parts = reconcile_features({sources[code]: splits[sources[code]] for code in used}, where=where)
    offsets = np.zeros(len(sources), dtype=np.int64)
    start = 0
    for code, part in zip(used, parts, strict=True):
        offsets[code] = start
        start += len(part)
    combined = concatenate_datasets(parts)
    return combined.select(offsets[codes] + indices, keep_in_memory=True)


def _empty_dataset() -> datasets.Dataset:
    from datasets import Dataset

    return Dataset.from_dict({})
