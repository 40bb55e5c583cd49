"""Loading a task's ``data_source``: JSONL files by URI (``manual``) or a Hugging Face dataset (``hf``).

Both return a plain ``dict`` from split name to ``datasets.Dataset``, ordered train, validation, test, then
any other splits in their source order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from genbench._core.errors import DataLoadError
from genbench.data._cache import fetch, is_remote, refetch_hint
from genbench.data._confinement import check_confined
from genbench.data._hub import find_hub_export, load_hub_export
from genbench.data._jsonl import read_jsonl, read_jsonl_table

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa

    from genbench.config._schema import DataSourceConfig

SPLIT_ORDER = ("train", "validation", "test")

_OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")

T = TypeVar("T")


def order_splits(splits: Mapping[str, T]) -> dict[str, T]:
    """The same splits as a dict ordered train, validation, test, then the others in their given order.

    >>> list(order_splits({"test": 1, "extra": 2, "train": 3}))
    ['train', 'test', 'extra']
    """
    known = [name for name in SPLIT_ORDER if name in splits]
    return {name: splits[name] for name in [*known, *(name for name in splits if name not in SPLIT_ORDER)]}


def load_data_source(
    data_source: DataSourceConfig, task_dir: str | os.PathLike[str], *, progress: bool = False
) -> dict[str, datasets.Dataset]:
    """Load the examples a ``data_source`` config section points to.

    ``manual``: each declared split file (``train``/``validation``/``test``) is fetched with
    :func:`~genbench.data.fetch` (downloaded once into the cache, or read in place; verified against
    ``sha256[split]`` when given) and read with :func:`~genbench.data.read_jsonl`.

    ``hf``: the copy that ``genbench-cli data fetch`` (or ``data import``) saved for this id and revision, if
    any (no Hub access); else ``datasets.load_dataset(*hf_id, revision=git_commit_sha)``. When ``hf_id`` (or its
    first element) is an existing directory, absolute or relative to ``task_dir``, it is loaded locally instead: a
    folder written by ``save_to_disk`` with ``datasets.load_from_disk``, any other folder (e.g. of JSONL or Parquet
    files) with ``datasets.load_dataset(folder)``. A single ``Dataset`` becomes the ``test`` split.

    Args:
        data_source: The task config's ``data_source``.
        task_dir: The task directory (relative paths resolve against it).
        progress: Show progress bars for downloads.

    Returns:
        Split name to dataset, ordered train, validation, test, then the others.

    Raises:
        DataLoadError: The data cannot be fetched, verified, read or loaded (subclasses
            :class:`~genbench._core.errors.DataNotFoundError` and :class:`~genbench._core.errors.ChecksumMismatchError`
            included); the message names the file or dataset id and revision, with a hint when offline.

    >>> import tempfile, pathlib
    >>> from genbench.config._schema import DataSourceConfig
    >>> with tempfile.TemporaryDirectory() as task_dir:
    ...     _ = pathlib.Path(task_dir, "test.jsonl").write_text('{"input": "1+1", "target": "2"}\\n')
    ...     splits = load_data_source(DataSourceConfig(type="manual", test="test.jsonl"), task_dir)
    >>> {name: dataset.num_rows for name, dataset in splits.items()}
    {'test': 1}
    """
    task_dir = Path(task_dir)
    if data_source.type == "manual":
        return _load_manual(data_source, task_dir, progress=progress, reader=_read_dataset)
    if data_source.type == "hf":
        return _load_hf(data_source, task_dir)
    raise DataLoadError(f"Unknown data source type {data_source.type!r}: expected 'hf' or 'manual'.")


def load_manual_tables(
    data_source: DataSourceConfig, task_dir: str | os.PathLike[str], *, progress: bool = False
) -> dict[str, pa.Table]:
    """A ``manual`` data source's splits as ``pyarrow`` tables: :func:`load_data_source`'s rows, without ``datasets``.

    For the light paths (``genbench-cli show-task``) that must not pay for importing ``datasets``.

    Raises:
        DataLoadError: As :func:`load_data_source`; also for a data source that is not ``manual``.

    >>> import tempfile, pathlib
    >>> from genbench.config._schema import DataSourceConfig
    >>> with tempfile.TemporaryDirectory() as task_dir:
    ...     _ = pathlib.Path(task_dir, "test.jsonl").write_text('{"input": "1+1", "target": "2"}\\n')
    ...     tables = load_manual_tables(DataSourceConfig(type="manual", test="test.jsonl"), task_dir)
    >>> {name: table.num_rows for name, table in tables.items()}
    {'test': 1}
    """
    if data_source.type != "manual":
        raise DataLoadError(f"Only a 'manual' data source can be read as tables, not {data_source.type!r}.")
    return _load_manual(data_source, Path(task_dir), progress=progress, reader=_read_table)


def _read_dataset(path: Path, split: str) -> datasets.Dataset:
    return read_jsonl(path, split=split)


def _read_table(path: Path, split: str) -> pa.Table:
    return read_jsonl_table(path)


def _load_manual(
    data_source: DataSourceConfig,
    task_dir: Path,
    *,
    progress: bool,
    reader: Callable[[Path, str], T],
) -> dict[str, T]:
    uris = data_source.split_uris()
    if not uris:
        raise DataLoadError("A 'manual' data source declares no split file: set at least `test` (e.g. 'test.jsonl').")
    checksums: dict[str, str] = {str(split): digest for split, digest in (data_source.sha256 or {}).items()}
    orphans = sorted(set(checksums) - set(uris))
    if orphans:
        raise DataLoadError(
            f"data_source.sha256 gives a checksum for {', '.join(orphans)}, but the data source declares no such "
            "split file."
        )
    splits: dict[str, T] = {}
    for split, uri in uris.items():
        path = fetch(
            uri, base_dir=task_dir, sha256=checksums.get(split), progress=progress, field=f"data_source.{split}"
        )
        try:
            splits[split] = reader(path, split)
        except DataLoadError as exc:
            if not is_remote(uri):
                raise
            raise type(exc)(f"{exc} ({path} is the cached copy of {uri}: {refetch_hint(uri)}.)") from exc
    return order_splits(splits)


def _load_hf(data_source: DataSourceConfig, task_dir: Path) -> dict[str, datasets.Dataset]:
    hf_id = data_source.hf_id
    if hf_id is None:
        raise DataLoadError("An 'hf' data source needs `hf_id` (a dataset id, [id, config name] or a local folder).")
    path, *rest = [hf_id] if isinstance(hf_id, str) else list(hf_id)
    name = rest[0] if rest else None
    revision = data_source.git_commit_sha

    local = _local_directory(path, task_dir)
    if local is not None:
        description = f"local dataset {local}" + (f" (config {name!r})" if name else "")
        loaded = _load_local(local, name, description)
    else:
        description = f"Hugging Face dataset {path!r}" + (f" (config {name!r})" if name else "")
        description += f" at revision {revision!r}" if revision else " (no revision pinned)"
        export = find_hub_export(path, name, revision) if revision else None
        loaded = load_hub_export(export) if export is not None else _load_hub(path, name, revision, description)
    return _split_dict(loaded, description)


def _local_directory(path: str, task_dir: Path) -> Path | None:
    check_confined(path, uri=path, field="data_source.hf_id")  # a Hub id ('org/name') never leaves the task
    candidate = Path(path)
    if candidate.is_absolute():
        return candidate if candidate.is_dir() else None
    root = task_dir.resolve()
    resolved = (root / candidate).resolve()
    if not resolved.is_dir():
        return None
    if not resolved.is_relative_to(root):
        raise DataLoadError(
            f"hf_id {path!r} is a directory outside the task directory {root}; relative paths must stay inside "
            "it. Use an absolute path for a dataset stored elsewhere."
        )
    return resolved


def _load_local(directory: Path, name: str | None, description: str) -> Any:
    import datasets

    saved_with_save_to_disk = (directory / "dataset_dict.json").is_file() or (directory / "state.json").is_file()
    try:
        if saved_with_save_to_disk:
            return datasets.load_from_disk(str(directory))
        return datasets.load_dataset(str(directory), name)
    except Exception as exc:  # datasets raises many unrelated types; keep the cause chained
        raise DataLoadError(f"Could not load the {description}: {type(exc).__name__}: {exc}") from exc


def _load_hub(path: str, name: str | None, revision: str | None, description: str) -> Any:
    import datasets

    try:
        return datasets.load_dataset(path, name, revision=revision)
    except Exception as exc:  # datasets raises many unrelated types; keep the cause chained
        raise DataLoadError(f"Could not load the {description}: {type(exc).__name__}: {exc}{_hub_hint(exc)}") from exc


def _hub_hint(exc: BaseException) -> str:
    offline = [v for v in _OFFLINE_VARIABLES if os.environ.get(v, "").strip().upper() in {"1", "ON", "YES", "TRUE"}]
    if offline:
        return (
            f". Offline mode is on ({', '.join(f'{v}=1' for v in offline)}) and this dataset is neither in genbench's "
            "cache nor in the Hugging Face cache (HF_HOME / HF_DATASETS_CACHE): run `genbench-cli data fetch TASK` "
            "with network access (and `data export` / `data import` to carry it to this machine), or set hf_id to "
            "a local folder (written by save_to_disk, or holding the data files)."
        )
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 10:
        chain.append(current)
        current = current.__cause__ or current.__context__
    if any(isinstance(e, (ConnectionError, TimeoutError)) or "offline" in str(e).lower() for e in chain):
        return (
            ". The Hugging Face Hub could not be reached (the machine looks offline): run `genbench-cli data fetch "
            "TASK` once with network access, or set hf_id to a local folder."
        )
    return ""


def _split_dict(loaded: Any, description: str) -> dict[str, datasets.Dataset]:
    import datasets

    if isinstance(loaded, (datasets.IterableDataset, datasets.IterableDatasetDict)):
        raise DataLoadError(
            f"The {description} loaded as a streaming (iterable) dataset, which genbench cannot index or re-split; "
            "use a map-style dataset (no streaming)."
        )
    if isinstance(loaded, datasets.Dataset):
        return {"test": loaded}
    if isinstance(loaded, Mapping) and all(isinstance(split, datasets.Dataset) for split in loaded.values()):
        if not loaded:
            raise DataLoadError(f"The {description} has no splits.")
        return order_splits({str(name): split for name, split in loaded.items()})
    raise DataLoadError(f"The {description} loaded as {type(loaded).__name__}, not a Dataset or DatasetDict.")
