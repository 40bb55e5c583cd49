"""What proves an embedded index whole: the size and checksum of each of its files, recorded when it is built.

An index's ``manifest.json`` lists every file of the index (``files``: relative path -> ``bytes``, ``xxh3_128``) and
carries a checksum of its own content (``manifest_sha256``), so that no byte of an index can change unnoticed:

- on every open, each listed file must exist with its recorded size (a ``stat`` per file), and each file of at most
  :data:`CHEAP_VERIFY_BYTES` must have its recorded checksum (small files are read whole by a search anyway);
- with ``verify=True`` (``--verify`` on the command line) every file's checksum is checked, whatever its size.

The checksums guard against damage (a disk, a copy cut short, a stray edit), not against someone who can rewrite
the manifest too, so they are XXH3-128 (:mod:`~genbench.contamination.checksums`), taken while the files are
written (:class:`HashingWriter`) rather than by reading them again.

An n-gram table (built later, on first use) records its own files the same way in its ``meta.json``, and the
checksums of the index files it was built from (``built_from``): a table that belongs to another index is never
used. A file that fails a check raises :class:`~genbench.contamination.errors.DamagedIndexError` naming the file
and the command that rebuilds the index; a damaged n-gram table is rebuilt instead (it is derived from the index's
files).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, BinaryIO

from genbench.contamination.checksums import DIGEST, file_digest, new_digest
from genbench.contamination.errors import DamagedIndexError

CHEAP_VERIFY_BYTES = 32 << 20
"""Files up to this size have their checksum checked on every open; larger ones with ``verify=True``."""


class HashingWriter:
    """A binary file written front to back and checksummed as it is written (a file object for ``shutil`` and
    numpy's header writer).

    Args:
        path: The file to create.
    """

    def __init__(self, path: Path):
        self.path = path
        self._handle: BinaryIO = open(path, "wb")  # noqa: SIM115 (closed by close())
        self._digest = new_digest()
        self.size = 0

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        self._digest.update(view)
        self.size += len(view)
        return self._handle.write(view)

    def close(self) -> dict[str, Any]:
        """Close the file; returns its record (``bytes``, checksum)."""
        self._handle.close()
        return {"bytes": self.size, DIGEST: str(self._digest.hexdigest())}

    def __enter__(self) -> HashingWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._handle.closed:
            self._handle.close()


def file_records(
    folder: Path, names: list[str], known: dict[str, dict[str, Any]] | None = None
) -> dict[str, dict[str, Any]]:
    """``{name: {"bytes": size, "xxh3_128": hex}}`` of the files ``names`` (relative to ``folder``); the records in
    ``known`` (made while writing) are taken as they are, the other files are read."""
    known = known or {}
    records = {}
    for name in names:
        path = folder / name
        records[name] = known[name] if name in known else {"bytes": path.stat().st_size, DIGEST: file_digest(path)}
    return records


def content_sha256(document: dict[str, Any]) -> str:
    """The SHA-256 of a manifest's content (its keys sorted, its own checksum left out)."""
    content = {key: value for key, value in document.items() if key != "manifest_sha256"}
    return hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def seal(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with its ``manifest_sha256``."""
    return {**document, "manifest_sha256": content_sha256(document)}


def is_sealed(document: dict[str, Any]) -> bool:
    """Whether ``document`` has a ``manifest_sha256`` matching its content."""
    return document.get("manifest_sha256") == content_sha256(document)


def recorded_digest(files: Any, name: str) -> str | None:
    """The checksum a manifest's ``files`` records for ``name`` (``None`` when it records none)."""
    record = files.get(name) if isinstance(files, dict) else None
    digest = record.get(DIGEST) if isinstance(record, dict) else None
    return digest if isinstance(digest, str) else None


def check_files(folder: Path, files: Any, rebuild_hint: str, *, verify: bool = False, what: str = "the index") -> None:
    """Check the files a manifest lists: present, of their size, and of their checksum where cheap or ``verify``.

    Raises:
        DamagedIndexError: a file is missing, of another size or content, or the list itself is malformed.
    """
    if not isinstance(files, dict) or not files:
        raise DamagedIndexError(f"{folder}: the manifest of {what} lists no files (damaged). {rebuild_hint}")
    for name, record in sorted(files.items()):
        path = folder / name
        if (
            not isinstance(record, dict)
            or not isinstance(record.get("bytes"), int)
            or not isinstance(record.get(DIGEST), str)
            or Path(name).is_absolute()
            or ".." in Path(name).parts
        ):
            raise DamagedIndexError(
                f"{folder}: the manifest's entry of {name!r} is malformed (damaged). {rebuild_hint}"
            )
        try:
            size = path.stat().st_size
        except OSError:
            raise DamagedIndexError(f"{path} is missing: {what} is incomplete. {rebuild_hint}") from None
        if size != record["bytes"]:
            raise DamagedIndexError(
                f"{path} has {size} bytes, {what} was built with {record['bytes']}: the file is damaged (cut short "
                f"or changed). {rebuild_hint}"
            )
        if verify or size <= CHEAP_VERIFY_BYTES:
            try:
                actual = file_digest(path)
            except OSError as exc:
                raise DamagedIndexError(f"{path} cannot be read ({exc}). {rebuild_hint}") from None
            if actual != record[DIGEST]:
                raise DamagedIndexError(
                    f"{path} does not have the checksum {what} was built with: the file is damaged. {rebuild_hint}"
                )
