"""genbench.data._cache: downloads (once, atomically, verified) and local paths (confined, in place)."""

from __future__ import annotations

import hashlib
import http.client
import os
import socket
from pathlib import Path

import pytest

from genbench._core.errors import ChecksumMismatchError, DataLoadError, DataNotFoundError
from genbench.data import cache_dir, cached_path, fetch, file_sha256

BODY = b'{"input": "1+1", "target": "2"}\n{"input": "2+2", "target": "4"}\n'
BODY_SHA256 = hashlib.sha256(BODY).hexdigest()


def cache_files(cache: Path) -> list[str]:
    """Every file under the cache, hidden temporary files included."""
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file()) if cache.exists() else []


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/test.jsonl"


# ------------------------------------------------------------------ cache location


def test_cache_dir_from_environment(genbench_cache):
    assert cache_dir() == genbench_cache
    assert cached_path("https://example.org/test.jsonl").parent == genbench_cache / "downloads"


def test_cache_dir_defaults_to_user_cache_dir(monkeypatch):
    import platformdirs

    monkeypatch.delenv("GENBENCH_CACHE")
    assert cache_dir() == Path(platformdirs.user_cache_dir("genbench"))


def test_cached_path_keeps_a_safe_basename():
    assert cached_path("https://example.org/a/my%20data.jsonl?x=1").name.endswith("-my_data.jsonl")
    assert cached_path("https://example.org/").name.endswith("-download")


# ------------------------------------------------------------------ downloads


def test_downloads_once_then_serves_from_cache_offline(http_server, genbench_cache, tmp_path):
    url = http_server.serve("data/test.jsonl", BODY)

    path = fetch(url, base_dir=tmp_path)
    assert path.read_bytes() == BODY
    assert path.parent == genbench_cache / "downloads"
    assert path.name.endswith("-test.jsonl")
    assert http_server.requests == ["/data/test.jsonl"]

    assert fetch(url, base_dir=tmp_path) == path
    assert fetch(url, base_dir=tmp_path, sha256=BODY_SHA256) == path
    assert len(http_server.requests) == 1, "a cached file must not be requested again"

    http_server.stop()
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY
    assert cache_files(genbench_cache) == [f"download-records/{path.name}.json", f"downloads/{path.name}"]


