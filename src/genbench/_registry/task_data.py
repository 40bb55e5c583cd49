"""The data files a registry task needs, read from its config alone (no task code runs), and fetching them.

Used by ``genbench-cli data fetch`` / ``data export`` / ``data add``: a task's (or every subtask's)
``data_source`` names remote files (``http(s)://``, kept in the download cache), files in the task directory or
elsewhere on disk (used in place, nothing to fetch), or a Hugging Face dataset at a pinned revision (kept as a
genbench export, :mod:`genbench.data._hub`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from genbench._core.errors import DataLoadError
from genbench._registry.directories import get_task_dir
from genbench.data._cache import cached_entry, fetch, file_sha256, is_remote
from genbench.data._confinement import leaves_task_dir
from genbench.data._hub import HubExport, fetch_hub_dataset, find_hub_export


@dataclass(frozen=True)
class DataFile:
    """One split file of a ``manual`` data source.

    Attributes:
        task_id: The task (``id`` or ``id:subtask``) whose config names the file.
        task_dir: Its directory.
        split: The split (``train``, ``validation``, ``test``).
        uri: The URI as written in the config.
        sha256: The pinned SHA-256, if any.
    """

    task_id: str
    task_dir: Path
    split: str
    uri: str
    sha256: str | None

    @property
    def field(self) -> str:
        """The config field naming the file."""
        return f"data_source.{self.split}"

    @property
    def remote(self) -> bool:
        """Whether the file is downloaded into the cache."""
        return is_remote(self.uri)


@dataclass(frozen=True)
class HubDataset:
    """The Hugging Face dataset of an ``hf`` data source.

    Attributes:
        task_id: The task whose config names it.
        hf_id: The dataset id.
        name: The config name, or None.
        revision: The pinned ``git_commit_sha``, or None.
    """

    task_id: str
    hf_id: str
    name: str | None
    revision: str | None


def task_data(task_ids: Iterable[str]) -> list[DataFile | HubDataset]:
    """Every data file and Hub dataset the given tasks need (a TaskDict: those of all its subtasks).

    Local ``hf`` folders are left out: they are files of the task, not downloads.

    Raises:
        TaskNotFoundError: An id is not in the registry.
        ConfigError: A config cannot be read.
    """
    found: list[DataFile | HubDataset] = []
    for task_id in task_ids:
        for leaf_id in _leaf_tasks(task_id):
            found += _needs(leaf_id)
    return found


def _leaf_tasks(task_id: str) -> Iterator[str]:
    from genbench._registry.task_configs import load_config
    from genbench.config._schema import TaskDictConfig

    config = load_config(task_id)
    if not isinstance(config, TaskDictConfig) or ":" in task_id:
        yield task_id
        return
    task_dir = get_task_dir(task_id)
    subtasks = config.subtasks_order or sorted(
        p.name for p in task_dir.iterdir() if (p / "config.jsonnet").is_file() and not p.name.startswith((".", "_"))
    )
    for subtask in subtasks:
        yield f"{task_id}:{subtask}"


def _needs(task_id: str) -> list[DataFile | HubDataset]:
    from genbench._registry.task_configs import load_config
    from genbench.config._schema import TaskConfig

    config = load_config(task_id)
    if not isinstance(config, TaskConfig):
        return []
    root_id, _, subtask_id = task_id.partition(":")
    task_dir = get_task_dir(root_id, subtask_id or None)
    source = config.data_source
    if source.type == "manual":
        checksums = {str(split): digest for split, digest in (source.sha256 or {}).items()}
        return [
            DataFile(task_id, task_dir, split, uri, checksums.get(split)) for split, uri in source.split_uris().items()
        ]
    if source.type == "hf" and source.hf_id is not None:
        path, *rest = [source.hf_id] if isinstance(source.hf_id, str) else list(source.hf_id)
        if leaves_task_dir(path) or (task_dir / path).is_dir():  # a local folder, never a Hub id
            return []
        return [HubDataset(task_id, path, rest[0] if rest else None, source.git_commit_sha)]
    return []


@dataclass(frozen=True)
class Fetched:
    """What :func:`fetch_one` did for one requirement.

    Attributes:
        item: The data file or Hub dataset.
        path: The local file or the export folder.
        sha256: A file's SHA-256 (None for a Hub dataset).
    """

    item: DataFile | HubDataset
    path: Path
    sha256: str | None


def fetch_one(item: DataFile | HubDataset, *, refresh: bool = False, progress: bool = False) -> Fetched:
    """Fetch one requirement into the cache (a local file is only checked and hashed).

    Raises:
        DataLoadError: The download or load failed, a pinned SHA-256 does not match, a Hub dataset has no
            pinned revision.
    """
    if isinstance(item, HubDataset):
        if item.revision is None:
            raise DataLoadError(
                f"{item.task_id}: data_source.git_commit_sha is not set, so the Hugging Face dataset {item.hf_id!r} "
                "could change under the task; pin the dataset repository's commit to fetch it for offline use."
            )
        export = fetch_hub_dataset(item.hf_id, item.name, item.revision, refresh=refresh)
        return Fetched(item, export.path, None)
    path = fetch(
        item.uri, base_dir=item.task_dir, sha256=item.sha256, progress=progress, refresh=refresh, field=item.field
    )
    entry = cached_entry(item.uri) if item.remote else None
    return Fetched(item, path, entry.sha256 if entry is not None else file_sha256(path))


def cached_hub_export(item: HubDataset) -> HubExport | None:
    """The export of a Hub dataset requirement, or None when it has not been fetched."""
    return find_hub_export(item.hf_id, item.name, item.revision) if item.revision else None


def describe(item: DataFile | HubDataset) -> str:
    """A short description for listings: ``task: field uri`` or ``task: hf id (config) @ revision``."""
    if isinstance(item, DataFile):
        return f"{item.task_id}: {item.field} {item.uri}"
    config = f" ({item.name})" if item.name else ""
    return f"{item.task_id}: Hugging Face dataset {item.hf_id}{config} @ {item.revision or 'unpinned'}"
