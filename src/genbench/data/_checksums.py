"""SHA-256 of data files: the digest a config's ``sha256`` pins, its normal form and the check of a file against it."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from genbench._core.errors import ChecksumMismatchError, DataLoadError

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
"""The SHA-256 of an empty file: pinning it declares a split empty, the one case where an empty body is kept."""

_CHUNK_BYTES = 1 << 20
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 digest of a file, as the 64 lowercase hex digits a config's ``sha256`` expects.

    Args:
        path: The file.

    Returns:
        The hex digest (the same as ``sha256sum FILE``).

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     file = pathlib.Path(tmp, "empty.jsonl")
    ...     _ = file.write_bytes(b"")
    ...     file_sha256(file)
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    """
    hasher = hashlib.sha256()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(_CHUNK_BYTES), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def normalise_sha256(uri: str, sha256: str | None) -> str | None:
    """``sha256`` as 64 lowercase hex digits (None stays None).

    Raises:
        DataLoadError: ``sha256`` is not 64 hexadecimal digits (the message names ``uri``).

    >>> normalise_sha256("test.jsonl", " " + EMPTY_SHA256.upper()) == EMPTY_SHA256
    True
    """
    if sha256 is None:
        return None
    digest = sha256.strip().lower()
    if not _SHA256.match(digest):
        raise DataLoadError(f"{uri}: sha256 must be 64 hexadecimal digits, got {sha256!r}.")
    return digest


def verify_sha256(path: Path, uri: str, expected: str) -> None:
    """Check that the file at ``path`` (the data of ``uri``) has the SHA-256 ``expected``.

    Raises:
        ChecksumMismatchError: It has another, named in the message with both likely causes.
    """
    actual = file_sha256(path)
    if actual != expected:
        raise ChecksumMismatchError(
            f"SHA-256 mismatch for {uri} ({path}): expected {expected}, got {actual}. The file changed since "
            "the sha256 was recorded, or the sha256 in the config is wrong."
        )
