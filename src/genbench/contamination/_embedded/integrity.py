"""What proves an embedded index whole: the size and checksum of each of its files, recorded when it is built.

``manifest.json`` lists every file with its size and XXH3-128 checksum (taken while it is written,
:class:`HashingWriter`); an open checks sizes and small files' checksums, ``verify=True`` every checksum. A failed
check raises :class:`~genbench.contamination._errors.DamagedIndexError`. See docs/contamination.md#damaged-indexes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, BinaryIO

from genbench.contamination._checksums import DIGEST, file_digest, new_digest
from genbench.contamination._errors import DamagedIndexError

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
