"""What proves an embedded index whole: the size and SHA-256 of each of its files, recorded when it is built.

An index's ``manifest.json`` lists every file of the index (``files``: relative path -> ``bytes``, ``sha256``) and
carries a checksum of its own content (``manifest_sha256``), so that no byte of an index can change unnoticed:

- on every open, each listed file must exist with its recorded size (a ``stat`` per file), and each file of at most
  :data:`CHEAP_VERIFY_BYTES` must have its recorded SHA-256 (small files are read whole by a search anyway);
- with ``verify=True`` (``--verify`` on the command line) every file's SHA-256 is checked, whatever its size.

An n-gram table (built later, on first use) records its own files the same way in its ``meta.json``. A file that
fails a check raises :class:`~genbench.contamination.errors.DamagedIndexError` naming the file and the command that
rebuilds the index; a damaged n-gram table is rebuilt instead (it is derived from the index's files).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from genbench.contamination.errors import DamagedIndexError

CHEAP_VERIFY_BYTES = 32 << 20
"""Files up to this size have their SHA-256 checked on every open; larger ones with ``verify=True``."""

_READ_BYTES = 1 << 20


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_READ_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def file_records(folder: Path, names: list[str]) -> dict[str, dict[str, Any]]:
    """``{name: {"bytes": size, "sha256": hex}}`` of the files ``names`` (relative to ``folder``)."""
    return {name: {"bytes": (folder / name).stat().st_size, "sha256": file_sha256(folder / name)} for name in names}


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


def check_files(folder: Path, files: Any, rebuild_hint: str, *, verify: bool = False, what: str = "the index") -> None:
    """Check the files a manifest lists: present, of their size, and of their SHA-256 where cheap or ``verify``.

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
            or not isinstance(record.get("sha256"), str)
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
                actual = file_sha256(path)
            except OSError as exc:
                raise DamagedIndexError(f"{path} cannot be read ({exc}). {rebuild_hint}") from None
            if actual != record["sha256"]:
                raise DamagedIndexError(
                    f"{path} does not have the SHA-256 {what} was built with: the file is damaged. {rebuild_hint}"
                )
