"""Downloads never print a password given in the URL (issue 20)."""

from __future__ import annotations

import io
import socket

import pytest

from genbench._core.errors import DataLoadError
from genbench.data._download import DownloadLimits, download


def test_a_password_in_a_download_url_is_never_printed() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(DataLoadError) as failed:
        download(
            f"http://user:Sup3r-secret@127.0.0.1:{port}/x.jsonl",
            io.BytesIO(),
            limits=DownloadLimits(max_bytes=100, timeout_s=5),
        )
    assert "Sup3r-secret" not in str(failed.value) and "user:***@127.0.0.1" in str(failed.value)
