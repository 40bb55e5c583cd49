"""Data bundles: cached task data in one tar file, to carry to a machine without internet.

``export_bundle`` writes the tasks' cached data into a tar with a manifest; ``import_bundle`` trusts nothing in it
(links, special files, members tarfile's ``data`` filter refuses or renames, members not listed or missing), verifies
every file in a scratch folder and only then moves each entry into place, at a destination computed from its URI or
(id, config, revision), never from a member name. See docs/data.md#working-offline.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tarfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from genbench._core.errors import ChecksumMismatchError, DataLoadError
from genbench._core.json_files import loads_strict
from genbench._core.settings import positive_env_number
from genbench._core.version import VERSION
from genbench._registry.task_data import DataFile, cached_hub_export, describe, task_data
from genbench.data._cache import (
    DOWNLOADS_SUBDIR,
    EMPTY_SHA256,
    HUB_SUBDIR,
    RECORDS_SUBDIR,
    CacheEntry,
    cache_dir,
    cached_entry,
    cached_path,
    file_sha256,
    install_download,
    is_remote,
    remove_stale_downloads,
)
from genbench.data._download import MAX_BYTES_ENV, DownloadLimits
from genbench.data._hub import HubExport, hub_export_dir, install_hub_export
from genbench.data._jsonl import validate_jsonl
from genbench.data._staging import scratch_directory, staged_file

MANIFEST_NAME = "genbench-data-manifest.json"
BUNDLE_FORMAT = "genbench-data-bundle"
BUNDLE_VERSION = 1
_MAX_MANIFEST_BYTES = 64 << 20
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_CHUNK_BYTES = 1 << 20


@dataclass
class BundleSummary:
    """What a bundle holds (export) or what was installed from it (import)."""

    files: list[CacheEntry] = field(default_factory=list)
    hub_datasets: list[HubExport] = field(default_factory=list)


def export_bundle(task_ids: list[str], output: str | os.PathLike[str]) -> BundleSummary:
    """Write the cached data of ``task_ids`` into the tar file ``output`` (written atomically).

    Files inside the task directories are not included: they travel with the tasks.

    Raises:
        DataLoadError: Some data of the tasks is not in the cache (the message lists it and says to run
            ``genbench-cli data fetch`` first), or a cached file changed since it was fetched.
    """
    summary = BundleSummary()
    missing = []
    for item in task_data(task_ids):
        if isinstance(item, DataFile):
            if not item.remote:
                continue
            entry = cached_entry(item.uri)
            if entry is None or (item.sha256 is not None and entry.sha256 != item.sha256):
                missing.append(describe(item))
            elif entry not in summary.files:
                summary.files.append(entry)
        else:
            export = cached_hub_export(item)
            if export is None:
                missing.append(describe(item))
            elif export not in summary.hub_datasets:
                summary.hub_datasets.append(export)
    if missing:
        raise DataLoadError(
            "Not in the genbench cache (or not matching the pinned sha256), so it cannot be exported: "
            + "; ".join(missing)
            + f". Run `genbench-cli data fetch {' '.join(task_ids)}` on a machine with network access first."
        )
    _check_output_outside_cache(Path(output))
    manifest = _manifest(summary, task_ids)
    with staged_file(Path(output)) as (out, _), tarfile.open(fileobj=out, mode="w") as tar:
        _add_bytes(tar, MANIFEST_NAME, json.dumps(manifest, indent=2).encode("utf-8") + b"\n")
        for entry, record in zip(summary.files, manifest["files"], strict=True):
            _add_file(tar, record["member"], entry.path, entry.sha256)
        for export, record in zip(summary.hub_datasets, manifest["hub_datasets"], strict=True):
            for relative, digest in export.files.items():
                _add_file(tar, f"{record['member']}/{relative}", export.path / relative, digest)
    return summary


def _check_output_outside_cache(output: Path) -> None:
    """Refuse a bundle written into the cache's own folders: over a cached file it would replace the very data it
    holds (and the entry, its size no longer matching its record, would be lost)."""
    target = output.parent.resolve() / output.name  # the bundle replaces this name (a link there, not its target)
    root = cache_dir().resolve()
    for managed in (DOWNLOADS_SUBDIR, RECORDS_SUBDIR, HUB_SUBDIR):
        if target.is_relative_to(root / managed):
            raise DataLoadError(
                f"{output} is inside the genbench cache ({root / managed}); a bundle written there would replace "
                "cached data. Write it somewhere else, e.g. `-o data.tar`."
            )


def _manifest(summary: BundleSummary, task_ids: list[str]) -> dict[str, Any]:
    return {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "created_by": f"genbench {VERSION}",
        "tasks": list(task_ids),
        "files": [
            {"uri": e.uri, "sha256": e.sha256, "size": e.size, "member": f"downloads/{e.path.name}"}
            for e in summary.files
        ],
        "hub_datasets": [
            {
                "hf_id": x.hf_id,
                "name": x.name,
                "revision": x.revision,
                "member": f"hf/{index}",
                "files": {
                    rel: {"sha256": digest, "size": (x.path / rel).stat().st_size} for rel, digest in x.files.items()
                },
            }
            for index, x in enumerate(summary.hub_datasets)
        ],
    }


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(time.time())
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


def _add_file(tar: tarfile.TarFile, name: str, path: Path, sha256: str) -> None:
    if file_sha256(path) != sha256:
        raise DataLoadError(
            f"The cached file {path} changed since it was fetched (its SHA-256 is no longer {sha256}); run "
            "`genbench-cli data fetch --refresh` for its task, then export again."
        )
    info = tarfile.TarInfo(name)  # a fresh header: only a regular file's name, size and mode go into the bundle
    info.size = path.stat().st_size
    info.mtime = int(path.stat().st_mtime)
    info.mode = 0o644
    with open(path, "rb") as stream:
        tar.addfile(info, stream)


def import_bundle(bundle: str | os.PathLike[str]) -> BundleSummary:
    """Install the data of a bundle written by :func:`export_bundle` into this machine's cache.

    Nothing is installed unless every member is safe and listed, and every file matches its size and SHA-256.

    Raises:
        DataLoadError: The file is not a readable tar, has no valid manifest, has an unsafe, unlisted or missing
            member, or a download that is not valid JSONL.
        ChecksumMismatchError: A file does not match the manifest.
    """
    where = str(bundle)
    limits = ImportLimits.from_environment()
    try:
        tar = tarfile.open(bundle, mode="r:*")  # noqa: SIM115 - closed by the `with` below, after the checks
    except _DAMAGED_STREAM as exc:
        raise DataLoadError(f"{where}: not a readable tar file ({exc}).") from exc
    remove_stale_downloads()
    with tar, scratch_directory(cache_dir()) as scratch:
        members = _checked_members(tar, scratch, where)
        manifest = _read_manifest(tar, members, where)
        files, hubs = _planned(manifest, members, where)
        _check_sizes(files, hubs, limits, where)  # before anything is written: a bomb fails here
        budget = _Budget(limits.max_total_bytes, where)
        staged_files = []
        for index, record in enumerate(files):
            staged = scratch / "files" / str(index)
            _extract(tar, members[record["member"]], staged, record["sha256"], record["size"], where, budget)
            validate_jsonl(
                staged.read_bytes(),
                source=f"{where}: {record['member']} ({record['uri']})",
                allow_empty=record["sha256"] == EMPTY_SHA256,
            )
            staged_files.append(staged)
        staged_hubs = []
        for index, record in enumerate(hubs):
            folder = scratch / "hf" / str(index)
            for relative, expected in record["files"].items():
                member = members[f"{record['member']}/{relative}"]
                _extract(tar, member, folder / relative, expected["sha256"], expected["size"], where, budget)
            staged_hubs.append(folder)

        summary = BundleSummary()
        for record, staged in zip(files, staged_files, strict=True):
            summary.files.append(install_download(record["uri"], staged, record["sha256"], record["size"], "import"))
        for record, folder in zip(hubs, staged_hubs, strict=True):
            export = HubExport(
                record["hf_id"],
                record["name"],
                record["revision"],
                folder,
                {rel: value["sha256"] for rel, value in record["files"].items()},
            )
            summary.hub_datasets.append(install_hub_export(folder, export))
    return summary


@dataclass(frozen=True)
class ImportLimits:
    """Bounds of one ``data import``: the largest download file and the most bytes extracted in all.

    A download in a bundle may be no larger than a download could be (``$GENBENCH_MAX_DOWNLOAD_BYTES``, 5 GiB by
    default); everything extracted together no more than ``$GENBENCH_MAX_IMPORT_BYTES`` (20 GiB by default). Both
    are checked on the manifest's sizes before anything is written, and again while bytes are written.
    """

    max_file_bytes: int
    max_total_bytes: int

    @classmethod
    def from_environment(cls) -> ImportLimits:
        """The limits set in the environment, else the defaults.

        >>> ImportLimits.from_environment().max_total_bytes == DEFAULT_MAX_IMPORT_BYTES
        True
        """
        return cls(
            max_file_bytes=DownloadLimits.from_environment().max_bytes,
            max_total_bytes=positive_env_number(MAX_IMPORT_BYTES_ENV, DEFAULT_MAX_IMPORT_BYTES, int),
        )


MAX_IMPORT_BYTES_ENV = "GENBENCH_MAX_IMPORT_BYTES"
"""Environment variable: the most bytes one ``data import`` extracts."""
DEFAULT_MAX_IMPORT_BYTES = 20 * 1024**3
_MAX_MEMBERS = 1_000_000
try:
    from lzma import LZMAError as _LZMAError
except ImportError:  # a Python built without lzma reads no .tar.xz anyway
    _LZMAError = EOFError  # type: ignore[assignment,misc]
_DAMAGED_STREAM = (OSError, EOFError, zlib.error, _LZMAError, tarfile.TarError)
"""What reading a damaged tar raises (gzip.BadGzipFile and bz2 errors are OSErrors)."""
_MAX_MANIFEST_DEPTH = 16


def _check_sizes(files: list[dict[str, Any]], hubs: list[dict[str, Any]], limits: ImportLimits, where: str) -> None:
    for record in files:
        if record["size"] > limits.max_file_bytes:
            raise DataLoadError(
                f"{where}: {record['member']} declares {record['size']} bytes, more than a download may have "
                f"(${MAX_BYTES_ENV}={limits.max_file_bytes}); the bundle is refused before anything is extracted. "
                f"Raise ${MAX_BYTES_ENV} if the file is really that large."
            )
    total = sum(r["size"] for r in files) + sum(f["size"] for r in hubs for f in r["files"].values())
    if total > limits.max_total_bytes:
        raise DataLoadError(
            f"{where}: the manifest declares {total} bytes in all, more than one import may extract "
            f"(${MAX_IMPORT_BYTES_ENV}={limits.max_total_bytes}); the bundle is refused before anything is "
            f"extracted. Raise ${MAX_IMPORT_BYTES_ENV} if the data is really that large."
        )


class _Budget:
    """The bytes an import may still write (a second guard beside the declared sizes)."""

    def __init__(self, total: int, where: str):
        self.left = total
        self.where = where

    def spend(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise DataLoadError(f"{self.where}: extraction passed ${MAX_IMPORT_BYTES_ENV}; the bundle is refused.")


def _checked_members(tar: tarfile.TarFile, scratch: Path, where: str) -> dict[str, tarfile.TarInfo]:
    members: dict[str, tarfile.TarInfo] = {}
    infos = []
    try:
        for info in tar:
            infos.append(info)
            if len(infos) > _MAX_MEMBERS:
                raise DataLoadError(f"{where}: more than {_MAX_MEMBERS} members; the bundle is refused.")
    except _DAMAGED_STREAM as exc:
        raise DataLoadError(f"{where}: the tar file is damaged ({exc}).") from exc
    for info in infos:
        if not (info.isfile() or info.isdir()):
            raise DataLoadError(
                f"{where}: member {info.name!r} is a link or special file; a genbench bundle holds only regular "
                "files, so the bundle is refused."
            )
        _check_path(info, scratch, where)
        normal = PurePosixPath(info.name).as_posix()
        if info.isfile():
            if normal in members:
                raise DataLoadError(f"{where}: member {normal!r} appears twice; the bundle is refused.")
            members[normal] = info
    return members


def _check_path(info: tarfile.TarInfo, scratch: Path, where: str) -> None:
    """Refuse a member that tarfile's ``data`` filter (PEP 706) refuses or renames (a leading ``/`` it strips).

    Nothing is extracted by member name (destinations come from the manifest's URIs and ids); the filter is asked
    whether extracting the member into ``scratch`` would be safe, and a bundle with any unsafe member is refused.
    """
    data_filter = getattr(tarfile, "data_filter", None)
    if data_filter is None:  # Python 3.10.0-3.10.11, 3.11.0-3.11.3: before the security releases that added it
        raise DataLoadError(
            f"{where}: importing a bundle needs tarfile's data filter (Python 3.10.12+, 3.11.4+); upgrade Python."
        )
    try:
        safe = data_filter(info, str(scratch))
    except tarfile.FilterError as exc:
        raise DataLoadError(
            f"{where}: member {info.name!r} has an absolute or escaping path ({exc}); the bundle is refused."
        ) from None
    if safe.name != info.name:
        raise DataLoadError(f"{where}: member {info.name!r} has an absolute or escaping path; the bundle is refused.")


def _read_manifest(tar: tarfile.TarFile, members: dict[str, tarfile.TarInfo], where: str) -> dict[str, Any]:
    info = members.get(MANIFEST_NAME)
    if info is None:
        raise DataLoadError(
            f"{where}: no {MANIFEST_NAME}; this is not a bundle written by `genbench-cli data export`."
        )
    if info.size > _MAX_MANIFEST_BYTES:
        raise DataLoadError(f"{where}: {MANIFEST_NAME} is implausibly large ({info.size} bytes).")
    try:
        stream = tar.extractfile(info)
        data = stream.read() if stream is not None else b""
    except _DAMAGED_STREAM as exc:
        raise DataLoadError(f"{where}: the tar file is damaged ({exc}).") from exc
    manifest = loads_strict(
        data, source=f"{where}: {MANIFEST_NAME}", max_depth=_MAX_MANIFEST_DEPTH, error=DataLoadError
    )
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        raise DataLoadError(f"{where}: {MANIFEST_NAME} is not a {BUNDLE_FORMAT} manifest.")
    if manifest.get("version") != BUNDLE_VERSION:
        raise DataLoadError(
            f"{where}: bundle format version {manifest.get('version')!r}, but this genbench reads version "
            f"{BUNDLE_VERSION}; export it again with the same genbench version as the importing machine."
        )
    return manifest


def _planned(
    manifest: dict[str, Any], members: dict[str, tarfile.TarInfo], where: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The manifest's entries, each checked for shape and safe destinations; every member accounted for."""
    files, hubs = manifest.get("files"), manifest.get("hub_datasets")
    if not isinstance(files, list) or not isinstance(hubs, list):
        raise DataLoadError(f"{where}: {MANIFEST_NAME} needs lists 'files' and 'hub_datasets'.")
    listed = {MANIFEST_NAME}
    for position, record in enumerate(files):
        spot = f"{where}: {MANIFEST_NAME} files[{position}]"
        if not isinstance(record, dict) or not isinstance(record.get("uri"), str) or not is_remote(record["uri"]):
            raise DataLoadError(f"{spot}: needs a 'uri' with http:// or https://.")
        try:
            cached_path(record["uri"])  # checked before anything is extracted, not when it is installed
        except DataLoadError as exc:
            raise DataLoadError(f"{spot}: {exc}") from None
        _check_digest(record, spot)
        record["member"] = _member_name(record, spot)  # looked up by its normal form, as members are
        if record["member"] in listed:
            raise DataLoadError(f"{spot}: member {record['member']!r} is listed twice; the bundle is refused.")
        listed.add(record["member"])
    for position, record in enumerate(hubs):
        spot = f"{where}: {MANIFEST_NAME} hub_datasets[{position}]"
        if not isinstance(record, dict) or not all(isinstance(record.get(k), str) for k in ("hf_id", "revision")):
            raise DataLoadError(f"{spot}: needs 'hf_id' and 'revision' strings.")
        if record.get("name") is not None and not isinstance(record["name"], str):
            raise DataLoadError(f"{spot}: 'name' must be a string or null.")
        hub_export_dir(record["hf_id"], record.get("name"), record["revision"])  # raises for unsafe parts
        record.setdefault("name", None)
        prefix = record["member"] = _member_name(record, spot)
        if not isinstance(record.get("files"), dict) or not record["files"]:
            raise DataLoadError(f"{spot}: needs a non-empty 'files' object.")
        normal_files: dict[str, Any] = {}
        for relative, expected in record["files"].items():
            parts = PurePosixPath(relative).parts
            if not parts or ".." in parts or relative.startswith("/") or "\\" in relative or parts == (".",):
                raise DataLoadError(f"{spot}: file name {relative!r} is absolute or escaping.")
            _check_digest(expected, f"{spot} files[{relative!r}]")
            normal = PurePosixPath(*parts).as_posix()
            if normal in normal_files:
                raise DataLoadError(f"{spot}: file {normal!r} is listed twice; the bundle is refused.")
            normal_files[normal] = expected
        _check_no_file_is_a_folder(normal_files, spot)
        record["files"] = normal_files
        for normal in normal_files:
            name = f"{prefix}/{normal}"
            if name in listed:
                raise DataLoadError(f"{spot}: member {name!r} is listed twice; the bundle is refused.")
            listed.add(name)
    unlisted = sorted(set(members) - listed)
    absent = sorted(listed - set(members))
    if unlisted or absent:
        details = "; ".join(
            part
            for part in (
                f"members not in the manifest: {', '.join(unlisted[:5])}" if unlisted else "",
                f"listed but missing: {', '.join(absent[:5])}" if absent else "",
            )
            if part
        )
        raise DataLoadError(f"{where}: the tar and its manifest disagree ({details}); the bundle is refused.")
    return files, hubs


def _check_no_file_is_a_folder(files: dict[str, Any], spot: str) -> None:
    """Refuse ``a`` beside ``a/b``: one name cannot be a file and the folder of another."""
    folders = {parent.as_posix() for name in files for parent in PurePosixPath(name).parents}
    clashes = sorted(name for name in files if name in folders)
    if clashes:
        raise DataLoadError(
            f"{spot}: {clashes[0]!r} is listed as a file and as the folder of another file; the bundle is refused."
        )


def _member_name(record: dict[str, Any], spot: str) -> str:
    member = record.get("member")
    parts = PurePosixPath(member).parts if isinstance(member, str) else ()
    if not parts or ".." in parts or str(member).startswith("/"):
        raise DataLoadError(f"{spot}: 'member' must be a relative path inside the bundle.")
    return PurePosixPath(*parts).as_posix()


def _check_digest(record: Any, spot: str) -> None:
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("sha256"), str)
        or not _SHA256.match(record["sha256"])
    ):
        raise DataLoadError(f"{spot}: needs a 'sha256' of 64 lowercase hex digits.")
    if not isinstance(record.get("size"), int) or isinstance(record["size"], bool) or record["size"] < 0:
        raise DataLoadError(f"{spot}: needs a 'size' in bytes.")


