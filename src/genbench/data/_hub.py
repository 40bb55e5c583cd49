"""Hugging Face Hub datasets kept by genbench, keyed by (id, config name, revision), for offline machines.

``genbench-cli data fetch`` saves an ``hf`` data source (``save_to_disk``) under ``<cache_dir()>/hf/``, where loading
a task looks first; why not the ``datasets`` cache: docs/data.md#working-offline. An export is complete only with its
record (``genbench-hf-record.json``, every file's SHA-256), written last into a staging folder renamed into place.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genbench._core.errors import DataLoadError
from genbench._core.json_files import read_json_file
from genbench.data._cache import HUB_SUBDIR, cache_dir, file_sha256, remove_stale_downloads
from genbench.data._staging import replace_directory, staged_directory

RECORD_NAME = "genbench-hf-record.json"
_SAFE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class HubExport:
    """A Hub dataset saved by genbench at one revision.

    Attributes:
        hf_id: The dataset id (``glue``, ``org/name``).
        name: The config name, or None.
        revision: The pinned revision (commit SHA).
        path: The ``save_to_disk`` folder.
        files: Relative path to SHA-256 of every file in it (the record excluded).
    """

    hf_id: str
    name: str | None
    revision: str
    path: Path
    files: dict[str, str]

    def record(self) -> dict[str, Any]:
        """The JSON record written into the folder."""
        return {"hf_id": self.hf_id, "name": self.name, "revision": self.revision, "files": self.files}


def hub_export_dir(hf_id: str, name: str | None, revision: str) -> Path:
    """The folder genbench keeps the Hub dataset ``hf_id`` (config ``name``) at ``revision`` in.

    Raises:
        DataLoadError: A part is not a plain name (``..``, slashes other than one ``org/`` prefix, odd characters).

    >>> hub_export_dir("org/data", "en", "abc123").relative_to(cache_dir()).as_posix()
    'hf/org--data/en/abc123'
    """
    parts = hf_id.split("/")
    if len(parts) > 2 or not all(_SAFE_PART.match(part) for part in parts):
        raise DataLoadError(f"Hugging Face dataset id {hf_id!r} is not of the form 'name' or 'org/name'.")
    for label, value in (("config name", name or "default"), ("revision", revision)):
        if not _SAFE_PART.match(value):
            raise DataLoadError(f"The {label} {value!r} of dataset {hf_id!r} has characters genbench cannot store.")
    return cache_dir() / HUB_SUBDIR / "--".join(parts) / (name or "default") / revision


def find_hub_export(hf_id: str, name: str | None, revision: str) -> HubExport | None:
    """The complete export of this dataset revision, or None when there is none (or it lacks its record)."""
    try:
        folder = hub_export_dir(hf_id, name, revision)
    except DataLoadError:
        return None
    return _read_export(folder)


def list_hub_exports() -> list[HubExport]:
    """Every complete export in the cache."""
    root = cache_dir() / HUB_SUBDIR
    found = (_read_export(record.parent) for record in sorted(root.glob(f"*/*/*/{RECORD_NAME}")))
    return [export for export in found if export is not None]


def _read_export(folder: Path) -> HubExport | None:
    try:
        record = read_json_file(folder / RECORD_NAME, what="saved dataset record")  # damaged: not used, fetched again
        return HubExport(
            hf_id=str(record["hf_id"]),
            name=None if record.get("name") is None else str(record["name"]),
            revision=str(record["revision"]),
            path=folder,
            files={str(k): str(v) for k, v in dict(record["files"]).items()},
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def fetch_hub_dataset(hf_id: str, name: str | None, revision: str, *, refresh: bool = False) -> HubExport:
    """Load a Hub dataset at ``revision`` (from the Hub or ``datasets``' cache) and keep it as a genbench export.

    Args:
        hf_id: Dataset id.
        name: Config name, or None.
        revision: Pinned revision; required, since an export stands for data that never changes.
        refresh: Load and save again even when an export exists.

    Returns:
        The export.

    Raises:
        DataLoadError: The dataset cannot be loaded (the message names id and revision), or is streaming.
    """
    existing = None if refresh else find_hub_export(hf_id, name, revision)
    if existing is not None:
        return existing
    import datasets

    folder = hub_export_dir(hf_id, name, revision)
    remove_stale_downloads()
    description = f"Hugging Face dataset {hf_id!r}" + (f" (config {name!r})" if name else "")
    try:
        loaded = datasets.load_dataset(hf_id, name, revision=revision)
    except Exception as exc:  # datasets raises many unrelated types; keep the cause chained
        raise DataLoadError(
            f"Could not load the {description} at revision {revision!r}: {type(exc).__name__}: {exc}. "
            "`genbench-cli data fetch` needs access to the Hub (or the dataset in the HF_HOME cache)."
        ) from exc
    if not isinstance(loaded, (datasets.Dataset, datasets.DatasetDict)):
        raise DataLoadError(f"The {description} loaded as {type(loaded).__name__}, which cannot be saved.")
    with staged_directory(folder) as stage:
        loaded.save_to_disk(str(stage))
        files = {
            path.relative_to(stage).as_posix(): file_sha256(path)
            for path in sorted(stage.rglob("*"))
            if path.is_file()
        }
        export = HubExport(hf_id, name, revision, folder, files)
        _write_record(stage, export)
    return export


def install_hub_export(source: Path, export: HubExport) -> HubExport:
    """Move a verified export folder (``source``, on the cache's file system) into place; used by imports."""
    target = hub_export_dir(export.hf_id, export.name, export.revision)
    placed = HubExport(export.hf_id, export.name, export.revision, target, export.files)
    _write_record(source, placed)
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_directory(source, target)
    return placed


def _write_record(folder: Path, export: HubExport) -> None:
    (folder / RECORD_NAME).write_text(json.dumps(export.record(), indent=2) + "\n", encoding="utf-8")


def load_hub_export(export: HubExport) -> Any:
    """The dataset of an export (``datasets.load_from_disk``)."""
    import datasets

    try:
        return datasets.load_from_disk(str(export.path))
    except Exception as exc:  # datasets raises many unrelated types; keep the cause chained
        raise DataLoadError(
            f"The genbench copy of dataset {export.hf_id!r} at revision {export.revision!r} in {export.path} cannot "
            f"be read ({type(exc).__name__}: {exc}); delete the folder and run `genbench-cli data fetch` again."
        ) from exc
