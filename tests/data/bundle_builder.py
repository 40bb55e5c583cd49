"""Bundles built by hand (a manifest and members, any compression), for the hostile-bundle tests and the fuzz."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

from genbench._registry.data_bundle import BUNDLE_FORMAT, BUNDLE_VERSION, MANIFEST_NAME

REVISION = "0123456789abcdef0123456789abcdef01234567"
BODY = b'{"input": "1+1", "target": "2"}\n{"input": "2+2", "target": "4"}\n'


def file_record(uri: str, data: bytes, member: str) -> dict[str, Any]:
    return {"uri": uri, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "member": member}


def build_bundle(
    path: Path,
    members: dict[str, bytes],
    *,
    files: list[dict[str, Any]] | None = None,
    hub_datasets: list[dict[str, Any]] | None = None,
    manifest_text: bytes | None = None,
    compression: str = "",
) -> Path:
    """Write a tar (``compression``: "", "gz", "bz2", "xz") with a manifest (or ``manifest_text``) and ``members``."""
    manifest = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "created_by": "test",
        "tasks": [],
        "files": files or [],
        "hub_datasets": hub_datasets or [],
    }
    text = manifest_text if manifest_text is not None else json.dumps(manifest).encode()
    with tarfile.open(path, f"w:{compression}" if compression else "w") as tar:
        for name, data in [(MANIFEST_NAME, text), *members.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def one_file_bundle(path: Path, uri: str = "https://example.org/data/test.jsonl", body: bytes = BODY) -> Path:
    """A valid bundle of one download."""
    return build_bundle(path, {"downloads/test.jsonl": body}, files=[file_record(uri, body, "downloads/test.jsonl")])
