"""The manifest of a shift index folder: what corpus it holds and the size and XXH3-128 of each of its files.

``genbench-shift.json`` is written when genbench builds an index or a user registers one, sealed by its own checksum
(``manifest_sha256``, the index checksum that shift reports cite), and checked on every open as the contamination
indexes' manifests are: every file present with its size, and no file it does not list (an added shard would change
every count). See docs/shift.md#verified-indexes-named-corpora.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from genbench._core.files import write_json_atomic
from genbench.contamination._embedded.integrity import check_files, file_records, is_sealed, seal
from genbench.contamination._errors import ContaminationError, DamagedIndexError

MANIFEST = "genbench-shift.json"
FORMAT = "genbench-shift-index"
FORMAT_VERSION = 1


def write_manifest(folder: Path, corpus: dict[str, Any]) -> dict[str, Any]:
    """Record every file of ``folder`` with ``corpus`` (``engine``, ``name``, ``tokenizer``, ...); return it sealed."""
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    document = seal(
        {"format": FORMAT, "format_version": FORMAT_VERSION, **corpus, "files": file_records(folder, names)}
    )
    write_json_atomic(folder / MANIFEST, document)
    return document


def read_manifest(folder: Path, *, verify: bool = False) -> dict[str, Any]:
    """The checked manifest of the index in ``folder``.

    Raises:
        ContaminationError: ``folder`` holds no shift index.
        DamagedIndexError: the manifest or a file was changed, a file is missing, or a file is not listed.
    """
    hint = "Rebuild it with `genbench-cli shift build`, or register it again with `genbench-cli shift register`."
    path = folder / MANIFEST
    if not path.is_file():
        raise ContaminationError(
            f"{folder} holds no shift index ({MANIFEST} is missing). Build one with `genbench-cli shift build`, or "
            f"register a downloaded index with `genbench-cli shift register {folder}`."
        )
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DamagedIndexError(f"{path} cannot be read as JSON ({exc}): the index is damaged. {hint}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT or not is_sealed(document):
        raise DamagedIndexError(f"{path} was changed since the index was built (its checksum differs). {hint}")
    if document.get("format_version") != FORMAT_VERSION:
        raise ContaminationError(
            f"{path} has format version {document.get('format_version')!r}; this genbench reads version "
            f"{FORMAT_VERSION}. {hint}"
        )
    check_files(folder, document.get("files"), hint, verify=verify, what="the shift index")
    listed = set(document["files"])
    for extra in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST):
        if str(extra.relative_to(folder)) not in listed and not extra.name.startswith("."):
            raise DamagedIndexError(
                f"{extra} is not part of the shift index (its manifest does not list it): remove it. {hint}"
            )
    return document