def _extract(
    tar: tarfile.TarFile, info: tarfile.TarInfo, target: Path, sha256: str, size: int, where: str, budget: _Budget
) -> None:
    """Stream one member into ``target``, hashing it; stopped at its declared ``size`` and the import's budget."""
    if info.size != size:
        raise ChecksumMismatchError(f"{where}: {info.name} has {info.size} bytes, the manifest says {size}.")
    try:
        stream = tar.extractfile(info)
        if stream is None:
            raise DataLoadError(f"{where}: {info.name} cannot be read.")
        target.parent.mkdir(parents=True, exist_ok=True)
        hasher = hashlib.sha256()
        with stream, open(target, "xb") as out:
            written = 0
            while chunk := _read_member(stream, min(_CHUNK_BYTES, size - written + 1), info.name, where):
                written += len(chunk)
                if written > size:
                    raise ChecksumMismatchError(f"{where}: {info.name} has more than the {size} bytes declared.")
                budget.spend(len(chunk))
                out.write(chunk)
                hasher.update(chunk)
    except FileExistsError:
        raise DataLoadError(f"{where}: {info.name} is listed twice in the manifest; the bundle is refused.") from None
    except (NotADirectoryError, IsADirectoryError):
        raise DataLoadError(
            f"{where}: {info.name} is a file and a folder of another file at once; the bundle is refused."
        ) from None
    except (EOFError, zlib.error, _LZMAError, tarfile.TarError) as exc:  # from extractfile; reads: _read_member
        raise DataLoadError(f"{where}: the tar file is damaged at {info.name} ({exc}).") from exc
    if hasher.hexdigest() != sha256:
        raise ChecksumMismatchError(
            f"{where}: {info.name} has SHA-256 {hasher.hexdigest()}, the manifest says {sha256}; the bundle is "
            "damaged or was changed, nothing was imported."
        )


def _read_member(stream: Any, count: int, name: str, where: str) -> bytes:
    """Read from a member; a damaged compressed stream (bad CRC, cut short) is a :class:`DataLoadError`."""
    try:
        return stream.read(count)
    except _DAMAGED_STREAM as exc:  # gzip.BadGzipFile, lzma.LZMAError, ...
        raise DataLoadError(f"{where}: the tar file is damaged at {name} ({exc}).") from exc
