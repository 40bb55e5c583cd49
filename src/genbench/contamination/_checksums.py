"""The checksum of contamination's own files and of the training files they were made from: XXH3-128.

It guards against damage and change, not against someone who also rewrites what records it, so it need not be
cryptographic, and ``xxhash`` (installed with ``datasets``) is much faster than SHA-256. A training file's fingerprint
stays its SHA-256 (recorded in reports); its :func:`file_state` (size and times) lets an unchanged file be taken as
unchanged without reading it. See docs/contamination.md#damaged-indexes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import xxhash

DIGEST = "xxh3_128"
"""The name under which a record keeps this checksum."""

_READ_BYTES = 1 << 20


def new_digest() -> Any:
    """A running checksum (``update(bytes)``, ``hexdigest()``)."""
    return xxhash.xxh3_128()


def bytes_digest(data: bytes) -> str:
    return str(xxhash.xxh3_128_hexdigest(data))


def file_digest(path: Path) -> str:
    """The checksum of a file's bytes (read 1 MiB at a time).

    Raises:
        OSError: the file cannot be read.
    """
    digest = new_digest()
    with open(path, "rb") as handle:
        while chunk := handle.read(_READ_BYTES):
            digest.update(chunk)
    return str(digest.hexdigest())


def file_state(status: os.stat_result) -> dict[str, int]:
    """What changes whenever a file's content does: its size, modification and change times (nanoseconds)."""
    return {"bytes": status.st_size, "mtime_ns": status.st_mtime_ns, "ctime_ns": status.st_ctime_ns}