def test_download_with_matching_sha256(http_server, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    assert fetch(url, base_dir=tmp_path, sha256=BODY_SHA256.upper()).read_bytes() == BODY


def test_sha256_mismatch_keeps_nothing(http_server, genbench_cache, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    wrong = "0" * 64
    with pytest.raises(ChecksumMismatchError) as info:
        fetch(url, base_dir=tmp_path, sha256=wrong)
    message = str(info.value)
    assert wrong in message and BODY_SHA256 in message and url in message
    assert isinstance(info.value, DataLoadError)
    assert cache_files(genbench_cache) == []


def test_malformed_sha256_is_rejected(tmp_path):
    (tmp_path / "test.jsonl").write_bytes(BODY)
    with pytest.raises(DataLoadError, match="64 hexadecimal digits"):
        fetch("test.jsonl", base_dir=tmp_path, sha256="abc")


def test_truncated_download_keeps_nothing(http_server, genbench_cache, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = "truncate"
    with pytest.raises(DataLoadError, match=r"truncated: received \d+ of \d+ bytes") as info:
        fetch(url, base_dir=tmp_path)
    assert url in str(info.value)
    assert cache_files(genbench_cache) == []

    del http_server.faults["/test.jsonl"]  # the next attempt starts afresh
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY


@pytest.mark.parametrize(("fault", "status"), [("404", "HTTP 404"), ("500", "HTTP 500")])
def test_http_error_names_uri_and_status(http_server, genbench_cache, tmp_path, fault, status):
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = fault
    with pytest.raises(DataLoadError, match=status) as info:
        fetch(url, base_dir=tmp_path)
    assert url in str(info.value)
    assert cache_files(genbench_cache) == []


def test_unreachable_host_says_offline_and_no_cached_copy(genbench_cache, tmp_path):
    url = closed_port_url()
    with pytest.raises(DataLoadError) as info:
        fetch(url, base_dir=tmp_path)
    message = str(info.value)
    assert url in message and "no copy" in message and "offline" in message
    assert cache_files(genbench_cache) == []


def test_interrupted_download_keeps_nothing(http_server, genbench_cache, tmp_path, monkeypatch):
    url = http_server.serve("test.jsonl", BODY)

    def interrupted(self, amt=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(http.client.HTTPResponse, "read1", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fetch(url, base_dir=tmp_path)
    assert cache_files(genbench_cache) == []


def test_connection_reset_during_body_keeps_nothing(http_server, genbench_cache, tmp_path, monkeypatch):
    url = http_server.serve("test.jsonl", BODY)

    def reset(self, amt=None):
        raise ConnectionResetError("connection reset by peer")

    monkeypatch.setattr(http.client.HTTPResponse, "read1", reset)
    with pytest.raises(DataLoadError, match="interrupted after 0 bytes"):
        fetch(url, base_dir=tmp_path)
    assert cache_files(genbench_cache) == []


def test_corrupted_cached_file_is_downloaded_again(http_server, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    path = fetch(url, base_dir=tmp_path, sha256=BODY_SHA256)
    path.write_bytes(b"corrupted")

    assert fetch(url, base_dir=tmp_path, sha256=BODY_SHA256).read_bytes() == BODY
    assert len(http_server.requests) == 2


def test_corrupted_cached_file_offline_is_an_error(http_server, genbench_cache, tmp_path):
    url = http_server.serve("test.jsonl", BODY)
    path = fetch(url, base_dir=tmp_path, sha256=BODY_SHA256)
    path.write_bytes(b"corrupted")
    http_server.stop()

    with pytest.raises(DataLoadError) as info:
        fetch(url, base_dir=tmp_path, sha256=BODY_SHA256)
    message = str(info.value)
    assert "cached copy" in message and hashlib.sha256(b"corrupted").hexdigest() in message
    assert "offline" in message
    assert cache_files(genbench_cache) == [], "the corrupted copy must not stay in the cache"


def test_distinct_uris_with_the_same_basename_do_not_collide(http_server, tmp_path):
    first = http_server.serve("a/test.jsonl", b'{"x": 1}\n')
    second = http_server.serve("b/test.jsonl", b'{"x": 2}\n')
    first_path = fetch(first, base_dir=tmp_path)
    second_path = fetch(second, base_dir=tmp_path)
    assert first_path != second_path
    assert first_path.read_bytes() == b'{"x": 1}\n'
    assert second_path.read_bytes() == b'{"x": 2}\n'


def test_progress_bar(http_server, tmp_path, capsys):
    from genbench._core.progress import progress_bars

    url = http_server.serve("test.jsonl", BODY)
    with progress_bars(True):  # asked for: drawn on a captured stream too
        assert fetch(url, base_dir=tmp_path, progress=True).read_bytes() == BODY
    assert "test.jsonl" in capsys.readouterr().err


def test_no_progress_bar_where_it_would_not_redraw(http_server, tmp_path, capsys):
    url = http_server.serve("test.jsonl", BODY)
    assert fetch(url, base_dir=tmp_path, progress=True).read_bytes() == BODY
    assert capsys.readouterr().err == ""  # captured, as a pipe or a CI log: tqdm would print each redraw


def test_unsupported_scheme(tmp_path):
    with pytest.raises(DataLoadError, match="Unsupported URI scheme 'ftp'"):
        fetch("ftp://example.org/test.jsonl", base_dir=tmp_path)


# ------------------------------------------------------------------ local files


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    task = tmp_path / "task"
    (task / "data").mkdir(parents=True)
    (task / "data" / "test.jsonl").write_bytes(BODY)
    (tmp_path / "outside.jsonl").write_bytes(BODY)
    return task


def test_relative_path_inside_task_dir(task_dir, genbench_cache):
    assert fetch("data/test.jsonl", base_dir=task_dir) == (task_dir / "data" / "test.jsonl").resolve()
    assert fetch("./data/../data/test.jsonl", base_dir=task_dir).read_bytes() == BODY
    assert cache_files(genbench_cache) == [], "local files are used in place, not copied"


@pytest.mark.parametrize("uri", ["../outside.jsonl", "data/../../outside.jsonl", "file://../outside.jsonl"])
def test_relative_path_escaping_task_dir_is_refused(task_dir, uri):
    with pytest.raises(DataLoadError, match="leaves the task directory"):
        fetch(uri, base_dir=task_dir)


def test_symlink_escaping_task_dir_is_refused(task_dir):
    (task_dir / "link.jsonl").symlink_to(task_dir.parent / "outside.jsonl")
    with pytest.raises(DataLoadError, match="leaves the task directory"):
        fetch("link.jsonl", base_dir=task_dir)


def test_absolute_path_and_file_uri_are_used_in_place(task_dir, genbench_cache):
    outside = task_dir.parent / "outside.jsonl"
    assert fetch(str(outside), base_dir=task_dir) == outside
    assert fetch(outside.as_uri(), base_dir=task_dir) == outside
    assert fetch(f"file://localhost{outside}", base_dir=task_dir) == outside
    assert cache_files(genbench_cache) == []


def test_file_uri_with_relative_path_resolves_in_task_dir(task_dir):
    # The original framework stripped "file://" and used the rest as a path.
    assert fetch("file://data/test.jsonl", base_dir=task_dir) == (task_dir / "data" / "test.jsonl").resolve()


def test_file_uri_is_percent_decoded(tmp_path):
    spaced = tmp_path / "my data.jsonl"
    spaced.write_bytes(BODY)
    assert fetch(spaced.as_uri(), base_dir=tmp_path) == spaced


def test_missing_local_file(task_dir):
    with pytest.raises(DataNotFoundError) as info:
        fetch("data/train.jsonl", base_dir=task_dir)
    expected = str((task_dir / "data" / "train.jsonl").resolve())
    assert expected in str(info.value)
    assert isinstance(info.value, FileNotFoundError)
    assert info.value.filename == expected


def test_missing_absolute_file_and_directory(task_dir):
    with pytest.raises(DataNotFoundError, match="nowhere.jsonl"):
        fetch(str(task_dir / "nowhere.jsonl"), base_dir=task_dir)
    with pytest.raises(DataLoadError, match="is not a file"):
        fetch("data", base_dir=task_dir)


def test_local_sha256(task_dir):
    assert fetch("data/test.jsonl", base_dir=task_dir, sha256=BODY_SHA256).read_bytes() == BODY
    with pytest.raises(ChecksumMismatchError, match=f"expected {'1' * 64}, got {BODY_SHA256}"):
        fetch("data/test.jsonl", base_dir=task_dir, sha256="1" * 64)


def test_file_sha256_matches_hashlib(tmp_path):
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(3 * (1 << 20) + 7))
    assert file_sha256(big) == hashlib.sha256(big.read_bytes()).hexdigest()
